/**
 * The shortest base64 payload that is left out. A data URI this long is an image or a file pasted
 * into the note (a 200 KB screenshot is one "word" of 270,000 characters); shorter ones stay.
 */
const MIN_PAYLOAD = 64;

/** Farthest back from `;base64,` that its `data:` may start (`data:application/pdf;name=…`). */
const MAX_HEAD = 200;

// the media type and parameters between `data:` and `;base64,`
const HEAD = /data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+%-]*)*$/i;

const isBase64 = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;

/**
 * A note's text with the payload of each long base64 data URI left out (`![](data:image/png;base64,…)`),
 * on the same lines. Such a payload says nothing a search can use: embedded, it drew every
 * question about words no note holds, and shown, it filled a snippet, an answer's context and
 * `get_note`'s 40,000 characters with base64. Read in one pass from each `;base64,`, with no
 * pattern over the payload (a regex over a 6 MB payload overflowed V8's stack).
 *
 * @example
 * ```ts
 * withoutDataPayloads("![chart](data:image/png;base64,iVBORw0KGgo" + "A".repeat(5000) + ")");
 * // "![chart](data:image/png;base64,…)"
 * ```
 */
export function withoutDataPayloads(text: string): string {
  const marks = /;base64,/gi;
  let out = "";
  let last = 0;
  for (let m = marks.exec(text); m; m = marks.exec(text)) {
    const at = m.index;
    const body = at + m[0].length;
    let end = body;
    while (end < text.length && isBase64(text.charCodeAt(end))) end++;
    for (let pad = 0; pad < 2 && text.charCodeAt(end) === 61; pad++) end++; // `=` padding
    marks.lastIndex = Math.max(end, body);
    if (end - body < MIN_PAYLOAD || !HEAD.test(text.slice(Math.max(last, at - MAX_HEAD), at))) continue;
    out += `${text.slice(last, body)}…`;
    last = end;
  }
  return last ? out + text.slice(last) : text;
}
