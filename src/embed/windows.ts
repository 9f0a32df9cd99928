import type { Embedder } from "./types.js";

/** How a passage longer than a model's window is cut into windows. */
export interface WindowOptions {
  /** Tokens a window may hold (the model's own limit). */
  maxTokens: number;
  /** The model's token count of a text. */
  countTokens: (text: string) => number;
  /** Tokens of text repeated at the start of the next window. */
  overlapTokens?: number;
}

/** Tokens repeated between windows of one passage: a sentence cut at a window edge is read whole by one of them. */
export const WINDOW_OVERLAP_TOKENS = 16;

/**
 * The texts a model embeds for one passage: the passage itself when the model reads all of it,
 * else windows of at most `maxTokens` tokens, each opening with the passage's first line (its
 * headings) so no window loses its subject, cut between words with `overlapTokens` of overlap.
 * The store pools a passage's window vectors into its one dense vector.
 *
 * @example
 * ```ts
 * const count = (t: string) => t.split(/\s+/).filter(Boolean).length;
 * passageWindows("Title\none two three four five six", { maxTokens: 4, countTokens: count, overlapTokens: 1 });
 * // ["Title\none two three", "Title\nthree four five", "Title\nfive six"]
 * ```
 */
export function passageWindows(text: string, o: WindowOptions): string[] {
  const { maxTokens, countTokens } = o;
  if (countTokens(text) <= maxTokens) return [text];
  const nl = text.indexOf("\n");
  let head = nl >= 0 ? text.slice(0, nl + 1) : "";
  let budget = maxTokens - (head ? countTokens(head) : 0);
  if (budget < maxTokens / 2) {
    // a heading line that would take half the window is not repeated
    head = "";
    budget = maxTokens;
  }
  const words = (head ? text.slice(nl + 1) : text).split(/\s+/).filter(Boolean);
  // a word's tokens counted alone: close to (and for SentencePiece never below) its share of the whole
  const cost = words.map((w) => countTokens(w));
  const overlap = Math.min(o.overlapTokens ?? WINDOW_OVERLAP_TOKENS, Math.floor(budget / 4));
  const out: string[] = [];
  let i = 0;
  while (i < words.length) {
    let j = i;
    let t = 0;
    while (j < words.length && t + cost[j] <= budget) t += cost[j++];
    if (j === i) j = i + 1; // one word longer than a window (a URL, a hash)
    let win = head + words.slice(i, j).join(" ");
    while (j > i + 1 && countTokens(win) > maxTokens) win = head + words.slice(i, --j).join(" ");
    // a single word over the window: the model reads as much of it as fits
    if (j === i + 1 && countTokens(win) > maxTokens)
      win = head + fitPrefix(words[i], (w) => countTokens(head + w) <= maxTokens);
    out.push(win);
    if (j >= words.length) break;
    let k = j;
    let back = 0;
    while (k > i + 1 && back + cost[k - 1] <= overlap) back += cost[--k];
    // no overlap when the next window could not reach past this one's end (a long word follows)
    if (back + cost[j] > budget) k = j;
    i = k;
  }
  return out;
}

/**
 * The window options of an embedder, or `undefined` when it reads whole passages: a model without a
 * local tokenizer (Ollama, OpenAI-compatible servers) gets one text per passage and its own window.
 *
 * @example
 * ```ts
 * windowOptions(useLiteEmbedder())?.maxTokens; // 128
 * ```
 */
export function windowOptions(embedder: Embedder): WindowOptions | undefined {
  if (!embedder.countTokens) return undefined;
  return { maxTokens: embedder.maxTokens, countTokens: (t) => embedder.countTokens!(t) };
}

/** The longest prefix of a word that passes `fits` (at least one character). */
function fitPrefix(word: string, fits: (w: string) => boolean): string {
  if (fits(word)) return word;
  let lo = 1;
  let hi = word.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (fits(word.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return word.slice(0, lo);
}
