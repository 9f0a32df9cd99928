import { parseBlocks } from "../vault/index.js";

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
export function splitSections(body: string, lineCount: number): Section[] {
  const tokens = parseBlocks(body);
  interface Block { start: number; atomic: boolean; heading?: { level: number; text: string } }
  const blocks: Block[] = [];
  let depth = 0; // nesting depth of open container tokens
  let current: Block | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (depth === 0 && t.map && t.nesting >= 0) {
      current = { start: t.map[0], atomic: t.type === "fence" || t.type === "code_block" || t.type === "html_block" };
      if (t.type === "heading_open") {
        const inline = tokens[i + 1];
        current.heading = { level: Number(t.tag.slice(1)), text: (inline?.content ?? "").trim() };
      }
      blocks.push(current);
    } else if (depth > 0 && current && (t.type === "fence" || t.type === "code_block")) {
      current.atomic = true; // a fence inside a callout, list or quote: keep the container whole
    }
    depth += t.nesting;
  }

  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let section: Section = { trail: [], level: 0, units: [] };
  const firstStart = blocks.length ? blocks[0].start : lineCount;
  if (firstStart > 0) section.units.push({ start: 0, end: firstStart, atomic: false, isHeading: false });
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b];
    const end = b + 1 < blocks.length ? blocks[b + 1].start : lineCount;
    if (block.heading) {
      if (section.units.length) sections.push(section);
      while (stack.length && stack[stack.length - 1].level >= block.heading.level) stack.pop();
      stack.push(block.heading);
      section = { trail: stack.map((h) => h.text), level: block.heading.level, units: [] };
    }
    if (end > block.start) section.units.push({ start: block.start, end, atomic: block.atomic, isHeading: !!block.heading });
  }
  if (section.units.length) sections.push(section);
  return sections;
}
