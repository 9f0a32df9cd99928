import type { Fix } from "../errors.js";
import { RERANK_DEFAULTS } from "../rerank/defaults.js";
import type { RecordMetadata, VectorCoverage, Where, WhereDocument } from "../store/index.js";

/** An example of each filter, as error messages show one: a note's metadata, a passage's text. */
export const FILTER_EXAMPLES = { where: '{"folder": "kitchen"}', whereDocument: '{"$contains": "DRV8833"}' };

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
  /** The keyword list ranked this hit also by what other notes say where they link to its note. */
  backlinked?: true;
  /**
   * Hybrid mode: where each list placed this chunk (1-based, among the chunks it brought), or
   * `undefined` for a list that did not bring it (a keyword list holds only chunks with a word of
   * the query, each list at most `pool`). What `--verbose` shows beside the score: why a hit ranks
   * where it does. On the hits of `search()`; the JSON shape of a hit (`hitJson`) leaves it out.
   */
  ranks?: { dense?: number; keyword?: number };
  /**
   * Keyword and hybrid mode: the whole question is this note's name (title, alias or file name), so
   * the hit was moved up to the first place and given the first hit's score, whatever its lists
   * said ({@link namedFirst}); `--verbose` says so.
   */
  named?: true;
  /**
   * A reranked search: this hit's place among the fused candidates (`before`, from 1), its place
   * once the reranker reordered them (`after`, before the per-note cap), and the reranker's score
   * (higher is better; it compares only within one search). Absent for a hit past the reranked top.
   */
  reranked?: { before: number; after: number; score: number };
  /**
   * The note's first readable words, when this passage has nothing to show in a snippet (a heading
   * and images under a blank breadcrumb); what renderers show in its place (`snippet`'s `lead`).
   */
  lead?: string;
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
  /**
   * Candidates each list brings to a hybrid fusion (at least `topK × oversample`). Min-max fusion
   * scales each list by its own best and worst, so this depth is part of the ranking: `vault-rag
   * eval` ranks with the same depth.
   */
  pool?: number;
  /** Widen the keyword query with WordNet synonyms when the best keyword hit holds few of the question's words. */
  expand?: boolean;
  /**
   * Read a misspelt word as the vault's word spelled closest to it, for the keyword index: a word
   * no passage holds and WordNet does not know ("aproximate" → "approximate"; see search/spelling.ts).
   */
  spell?: boolean;
  /**
   * Weight, beside the question's own BM25, of the BM25 of adjacent question words that stand
   * within a few words of each other in a passage ("last commit" in "the last few commits"); 0: off.
   */
  proximity?: number;
  /**
   * Weight, beside the question's own BM25, of the BM25 of a note's backlink text: the sentences
   * in which other notes link to it, added to each of its chunks; 0: off.
   */
  backlinks?: number;
  /**
   * Reorder the fused top `rerankDepth` candidates with a reranker, before the per-note cap: a
   * reranker spec (`transformers:<owner>/<name>`, or a `/v1/rerank` server's URL), `true` for
   * `DEFAULT_RERANKER`, or `false` (the default): off, and nothing is loaded.
   */
  rerank?: boolean | string;
  /** How many fused candidates a reranker reorders (`RERANK_DEFAULTS.depth`). */
  rerankDepth?: number;
}

export type SearchOptionsWithDefaults = Required<
  Omit<SearchOptions, "where" | "whereDocument" | "minRatio" | "rerank">
> &
  Pick<SearchOptions, "where" | "whereDocument" | "minRatio" | "rerank">;

/**
 * Search defaults in one place; the CLI's help reads them from here. Each rule's figures and the
 * command that reproduces them are in docs/decisions/.
 *
 * - `topK` 6, `oversample` 3, `perNote` 2: six hits, diversified from three times as many
 *   candidates, at most two per note.
 * - `mode` hybrid, `fusion` linear (min-max), `alpha` 0.65: the BM25 list weighs 0.65, the dense
 *   list 0.35; the best mean over the dev sets that keeps each within 0.02 of its better single
 *   mode (docs/decisions/fusion-weight.md). `rrfK` 60 is the constant of `fusion: "rrf"`.
 * - `pool` 300: candidates each list brings to a fusion; min-max scales by the worst of them, so the
 *   depth is part of the ranking and `vault-rag eval` ranks at the same one
 *   (docs/decisions/candidate-depth.md).
 * - `expand`: WordNet synonyms when the best keyword hit holds few of the question's words
 *   (`EXPANSION_DEFAULTS`; docs/decisions/synonyms.md).
 * - `spell`: a word no passage holds is read as the vault's closest word (docs/decisions/spelling.md).
 * - `proximity` 0.2: adjacent question words within `NEAR_WINDOW` tokens, beside the question's BM25
 *   (docs/decisions/proximity.md).
 * - `backlinks` 0.1: the sentences that link to a note, beside its BM25
 *   (docs/decisions/backlink-text.md).
 * - `rerank` off; `rerankDepth` 50 when on (`RERANK_DEFAULTS`, docs/decisions/reranker.md).
 *
 * test/e2e/heldout.test.ts checks that hybrid stays within one question of the better single mode
 * on questions never used to choose these (test/fixtures/heldout-questions.jsonl).
 */
export const SEARCH_DEFAULTS: SearchOptionsWithDefaults = {
  topK: 6,
  oversample: 3,
  perNote: 2,
  mode: "hybrid",
  fusion: "linear",
  alpha: 0.65,
  rrfK: 60,
  pool: 300,
  expand: true,
  spell: true,
  proximity: 0.2,
  backlinks: 0.1,
  rerankDepth: RERANK_DEFAULTS.depth,
};

/** The result of a search: hits, and why there are none when there are none. */
export interface SearchResult {
  hits: Hit[];
  reason?: string;
  /** What may fix the `reason` (an empty index: build it). */
  fix?: Fix;
  /** How the search ran, when a reader should know: a question the model cannot read was ranked by keywords alone, or one of common words only names no topic (`commonWordsNotice` in search.ts). */
  notice?: string;
  timings: { embedMs: number; retrieveMs: number; rerankMs?: number };
  /** A reranked search: the reranker's spec, and how many fused candidates it reordered. */
  reranked?: { model: string; candidates: number };
  /**
   * The WordNet synonyms the keyword query also ranked by, when it was widened: their weight beside
   * the question's own words (1), and the share of the question the best keyword hit held
   * (coverage), both to 3 decimals.
   */
  expansion?: { phrases: string[]; weight: number; coverage: number };
  /** Misspelt words the keyword query read as the vault's words (`spell`), each once. */
  spelling?: { from: string; to: string }[];
  /**
   * When some passages have no vectors yet (an index run's dense phase, or one that was stopped):
   * how many do. A dense or hybrid search ranked the others by keyword, and fused both.
   */
  denseCoverage?: VectorCoverage;
  /**
   * How many of the dense list's candidates the model cannot read (another language than the
   * English-only model's, see `modelCannotRead`): left out of the dense list and ranked by their
   * words. What `--verbose` says; absent when none.
   */
  setAside?: number;
}

/**
 * What a hybrid search says when no passage (that passes its filters) holds a word of the query or
 * a synonym of one: its hits are only the passages nearest in meaning, which a dense list always
 * has (a word of no note, "quokkaflux", gave six unrelated notes and no word of why).
 */
export const NO_WORDS_NOTICE =
  "no passage holds a word of the query, nor a synonym of one: these hits are only the nearest in meaning";
