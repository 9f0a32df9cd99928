export type { Embedder, EmbedProgress } from "./types.js";
export { unreadable } from "./types.js";
export { passageWindows, windowOptions, WINDOW_OVERLAP_TOKENS, type WindowOptions } from "./windows.js";
export { createEmbedder, DEFAULT_MODEL, type EmbedderOptions } from "./registry.js";
export { rememberQueries, REMEMBERED_QUERIES } from "./remember.js";
export { useLiteEmbedder, USE_LITE_MAX_TOKENS } from "./use-lite/embedder.js";
export { defaultThreads, parseThreads, threadCount, MAX_THREADS } from "./use-lite/pool.js";
export { loadUseLite } from "./use-lite/model.js";
export { UseTokenizer } from "./use-lite/tokenizer.js";
export { ollamaEmbedder, ollamaBaseUrl, nomicPrefixes } from "./ollama.js";
export { openAiEmbedder } from "./openai.js";
export {
  modelProfile,
  searchProfile,
  MODEL_SEARCH_PROFILES,
  RETRIEVAL_INSTRUCTION,
  type ModelProfile,
  type ModelSearchProfile,
} from "./profiles.js";
export {
  transformersEmbedder,
  transformersProfile,
  explainLoadError,
  type TransformersOptions,
  type TransformersModule,
} from "./transformers.js";
