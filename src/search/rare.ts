/** The rare-word lookup: a question of a few words that few passages hold (docs/decisions/short-queries.md). */
import { queryTokens, STOPWORDS, type Store } from "../store/index.js";

/**
 * When a question is a lookup of rare words ("PCA", "DRV8833"), which the keyword list finds and
 * the model may not read, the keyword list's first `top` passages lead the hybrid fusion, in their
 * fused order (docs/decisions/fusion-weight.md).
 */
export const RARE_DEFAULTS = {
  /** At most this many words, stopwords left out. */
  words: 2,
  /** Each word held by at most this share of the passages (and by at least one). */
  share: 0.01,
  /** The keyword list's first this many passages lead. */
  top: 5,
};

/**
 * Whether a question is a lookup of rare words: at most `RARE_DEFAULTS.words` words besides
 * stopwords, each held by at least one passage and by at most `share` of them.
 *
 * @example
 * ```ts
 * await isRareLookup(store, "PCA"); // true where 4 of 2,000 passages hold "pca"
 * await isRareLookup(store, "how do I undo a commit"); // false: three words
 * ```
 */
export async function isRareLookup(
  store: Store,
  question: string,
  o = RARE_DEFAULTS,
  language?: string,
): Promise<boolean> {
  const words = [...new Set(queryTokens(question))].filter((w) => !STOPWORDS.has(w.replace(/’/g, "'")));
  if (!words.length || words.length > o.words) return false;
  const { chunks } = await store.count();
  const cap = Math.max(1, Math.floor(o.share * chunks)) + 1;
  const { counts } = await store.keywordStats(words, { cap, language });
  return counts.every((c) => c > 0 && c < cap);
}
