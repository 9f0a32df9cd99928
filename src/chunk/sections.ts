import { scanBlocks } from "../vault/index.js";

/** A range of source lines that is never split (a fence, an HTML block, a callout holding code). */
export interface Unit {
  /** 0-based line range [start, end) in the body. */
  start: number;
  end: number;
  /** Never split this unit. */
  atomic: boolean;
  /** Lines of the unit that are heading lines (so embed text can drop them). */
  isHeading: boolean;
}

/** A heading section: the heading's breadcrumb, depth, and its units in order. */
export interface Section {
  /** Heading trail below the title, e.g. ["SMARS", "Motor wiring"]; [] before the first heading. */
  trail: string[];
  /** Heading level (1–6), 0 for text before the first heading. */
  level: number;
  units: Unit[];
}

/**
 * Cuts a note body into heading sections, each a list of block units covering every line.
 * Uses the CommonMark block parser, so `#` inside fences or HTML is never a heading.
 *
 * @example
 * ```ts
 * splitSections("intro\n# A\ntext\n## B\nmore\n").map((s) => s.trail); // [[], ["A"], ["A", "B"]]
 * ```
 */
export function splitSections(body: string): Section[] {
  const { starts, levels, texts, atomic, lineCount } = scanBlocks(body);
  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let section: Section = { trail: [], level: 0, units: [] };
  const firstStart = starts.length ? starts[0] : lineCount;
  if (firstStart > 0) section.units.push({ start: 0, end: firstStart, atomic: false, isHeading: false });
  for (let b = 0; b < starts.length; b++) {
    const start = starts[b];
    const end = b + 1 < starts.length ? starts[b + 1] : lineCount;
    const level = levels[b];
    if (level) {
      if (section.units.length) sections.push(section);
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, text: texts[b] });
      section = { trail: stack.map((h) => h.text), level, units: [] };
    }
    if (end > start) section.units.push({ start, end, atomic: atomic[b], isHeading: level > 0 });
  }
  if (section.units.length) sections.push(section);
  return sections;
}
