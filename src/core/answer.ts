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
import { checkSearch, searchOptionsOf, type SearchRequest } from "../search/index.js";

/**
 * Refuses a question or search request that a search would refuse (a bad filter, an unknown mode),
 * before any work starts: `POST /api/ask` answers it with a 400 before its stream opens. A filter's
 * bare names reach the properties in `props` (`(await handle.props()).map((p) => p.name)`).
 *
 * @example
 * ```ts
 * checkRequest("motors", { where: { nosuch: 1 } }); // throws: unknown metadata field "nosuch" …
 * ```
 */
export function checkRequest(question: string, request: SearchRequest, props?: readonly string[]): void {
  checkSearch(question, searchOptionsOf(request), props);
}
