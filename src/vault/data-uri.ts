/**
 * The shortest base64 payload that is left out. A data URI this long is an image or a file pasted
 * into the note (a 200 KB screenshot is one "word" of 270,000 characters); shorter ones stay.
 */
const MIN_PAYLOAD = 64;

// `data:image/png;base64,` (with any parameters before `;base64`) and its payload, on one line
const DATA_URI = /(data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+%-]*)*;base64,)[A-Za-z0-9+/]{64,}(?:={0,2})/gi;

/**
 * A note's text with the payload of each long base64 data URI left out (`![](data:image/png;base64,…)`),
 * on the same lines. Such a payload says nothing a search can use: embedded, it drew every
 * question about words no note holds, and shown, it filled a snippet, an answer's context and
 * `get_note`'s 40,000 characters with base64.
 *
 * @example
 * ```ts
 * withoutDataPayloads("![chart](data:image/png;base64,iVBORw0KGgo" + "A".repeat(5000) + ")");
 * // "![chart](data:image/png;base64,…)"
 * ```
 */
export function withoutDataPayloads(text: string): string {
  if (!/;base64,/i.test(text)) return text;
  return text.replace(DATA_URI, (all, head: string) => (all.length - head.length >= MIN_PAYLOAD ? `${head}…` : all));
}
