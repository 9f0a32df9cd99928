/** The rerank stage's defaults, in one place; light, so the CLI's help reads them without loading a provider. */

/**
 * The reranker `--rerank` (or `rerank: true`) uses when none is configured: a small English
 * cross-encoder trained on MS MARCO, in the ONNX form Transformers.js runs. Not bundled, and not
 * measured here (docs/decisions/reranker.md): it is loaded from `--model-dir` or the cache.
 */
export const DEFAULT_RERANKER = "transformers:Xenova/ms-marco-MiniLM-L-6-v2";

/**
 * How a search reranks (docs/decisions/reranker.md):
 * - `depth` 50: the fused top 50 are reordered, before the per-note cap; the rest follow, in their
 *   fused order. Not tuned: no cross-encoder's weights could be had here to tune it with.
 * - `passageChars` 2,000: the most of a passage sent to the model (its breadcrumb, a line break,
 *   then its text); a cross-encoder reads about 512 tokens of a pair, and a server is sent less.
 */
export const RERANK_DEFAULTS = { depth: 50, passageChars: 2000 };
