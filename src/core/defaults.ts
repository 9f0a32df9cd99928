/**
 * The defaults and limits the interfaces show in their help and check their input against, each
 * from the one module that owns it. Light: the CLI reads these before any command runs.
 */
export { DEFAULT_LLM } from "../answer/defaults.js";
export { BUDGET_RANGE, CONTEXT_DEFAULTS } from "../answer/context.js";
export { CHUNK_DEFAULTS } from "../chunk/defaults.js";
export { FILTER_EXAMPLES, NO_WORDS_NOTICE, SEARCH_DEFAULTS, type SearchMode } from "../search/types.js";
export type { SearchRequest } from "../search/filter.js";
export { GET_NOTE_MAX_CHARS } from "../vault/limits.js";
export { ALLOW_REMOTE_ENV } from "../embed/defaults.js";
