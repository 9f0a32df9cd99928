import { bad, cut, quoted, SEARCH_PARAMS, wireName, type SearchParam } from "../requests/index.js";
import { FILTER_EXAMPLES } from "../core/defaults.js";

/** How a query parameter is read: text, a number, true/false, JSON, or text that may repeat. */
export type QueryKind = "string" | "number" | "boolean" | "json" | "list" | "boolean-or-string";

/**
 * Reads a URL's query parameters into an object by a table of names and kinds (`name → [key, kind]`),
 * ready for a zod schema: numbers, booleans and JSON are parsed (a `boolean-or-string` is a boolean
 * when it reads as one, else the text); a `list` parameter may repeat
 * (`?tag=a&tag=b`); any other may not. An unknown name is refused, listing the known ones.
 *
 * @example
 * ```ts
 * readParams(new URLSearchParams("q=motors&top_k=3&tag=robots"), { q: ["query", "string"], top_k: ["top_k", "number"], tag: ["tags", "list"] });
 * // { query: "motors", top_k: 3, tags: ["robots"] }
 * ```
 */
export function readParams(
  params: URLSearchParams,
  table: Record<string, [key: string, kind: QueryKind]>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of new Set(params.keys())) {
    const spec = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!spec)
      throw bad(
        Object.keys(table).length
          ? `unknown parameter "${name}" — use ${Object.keys(table)
              .map((n) => `"${n}"`)
              .join(", ")}`
          : `unknown parameter "${name}" — this endpoint takes none`,
      );
    const [key, kind] = spec;
    const values = params.getAll(name);
    if (kind === "list") {
      out[key] = values;
      continue;
    }
    if (values.length > 1) throw bad(`parameter "${name}" was given ${values.length} times — give it once`);
    const v = values[0];
    if (kind === "number") {
      if (!/^-?\d+(\.\d+)?$/.test(v.trim())) throw bad(`${name} must be a number, got ${quoted(v)}`);
      out[key] = Number(v);
      if (!Number.isFinite(out[key])) throw bad(`${name} is too big a number, got ${quoted(v)}`);
    } else if (kind === "boolean-or-string") {
      // `?rerank` or `?rerank=true`: on; `?rerank=false`: off; any other value names what to use
      out[key] = ["", "true", "1"].includes(v) ? true : ["false", "0"].includes(v) ? false : v;
    } else if (kind === "boolean") {
      if (!["true", "false", "1", "0", ""].includes(v)) throw bad(`${name} must be true or false, got ${quoted(v)}`);
      out[key] = v === "true" || v === "1" || v === "";
    } else if (kind === "json") {
      try {
        out[key] = JSON.parse(v);
      } catch {
        throw bad(
          `${name} must be JSON, e.g. ${FILTER_EXAMPLES[name === "where_document" ? "whereDocument" : "where"]}, got ${cut(v)}`,
        );
      }
    } else out[key] = v;
  }
  return out;
}

/** How the query string carries each kind of search parameter. */
const QUERY_KIND: Record<SearchParam["kind"], QueryKind> = {
  count: "number",
  ratio: "number",
  choice: "string",
  text: "string",
  list: "list",
  json: "json",
  switch: "boolean",
  "switch-or-text": "boolean-or-string",
};

/**
 * The query string of `GET /api/search`, derived from the search parameters: `q` and each
 * parameter under its query name (`tag`) or wire name (`top_k`).
 *
 * @example
 * ```ts
 * SEARCH_QUERY.tag; // ["tags", "list"]
 * ```
 */
export const SEARCH_QUERY: Record<string, [key: string, kind: QueryKind]> = Object.fromEntries([
  ["q", ["query", "string"]],
  ...SEARCH_PARAMS.map((p: SearchParam) => [p.query ?? wireName(p), [wireName(p), QUERY_KIND[p.kind]]]),
]);

/**
 * The query-string name of each search argument whose name differs (`query` is `q`, `tags` is
 * `tag`), so an error names the parameter as the client sent it.
 *
 * @example
 * ```ts
 * SEARCH_QUERY_NAMES.tags; // "tag"
 * ```
 */
export const SEARCH_QUERY_NAMES: Record<string, string> = Object.fromEntries(
  Object.entries(SEARCH_QUERY)
    .filter(([q, [key]]) => q !== key)
    .map(([q, [key]]) => [key, q]),
);
