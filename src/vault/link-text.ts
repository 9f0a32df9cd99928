/** A link to another note, with the words around it: what the linking note says about its target. */
export interface LinkText {
  /** The link's target as {@link Note.links} gives it: a wikilink's target as written, a Markdown link's vault path. */
  target: string;
  /** The sentence that holds the link, with every link in it shown as its display text. */
  text: string;
  /** The link's display text as a reader sees it (`PCA` for `[[Principle Component Analysis|PCA]]`). */
  display?: string;
  /** A Markdown link (`[text](path.md)`), which Obsidian also reads from the vault's top; absent for a wikilink. */
  markdown?: true;
}

/** Where a link's display text stands in a block's plain text. */
export interface LinkSpan {
  start: number;
  end: number;
  target: string;
  markdown?: true;
}

/** At most this many characters of a sentence on each side of the link: a run-on list stays a phrase. */
export const LINK_TEXT_REACH = 200;

/** At most this many links of one note keep their sentence (each different pair of target and sentence once). */
export const MAX_LINK_TEXTS = 1000;

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * The sentence around each link in a block of plain text (Unicode sentence boundaries, by
 * `Intl.Segmenter`), whitespace collapsed and cut to {@link LINK_TEXT_REACH} characters on either
 * side of the link. A link that spans two sentences gets both.
 *
 * @example
 * ```ts
 * linkSentences("Mix well. Bake as the loaf says. Rest.", [{ start: 20, end: 28, target: "Sourdough" }]);
 * // [{ target: "Sourdough", text: "Bake as the loaf says.", display: "the loaf" }]
 * ```
 */
export function linkSentences(plain: string, spans: readonly LinkSpan[]): LinkText[] {
  const reachOf = (span: LinkSpan) => ({
    from: span.start - LINK_TEXT_REACH,
    // a display text longer than the reach counts up to the reach
    to: Math.min(span.end, span.start + LINK_TEXT_REACH) + LINK_TEXT_REACH,
  });
  const out = (span: LinkSpan, from: number, to: number): LinkText => ({
    target: span.target,
    text: plain.slice(from, to).replace(/\s+/g, " ").trim(),
    ...(span.end > span.start ? { display: plain.slice(span.start, span.end).replace(/\s+/g, " ").trim() } : {}),
    ...(span.markdown ? { markdown: true as const } : {}),
  });
  if (plain.length > WHOLE_BLOCK_CHARS)
    // V8's segmenter slows with the length of the text (a 400 KB paragraph took seconds): a long
    // block is read only around each link, as far as the reach goes
    return spans.map((span) => {
      const r = reachOf(span);
      const at = Math.max(0, r.from);
      const [from, to] = sentenceAround(plain.slice(at, r.to), span.start - at, span.end - at);
      return out(span, at + from, at + to);
    });
  if (!plain) return spans.map((span) => out(span, Math.max(0, reachOf(span).from), Math.min(0, reachOf(span).to)));
  // only the sentences that hold a link are found (ICU reads from a safe point before each, not the
  // block from its start): the sentence holding the span's first character and the one holding its
  // last, never one before the last span's (spans come in reading order)
  const segments = sentences.segment(plain);
  const last = plain.length - 1;
  const at = (k: number): [number, number] => {
    const s = segments.containing(Math.min(k, last))!;
    return [s.index, s.index + s.segment.length];
  };
  let first: [number, number] | undefined;
  return spans.map((span) => {
    const from = at(span.start);
    if (!first || from[0] > first[0]) first = from;
    const to = span.end > first[1] ? at(span.end - 1) : first;
    const r = reachOf(span);
    return out(span, Math.max(first[0], r.from), Math.min(to[1], r.to));
  });
}

/** Blocks up to this long are cut into sentences whole; longer ones only around each link. */
const WHOLE_BLOCK_CHARS = 4000;

function boundsOf(text: string): [number, number][] {
  const bounds: [number, number][] = [];
  for (const s of sentences.segment(text)) bounds.push([s.index, s.index + s.segment.length]);
  return bounds;
}

/** The start of the sentence holding `start` and the end of the one holding `end`, in `text`. */
function sentenceAround(text: string, start: number, end: number): [number, number] {
  const bounds = boundsOf(text);
  const first = bounds.find(([, b]) => b > start) ?? [0, text.length];
  const last = bounds.find(([, b]) => b >= end) ?? [0, text.length];
  return [first[0], last[1]];
}
