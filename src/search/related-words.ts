import { normaliseWhere, queryTokens, STOPWORDS, type Store, type StoreRecord } from "../store/index.js";

/**
 * Related notes by what can be read without the model: the words two notes share (BM25 of the
 * note's most telling words), the tags they share and whether they link (docs/decisions/related-notes.md);
 * for the notes `modelCannotRead` (readable.ts) judges.
 */
export const RELATED_WORDS_DEFAULTS = {
  /** The note's most telling words (tf × idf) that make the keyword query. */
  terms: 24,
  /**
   * What shared tags (Jaccard) weigh beside the words' score (the best note's is 1): on
   * test/fixtures/italian, words alone put 55.6% of the top 3 in the note's topic, with tags 70.4%.
   */
  tags: 0.5,
  /** What a link between the two notes, either way, weighs. */
  link: 0.2,
};

/** A note found by its words, with the passage that matched best. */
export interface WordsMatch {
  path: string;
  /** Words (scaled so the best note is 1) + tags × Jaccard of shared tags + link × linked. */
  score: number;
  passage: StoreRecord | { id: string; text: string; meta: StoreRecord["meta"] };
}

/**
 * The notes nearest to a note by what can be read of it: a keyword query of its `terms` most telling
 * words (tf × idf over the index), each note scored by its best passage, scaled to the best note;
 * plus shared tags and links. Its own passages and `excluded` notes are left out.
 *
 * @example
 * ```ts
 * await relatedByWords(store, chunks, new Set(["net/DNS.md"]), 5); // [{ path: "net/TCP.md", score: 1.12, passage: … }, …]
 * ```
 */
export async function relatedByWords(
  store: Store,
  chunks: StoreRecord[],
  linked: ReadonlySet<string>,
  k: number,
  excluded: readonly string[] = [],
  o = RELATED_WORDS_DEFAULTS,
): Promise<WordsMatch[]> {
  const note = chunks[0].meta.path;
  const tf = new Map<string, number>();
  for (const c of chunks)
    for (const w of queryTokens(c.text))
      if (/^\p{L}[\p{L}\p{N}]+$/u.test(w) && !STOPWORDS.has(w)) tf.set(w, (tf.get(w) ?? 0) + 1);
  if (!tf.size) return [];
  const words = [...tf.keys()];
  const { chunks: total, counts } = await store.keywordStats(words);
  const ranked = words
    .map((w, i) => ({ w, weight: tf.get(w)! * Math.log((total + 1) / ((counts[i] || 0) + 1)) }))
    .filter((x) => x.weight > 0)
    .sort((a, b) => b.weight - a.weight || (a.w < b.w ? -1 : 1))
    .slice(0, o.terms);
  if (!ranked.length) return [];
  const filter = { where: normaliseWhere({ path: { $nin: [note, ...excluded] } }) };
  const hits = await store.queryKeyword(ranked.map((x) => x.w).join(" "), Math.max(50, k * 10), filter);
  const best = new Map<string, { bm25: number; passage: WordsMatch["passage"] }>();
  for (const h of hits) if (!best.has(h.meta.path)) best.set(h.meta.path, { bm25: -h.distance, passage: h });
  const top = Math.max(...[...best.values()].map((b) => b.bm25), 0) || 1;
  const tags = new Set(chunks[0].meta.tags);
  return [...best]
    .map(([path, b]) => {
      const theirs = new Set(b.passage.meta.tags);
      const shared = [...theirs].filter((t) => tags.has(t)).length;
      const union = new Set([...tags, ...theirs]).size;
      return {
        path,
        score: b.bm25 / top + o.tags * (union ? shared / union : 0) + (linked.has(path) ? o.link : 0),
        passage: b.passage,
      };
    })
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, k);
}
