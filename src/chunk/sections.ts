import { scanBlocks } from "../vault/index.js";

/** Receives a note's heading sections in order, and the blocks of lines in each. */
export interface SectionVisitor {
  /** A heading opens a section: its trail below the title (e.g. ["SMARS", "Motor wiring"]) and level 1–6. */
  section(trail: string[], level: number): void;
  /** A block of the current section: lines [start, end) of the body (0-based); `atomic`: never split it. */
  block(start: number, end: number, atomic: boolean): void;
}

/**
 * Walks a note body as heading sections, each a run of top-level blocks covering every line; text
 * before the first heading belongs to a section with trail [] and level 0. Uses the CommonMark block
 * parser, so `#` inside fences or HTML is never a heading. Nothing is kept per block, so a note of
 * 40,000 sections costs no more than its chunks.
 *
 * @example
 * ```ts
 * const trails: string[][] = [];
 * walkSections("intro\n# A\ntext\n## B\nmore\n", { section: (t) => trails.push(t), block: () => {} });
 * trails; // [["A"], ["A", "B"]]
 * ```
 */
export function walkSections(body: string, visit: SectionVisitor): void {
  const { starts, levels, texts, atomic, lineCount } = scanBlocks(body);
  const stack: { level: number; text: string }[] = [];
  const firstStart = starts.length ? starts[0] : lineCount;
  if (firstStart > 0) visit.block(0, firstStart, false);
  for (let b = 0; b < starts.length; b++) {
    const start = starts[b];
    const end = b + 1 < starts.length ? starts[b + 1] : lineCount;
    const level = levels[b];
    if (level) {
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, text: texts[b] });
      visit.section(
        stack.map((h) => h.text),
        level,
      );
    }
    if (end > start) visit.block(start, end, atomic[b]);
  }
}
