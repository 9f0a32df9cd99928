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

export type SearchOptionsWithDefaults = Required<Omit<SearchOptions, "where" | "whereDocument" | "minRatio">> & Pick<SearchOptions, "where" | "whereDocument" | "minRatio">;

/**
 * Search defaults in one place; the CLI's help reads them from here. Hybrid with min-max linear
 * fusion and BM25 weight 0.6 was chosen by measurement (see `npm run bench`): equal-weight RRF let
 * the weaker dense model drag good keyword results down on SciFact.
 */
export const SEARCH_DEFAULTS: SearchOptionsWithDefaults = {
  topK: 6,
  oversample: 3,
  perNote: 2,
  mode: "hybrid",
  fusion: "linear",
  alpha: 0.6,
  rrfK: 60,
};

/** The result of a search: hits, and why there are none when there are none. */
export interface SearchResult {
  hits: Hit[];
  reason?: string;
  timings: { embedMs: number; retrieveMs: number };
}
