import type { Fix } from "../errors.js";
import type { RecordMetadata, Where, WhereDocument } from "../store/index.js";

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
}

export type SearchOptionsWithDefaults = Required<Omit<SearchOptions, "where" | "whereDocument" | "minRatio">> &
  Pick<SearchOptions, "where" | "whereDocument" | "minRatio">;

/**
 * Search defaults in one place; the CLI's help reads them from here.
 *
 * Hybrid with min-max linear fusion and BM25 weight 0.65 was chosen with chunker 5 and the bundled
 * model (`vault-rag eval … --sweep`, nDCG@10) on all three dev sets together, as the weight with the
 * best mean that keeps every set at least as good as its better single mode overall and within 0.02
 * of it on each kind:
 * - til (110 questions): keyword 0.711, dense 0.433; α 0.6 → 0.750, 0.65 → 0.755, 0.7 → 0.747.
 * - SciFact train (809 queries): keyword 0.692, dense 0.248; α 0.6 → 0.679, 0.65 → 0.692,
 *   0.7 → 0.697, 0.8 → 0.703.
 * - examples/questions.jsonl (62 questions): keyword 0.889, dense 0.770; α 0.6 → 0.927, 0.65 → 0.917,
 *   0.7 → 0.911 (its paraphrases: dense 0.827, α 0.65 → 0.810, 0.7 → 0.795).
 *
 * `pool` 300 is the depth those figures were measured at (searches took 50 until session 7, which
 * ranked below what eval reported: til 0.734 against 0.754). `expand`: see search/expand.ts.
 *
 * `proximity` 0.2 (session 8, sequential dependence's unordered windows, `bench/lab/sdm.ts`; weights
 * 0 / 0.15 / 0.2 / 0.25 / 0.35 at α 0.65): til 0.769 / 0.773 / 0.778 / 0.778 / 0.775, SciFact
 * 0.692 / 0.693 / 0.692 / 0.688 / –, examples 0.922 / 0.923 / 0.923 / 0.923 / 0.923, held-out
 * 0.951 at every weight. Adjacent-word phrases instead of windows cost SciFact (0.679).
 *
 * `backlinks` 0.1 (session 9, `bench/lab/sess9-blw.ts`; hybrid at weights 0 / 0.1 / 0.2 / 0.3 / 0.5):
 * til 0.7782 / 0.7788 / 0.7788 / 0.7788 / 0.7788 (keyword alone falls 0.732 → 0.727 from 0.3),
 * examples 0.9228 / 0.9222 / 0.9217 / 0.9219 / 0.9218, held-out 0.951 / 0.959 / 0.959 / 0.961 /
 * 0.970, SciFact (no links) 0.691 throughout. The held-out set gains most from heavier weights;
 * the dev sets, which choose, are flat or best at 0.1.
 *
 * Session 12: a keyword list shorter than the dense one (it brought every chunk holding a word of
 * the query: a rare word) is scaled from 0, not from its weakest match, which had scored as if it held
 * none of the words (`Miri` on the Rust book: its matches fell below near-empty notes the model put
 * first). til and SciFact unchanged (0.7788, 0.6914: their lists are full), examples 0.9219 → 0.9232,
 * held-out 0.9594 → 0.9686 (its one-word question found).
 *
 * On questions never used for tuning (test/fixtures/heldout-questions.jsonl, 42 over examples/vault)
 * α 0.65 gave 0.950 against keyword 0.955 and dense 0.677 (a one-word question, "affordances");
 * with backlink text 0.959 against keyword 0.959. test/e2e/heldout.test.ts checks that hybrid stays
 * within one question of the better single mode there.
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
};

/** The result of a search: hits, and why there are none when there are none. */
export interface SearchResult {
  hits: Hit[];
  reason?: string;
  /** What may fix the `reason` (an empty index: build it). */
  fix?: Fix;
  /** How the search ran, when a reader should know: a question the model cannot read was ranked by keywords alone, or one of common words only names no topic (`commonWordsNotice` in search.ts). */
  notice?: string;
  timings: { embedMs: number; retrieveMs: number };
  /**
   * The WordNet synonyms the keyword query also ranked by, when it was widened: their weight beside
   * the question's own words (1), and the share of the question the best keyword hit held
   * (coverage), both to 3 decimals.
   */
  expansion?: { phrases: string[]; weight: number; coverage: number };
  /** Misspelt words the keyword query read as the vault's words (`spell`), each once. */
  spelling?: { from: string; to: string }[];
}
