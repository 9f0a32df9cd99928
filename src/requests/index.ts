/**
 * What the MCP tools and the HTTP API take, in one place below both: the zod schemas of their
 * arguments and the validation that words a bad value the CLI's way. Both interfaces import this
 * room, never each other. It loads zod only (not the MCP SDK), so the web server starts fast.
 */
export { getNoteInput, propsInput, relatedInput, REQUEST_LIMITS, requestText, searchInput } from "./schemas.js";
export {
  COUNT_LIMITS,
  flagName,
  recase,
  SEARCH_PARAMS,
  searchRequestOf,
  wireName,
  type SearchParam,
} from "./params.js";
export { bad, validate } from "./validate.js";
export { turns, type Turns } from "./turns.js";
export { cut, quoted, shown } from "../shown.js";
