export type { Hit, SearchMode, SearchOptions, SearchOptionsWithDefaults, SearchResult, FusionMethod } from "./types.js";
export { SEARCH_DEFAULTS } from "./types.js";
export {
  search,
  checkSearch,
  commonWordsNotice,
  NO_WORDS_NOTICE,
  withSearchDefaults,
  fuse,
  isRareLookup,
  RARE_DEFAULTS,
  retrieve,
  rerankSpec,
  type SearchContext,
  type Retrieved,
} from "./search.js";
export {
  EXPANSION_DEFAULTS,
  keywordCoverage,
  planExpansion,
  readableWordNet,
  sharedWordNet,
  synonymCandidates,
  wordNetProblem,
  type ExpansionPlan,
  type ExpansionOptionsWithDefaults,
} from "./expand.js";
export { WordNet, baseForms, WORDNET_POS, type WordNetPos } from "./wordnet.js";
export {
  SPELLING_DEFAULTS,
  likeliest,
  spellingFixes,
  spellingNotice,
  withFixes,
  type SpellingFix,
  type SpellingOptionsWithDefaults,
} from "./spelling.js";
export {
  diversify,
  dropStragglers,
  namedFirst,
  rrf,
  rrfScore,
  linearFusion,
  type Ranked,
  type RrfTerm,
} from "./rank.js";
export { buildFilter, parseWhen, andWhere, searchOptionsOf, type FilterOptions, type SearchRequest } from "./filter.js";
export {
  Search,
  SearchResults,
  Filter,
  Key,
  K,
  Knn,
  Val,
  Rrf,
  KnnExpr,
  ValExpr,
  RrfExpr,
  RankExpr,
  runSearches,
  type KnnOptions,
  type RrfOptions,
  type SearchRow,
} from "./api.js";
export { rerankHits, rerankText } from "./rerank.js";
export { hitJson, flatHit, type HitJson, type FlatHit } from "./hit-json.js";
export { noResultHints, type Hint, type HintParam, type NamedField } from "./hints.js";
export { closest, closestNotes } from "../closest.js";
export {
  relatedNotes,
  indexedNote,
  linkedNotes,
  RELATED_DEFAULTS,
  type RelatedNote,
  type RelatedOptions,
  type RelatedPassage,
  type RelatedResult,
} from "./related.js";
export {
  dateSources,
  propClauses,
  propCounts,
  propNames,
  propValueCounts,
  type DateSources,
  type PropCount,
  type PropValueCount,
} from "./props.js";
export { relatedByWords, RELATED_WORDS_DEFAULTS, type WordsMatch } from "./related-words.js";
export { modelCannotRead, READABLE_DEFAULTS, readsEnglishOnly, unreadPassages } from "./readable.js";
