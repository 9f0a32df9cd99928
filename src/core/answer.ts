/** What the interfaces use to show an answer: its words when nothing was found, citation checks, links. */
export {
  invalidCitationWarning,
  NOTHING_FOUND,
  obsidianLink,
  withContextDefaults,
  type ChatMessage,
  type Llm,
  type Source,
} from "../answer/index.js";
export { buildFilter, withSearchDefaults } from "../search/index.js";
import { checkSearch, propPairsNeedNames, searchOptionsOf, type SearchRequest } from "../search/index.js";
import type { VaultHandle } from "./types.js";

/**
 * Refuses a question or search request that a search would refuse (a bad filter, an unknown mode),
 * before any work starts: `POST /api/ask` answers it with a 400 before its stream opens. A filter's
 * bare names reach the vault's properties, read only when the request has a `where` filter.
 *
 * @example
 * ```ts
 * await checkRequest(handle, "motors", { where: { nosuch: 1 } }); // throws: unknown metadata field "nosuch" …
 * ```
 */
export async function checkRequest(v: VaultHandle, question: string, request: SearchRequest): Promise<void> {
  // (--prop pairs become where clauses too)
  const names = async () => (await v.props()).map((p) => p.name);
  const options = searchOptionsOf(request, undefined, propPairsNeedNames(request.props) ? await names() : undefined);
  checkSearch(question, options, options.where ? await names() : undefined);
}
