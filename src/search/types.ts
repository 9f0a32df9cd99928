import type { RecordMetadata, Where, WhereDocument } from "../store/index.js";

/** One retrieved chunk. */
export interface Hit {
  id: string;
  text: string;
  path: string;
  title: string;
  section: string;
  /** Lower is better. Dense: cosine distance. Keyword and hybrid: 1 − the normalised fused score. */
  distance: number;
  /** `max(0, 1 − distance)`, for display only; ranking never uses it. */
  score: number;
  /** The section breadcrumb, else the title. */
  label: string;
  meta: RecordMetadata;
}

export type SearchMode = "dense" | "keyword" | "hybrid";
export type FusionMethod = "linear" | "rrf";

/** Options of {@link search}. */
export interface SearchOptions {
  topK?: number;
  oversample?: number;
  perNote?: number;
  where?: Where;
  whereDocument?: WhereDocument;
  minRatio?: number;
  mode?: SearchMode;
  fusion?: FusionMethod;
  /** Linear fusion: weight of the BM25 list (the dense list gets 1 − alpha). */
  alpha?: number;
  /** RRF constant. */
  rrfK?: number;
}

export type SearchOptionsWithDefaults = Required<Omit<SearchOptions, "where" | "whereDocument" | "minRatio">> &
  Pick<SearchOptions, "where" | "whereDocument" | "minRatio">;

/**
 * Search defaults in one place; the CLI's help reads them from here.
 *
 * Hybrid with min-max linear fusion and BM25 weight 0.7 was chosen by measurement with the bundled
 * model (`vault-rag eval … --sweep`), as the one setting at least as good as the better single mode
 * on both sets (nDCG@10):
 * - SciFact train (809 queries): keyword 0.665, dense 0.296; linear α 0.6 → 0.654, 0.7 → 0.670,
 *   0.8 → 0.668; equal-weight RRF 0.569–0.591 (a weak dense model drags keyword results down).
 * - examples/questions.jsonl (47 questions): keyword 0.912, dense 0.869; linear α 0.5 → 0.946,
 *   0.7 → 0.930.
 *
 * On questions never used for tuning (test/fixtures/heldout-questions.jsonl, 42 over examples/vault)
 * α 0.7 gives 0.950 against keyword 0.955 and dense 0.707: within one question of keyword, not above
 * it (test/e2e/heldout.test.ts checks that margin).
 */
export const SEARCH_DEFAULTS: SearchOptionsWithDefaults = {
  topK: 6,
  oversample: 3,
  perNote: 2,
  mode: "hybrid",
  fusion: "linear",
  alpha: 0.7,
  rrfK: 60,
};

/** The result of a search: hits, and why there are none when there are none. */
export interface SearchResult {
  hits: Hit[];
  reason?: string;
  timings: { embedMs: number; retrieveMs: number };
}
