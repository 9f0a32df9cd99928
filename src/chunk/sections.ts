import { scanBlocks } from "../vault/index.js";

/** Receives a note's heading sections in order, and the blocks of lines in each. */
export interface SectionVisitor {
  /**
   * A heading opens a section: its trail below the title (e.g. ["SMARS", "Motor wiring"]), level
   * 1–6, and the body line of each heading in the trail (which tells two "Notes" headings apart).
   */
  section(trail: string[], level: number, lines: number[]): void;
  /**
   * A block of the current section: lines [start, end) of the body (0-based); `atomic`: never split
   * it; `item`: an item of a list that holds code, after the list's first (the list is cut at its
   * items, each kept whole if it holds code); `table`: a table, its first two lines the header.
   */
  block(start: number, end: number, atomic: boolean, item?: boolean, table?: boolean): void;
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
  const { starts, levels, texts, atomic, tables, items, lineCount } = scanBlocks(body);
  const stack: { level: number; text: string; line: number }[] = [];
  const firstStart = starts.length ? starts[0] : lineCount;
  if (firstStart > 0) visit.block(0, firstStart, false);
  for (let b = 0; b < starts.length; b++) {
    const start = starts[b];
    const end = b + 1 < starts.length ? starts[b + 1] : lineCount;
    const level = levels[b];
    if (level) {
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, text: texts[b], line: start });
      visit.section(
        stack.map((h) => h.text),
        level,
        stack.map((h) => h.line),
      );
    }
    const list = items[b];
    if (list && list.starts.length > 1) {
      // a list that holds code: its items, so that one item of code does not make the list one block
      for (let i = 0; i < list.starts.length; i++) {
        const from = i === 0 ? start : list.starts[i];
        const to = i + 1 < list.starts.length ? list.starts[i + 1] : end;
        if (to > from) visit.block(from, to, list.atomic[i], i > 0);
      }
    } else if (end > start) visit.block(start, end, atomic[b], false, tables[b]);
  }
}
