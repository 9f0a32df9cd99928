// Kept apart from tags.ts, which brings the Markdown parser: a search's hints read a tag as a
// note's text would without loading it.

// A tag: '#' then letters, digits, _, -, / — at least one non-digit (Obsidian's rule).
// letters with their combining marks: "#café" written as e + U+0301 (as macOS may), or Devanagari's
// vowel signs ("#हिन्दी"), are one tag, not cut at the mark
// (\u0001: a code span or an escape just before, blanked by the scan: `` `x`#tag `` is a tag)
// eslint-disable-next-line no-control-regex
export const TAG_RE = /(^|[\s([{,;!?"'\u0001])#([\p{L}\p{M}\p{N}_\-/]*[\p{L}_\-/][\p{L}\p{M}\p{N}_\-/]*)/gu;

/**
 * The tag a note's text reads `#word` as: its first run of characters a tag can hold (a tag ends
 * at the first one it cannot, as in Obsidian), or `undefined` when it reads none.
 *
 * @example
 * ```ts
 * inlineTag("role.bugcatcher"); // "role"
 * inlineTag("2024"); // undefined: a tag needs a character that is no digit
 * ```
 */
export function inlineTag(word: string): string | undefined {
  const m = `#${word}`.matchAll(TAG_RE).next().value;
  return m?.[2].replace(/\/+$/, "") || undefined;
}
