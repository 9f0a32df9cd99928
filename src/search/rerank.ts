import { RERANK_DEFAULTS } from "../rerank/defaults.js";
import type { Reranker } from "../rerank/index.js";
import type { Hit } from "./types.js";

/**
 * The text a reranker reads for a hit: its breadcrumb (or title), a line break, then its text, at
 * most `RERANK_DEFAULTS.passageChars` characters in all.
 *
 * @example
 * ```ts
 * rerankText({ label: "SMARS Robot > Motors", text: "Two N20 motors…" } as Hit); // "SMARS Robot > Motors\nTwo N20 motors…"
 * ```
 */
export function rerankText(h: Pick<Hit, "label" | "text">): string {
  const text = h.label ? `${h.label}\n${h.text}` : h.text;
  return text.slice(0, RERANK_DEFAULTS.passageChars);
}

/**
 * Reorders the first `depth` fused hits by a reranker's scores (ties keep their fused order); the
 * rest follow in their fused order. Each reordered hit is marked with its place before and after
 * and its score ({@link Hit.reranked}), and its distance is `1 −` its score scaled over the
 * reordered hits (the best 0, the worst 1); the hits past them get `1 +` their fused distance, so
 * the list stays in order of distance and a `minRatio` reads the reranker's scores.
 *
 * @example
 * ```ts
 * const hits = await rerankHits(fused, "how do I save power", reranker, 50);
 * hits[0].reranked; // { before: 7, after: 1, score: 8.31 }
 * ```
 */
export async function rerankHits(hits: Hit[], question: string, reranker: Reranker, depth: number): Promise<Hit[]> {
  const top = hits.slice(0, depth);
  if (!top.length) return hits;
  const scores = await reranker.rerank(question, top.map(rerankText));
  const order = top.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const best = scores[order[0]];
  const worst = scores[order[order.length - 1]];
  const scaled = (s: number) => (best > worst ? (s - worst) / (best - worst) : 1);
  const reordered = order.map((i, at): Hit => {
    const score = scaled(scores[i]);
    return {
      ...top[i],
      distance: 1 - score,
      score,
      reranked: { before: i + 1, after: at + 1, score: scores[i] },
    };
  });
  const rest = hits.slice(depth).map((h) => ({ ...h, distance: 1 + h.distance, score: 0 }));
  return [...reordered, ...rest];
}
