/** A link to another note, with the words around it: what the linking note says about its target. */
export interface LinkText {
  /** The link's target as {@link Note.links} gives it: a wikilink's target as written, a Markdown link's vault path. */
  target: string;
  /** The sentence that holds the link, with every link in it shown as its display text. */
  text: string;
}

/** Where a link's display text stands in a block's plain text. */
export interface LinkSpan {
  start: number;
  end: number;
  target: string;
}

/** At most this many characters of a sentence on each side of the link: a run-on list stays a phrase. */
export const LINK_TEXT_REACH = 200;

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * The sentence around each link in a block of plain text (Unicode sentence boundaries, by
 * `Intl.Segmenter`), whitespace collapsed and cut to {@link LINK_TEXT_REACH} characters on either
 * side of the link. A link that spans two sentences gets both.
 *
 * @example
 * ```ts
 * linkSentences("Mix well. Bake as the loaf says. Rest.", [{ start: 20, end: 28, target: "Sourdough" }]);
 * // [{ target: "Sourdough", text: "Bake as the loaf says." }]
 * ```
 */
export function linkSentences(plain: string, spans: readonly LinkSpan[]): LinkText[] {
  const bounds: [number, number][] = [];
  for (const s of sentences.segment(plain)) bounds.push([s.index, s.index + s.segment.length]);
  return spans.map((span) => {
    let from = span.start;
    let to = span.end;
    for (const [a, b] of bounds) {
      if (b > span.start && a <= span.start) from = a;
      if (a < span.end && b >= span.end) to = b;
    }
    from = Math.max(from, span.start - LINK_TEXT_REACH);
    to = Math.min(to, span.end + LINK_TEXT_REACH);
    return { target: span.target, text: plain.slice(from, to).replace(/\s+/g, " ").trim() };
  });
}
