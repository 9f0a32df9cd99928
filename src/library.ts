/**
 * The library's face of the core: {@link openVault} and what its handle returns. The CLI, MCP and
 * the HTTP API call the same core.
 */
export { openVault } from "./core/vault.js";
export { NO_WORDS_NOTICE } from "./search/search.js";
export { batchLine } from "./indexing/watch.js";
export { indexStatus, noIndexStatus, staleCount } from "./core/status.js";
export type {
  NoteText,
  OpenVaultOptions,
  SearchExplain,
  VaultHandle,
  VaultRelatedOptions,
  VaultRelatedResult,
  VaultSearchOptions,
  VaultSearchResult,
  VaultStatus,
  VaultStatusMaybeCounted,
} from "./core/types.js";
export type { FlatHit } from "./search/hit-json.js";
export type { MeasuredModel, ModelHint } from "./core/measured.js";
export type { Watcher } from "./indexing/watch.js";
export type { DateSources, PropCount, PropValueCount } from "./search/index.js";
