/** How a search ran, for a reader who asks: what the CLI's `--verbose` prints. */
import {
  SEARCH_DEFAULTS,
  wordNetProblem,
  type SearchContext,
  type SearchRequest,
  type SearchResult,
} from "../search/index.js";
import { ChromaStore, NEAR_WINDOW, proximityPairs } from "../store/index.js";
import type { SearchExplain } from "./types.js";

/**
 * How a search ran: the index and model, the WordNet synonyms its keyword query added (or why it
 * added none), the word pairs and backlink text it ranked by, and how many dense candidates the
 * model could not read.
 *
 * @example
 * ```ts
 * const res = await search(ctx, "motor wiring", {});
 * (await explainSearch(ctx, "motor wiring", {}, res)).near; // { pairs: [["motor", "wiring"]], weight: 0.2, window: 8 }
 * ```
 */
export async function explainSearch(
  ctx: SearchContext,
  question: string,
  request: SearchRequest,
  res: SearchResult,
): Promise<SearchExplain> {
  const mode = request.mode ?? SEARCH_DEFAULTS.mode;
  const store = ctx.store;
  const chroma =
    store instanceof ChromaStore ? { chroma: { keywordPath: (await store.detectSearchApi(), store.keywordPath) } } : {};
  const out: SearchExplain = { index: store.location, model: ctx.embedder.id, ...chroma };
  const off = wordNetProblem();
  if (request.expand === false) out.synonyms = { state: "off" };
  else if (off) out.synonyms = { state: "unavailable", why: off.replace(/^vault-rag: /, "") };
  else if (res.expansion) out.synonyms = { state: "added", ...res.expansion };
  else if (mode !== "dense")
    // no plan: the best hit holds every word, or no synonym of the missing ones is in the notes;
    // told from the hits shown: a keyword match fused below them is not seen here
    out.synonyms = {
      state: "none",
      keywordOnly: mode === "keyword",
      held: res.hits.some((h) => (mode === "keyword" ? true : h.ranks?.keyword !== undefined)),
    };
  if (mode !== "dense") {
    out.near = { pairs: proximityPairs(question), weight: SEARCH_DEFAULTS.proximity, window: NEAR_WINDOW };
    out.backlinks = {
      paths: [...new Set(res.hits.filter((h) => h.backlinked).map((h) => h.path))],
      weight: SEARCH_DEFAULTS.backlinks,
    };
  }
  if (res.setAside) out.unread = { passages: res.setAside };
  if (res.reranked)
    out.rerank = {
      ...res.reranked,
      ms: Math.round(res.timings.rerankMs ?? 0),
      hits: res.hits.flatMap((h) => (h.reranked ? [{ id: h.id, path: h.path, ...h.reranked }] : [])),
    };
  return out;
}
