export type {
  Store,
  StoreRecord,
  NoteEntry,
  NoteLink,
  NoteProperties,
  ScoredRecord,
  Manifest,
  QueryFilter,
  StoreCounts,
  VectorCoverage,
  UpsertOptions,
  DenseProgress,
  IndexWarning,
  StoredWindow,
  KeywordExpansion,
  KeywordRanking,
  KeywordStats,
  KeywordStatsOptions,
  Spelling,
  SpellingQuery,
} from "./types.js";
export { SCHEMA_VERSION } from "./types.js";
export type { RecordMetadata, MetaField } from "./fields.js";
export { STRING_FIELDS, NUMBER_FIELDS, LIST_FIELDS, ALL_FIELDS, PROP_PREFIX, fieldKind } from "./fields.js";
export {
  normaliseWhere,
  normaliseWhereDocument,
  MTIME_MS_THRESHOLD,
  type Where,
  type WhereDocument,
  type WhereNode,
  type DocNode,
  type PropNode,
} from "./where.js";
export { matchesWhere, matchesDocument, matchesProp } from "./reference.js";
export {
  SqliteStore,
  BM25_WEIGHTS,
  isCorruption,
  refuseLinkedIndexFolder,
  type SqliteStoreOptions,
  type SqliteIntegrity,
  type SqliteRepair,
} from "./sqlite/sqlite-store.js";
export {
  toFtsQuery,
  queryTerms,
  queryTokens,
  typedTokens,
  proximityQuery,
  proximityPairs,
  partWords,
  NEAR_WINDOW,
} from "./sqlite/fts-query.js";
export { STOPWORDS } from "../shared/stopwords.js";
export {
  CHROMA_MISSING,
  ChromaStore,
  defaultSidecarDir,
  loadChroma,
  type ChromaStoreOptions,
  type KeywordPath,
} from "./chroma/chroma-store.js";
export {
  isChromaLocation,
  parseChromaLocation,
  type ChromaLocation,
  type ChromaConnectOptions,
} from "./chroma/location.js";
export {
  openStore,
  openExisting,
  storeExists,
  displayLocation,
  lockTarget,
  beginRebuild,
  discardRebuild,
  type OpenStoreOptions,
  type Rebuild,
} from "./open.js";
export { openFollowingSwaps } from "./follow-swaps.js";
export { removeStaleTemps, staleTemps } from "./stale-temps.js";
export { pooledVector, skippedWindow, isSkippedWindow, withVectors, SKIPPED_WINDOW_HASH } from "./windows.js";
export {
  PassageLanguages,
  passagesOf,
  languageThreads,
  LANGUAGE_THREAD_PASSAGES,
  type LanguagePassage,
} from "./sqlite/language-thread.js";
