/**
 * vault-rag's lower layers, for callers who build on the pipeline's pieces rather than on
 * {@link openVault}: the store, the embedders, the ranking functions, the Search API builder,
 * evaluation, and the answer's context, beside everything the main entry has. Import them from
 * `vault-rag/advanced`.
 *
 * @example
 * ```ts
 * import { SqliteStore, useLiteEmbedder, search } from "vault-rag/advanced";
 * const store = SqliteStore.open("/home/me/notes/.vault-rag/index.db");
 * const { hits } = await search({ store, embedder: useLiteEmbedder() }, "sourdough starter");
 * ```
 */
export * from "./index.js";
export { collectingLogger, silentLogger, type Logger, type Warning, type WarningCode } from "./log.js";
export { resolveVault, resolveDb } from "./config.js";
export { walkVault, readNote, parseNote, type Note, type VaultFile } from "./vault/index.js";
export { chunkNote, CHUNK_DEFAULTS, type Chunk, type ChunkMeta, type ChunkOptions } from "./chunk/index.js";
export { createEmbedder, useLiteEmbedder, ollamaEmbedder, openAiEmbedder, type Embedder } from "./embed/index.js";
export {
  createReranker,
  crossEncoderReranker,
  serverReranker,
  DEFAULT_RERANKER,
  RERANK_DEFAULTS,
  type Reranker,
} from "./rerank/index.js";
export {
  SqliteStore,
  normaliseWhere,
  normaliseWhereDocument,
  type Store,
  type Where,
  type WhereDocument,
  type Manifest,
} from "./store/index.js";
export {
  batchLine,
  indexVault,
  type IndexSummary,
  type IndexOptions,
  type Watcher,
  type WatchOptions,
} from "./indexing/index.js";
export {
  search,
  buildFilter,
  parseWhen,
  diversify,
  dropStragglers,
  rrf,
  linearFusion,
  SEARCH_DEFAULTS,
  EXPANSION_DEFAULTS,
  SPELLING_DEFAULTS,
  RARE_DEFAULTS,
  hitJson,
  flatHit,
  searchOptionsOf,
  type Hit,
  type HitJson,
  type FlatHit,
  type SearchOptions,
  type SearchRequest,
  type SearchResult,
} from "./search/index.js";
export {
  Search,
  SearchResults,
  Filter,
  Key,
  K,
  Knn,
  Val,
  Rrf,
  runSearches,
  type KnnOptions,
  type RrfOptions,
  type SearchRow,
} from "./search/index.js";
export {
  evaluate,
  prepareBeir,
  readKnownAnswers,
  scoreRanking,
  type Metrics,
  type Qrels,
  type EvalSetting,
} from "./search/eval.js";
export {
  assembleContext,
  checkCitations,
  CONTEXT_DEFAULTS,
  createLlm,
  type ContextOptionsWithDefaults,
  type Source,
  type Llm,
} from "./answer/index.js";
export {
  relatedNotes,
  RELATED_DEFAULTS,
  type RelatedNote,
  type RelatedOptions,
  type RelatedResult,
} from "./search/index.js";
export type { ServeOptions, RunningServer } from "./serve/server.js";
/**
 * Starts `vault-rag serve` in this process (see `serve/server.ts`). Loaded on first use, so that
 * `import "vault-rag"` does not load the web server (hono, zod) for callers that only search.
 *
 * @example
 * ```ts
 * const server = await startServer("/home/me/notes", { port: 4321 });
 * ```
 */
export const startServer: typeof import("./serve/server.js").startServer = async (...args) =>
  (await import("./serve/server.js")).startServer(...args);
