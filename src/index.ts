/**
 * vault-rag's library entry: {@link openVault} and what its handle takes and returns, the error
 * type, and the filter helpers. The pipeline's lower layers are in `vault-rag/advanced`.
 *
 * @example
 * ```ts
 * import { openVault } from "vault-rag";
 * const notes = await openVault("/home/me/notes");
 * const { hits } = await notes.search("sourdough starter", { tags: ["kitchen"] });
 * await notes.close();
 * ```
 */
export { VaultRagError, type Fix, type VaultRagErrorCode } from "./errors.js";
export {
  batchLine,
  openVault,
  type FlatHit,
  type NoteText,
  type OpenVaultOptions,
  type SearchExplain,
  type VaultHandle,
  type VaultRelatedOptions,
  type VaultRelatedResult,
  type VaultSearchOptions,
  type VaultSearchResult,
  type VaultStatus,
} from "./library.js";
export { normaliseWhere, normaliseWhereDocument, type Where, type WhereDocument } from "./store/index.js";
export { buildFilter, parseWhen, type FilterOptions, type SearchRequest } from "./search/index.js";
export { VERSION } from "./version.js";
