/**
 * The search parameters, declared once. The CLI's flags (`--top-k`), the MCP tool's arguments and
 * the HTTP API's JSON bodies (`top_k`), and the HTTP API's query string (`?top_k=`, `?tag=`) are all
 * derived from {@link SEARCH_PARAMS}: adding a parameter is one entry here plus its implementation
 * in search. This file loads nothing (no zod, no commander), so the CLI starts fast.
 */
import { DEFAULT_RERANKER, RERANK_DEFAULTS } from "../rerank/defaults.js";
import { SEARCH_DEFAULTS } from "../search/types.js";
import type { SearchRequest } from "../search/filter.js";

/**
 * How a parameter's value is read:
 * - `count`: a whole number from `min` to the interface's `max`;
 * - `ratio`: a number from 0 to 1;
 * - `choice`: one of `choices`;
 * - `text`: a name (a folder, a date);
 * - `list`: a name that may be given several times (`--tag a --tag b`, `?tag=a&tag=b`);
 * - `json`: a JSON object (a filter);
 * - `switch`: true or false, on unless turned off (`--no-expand`, `expand: false`);
 * - `switch-or-text`: off unless turned on, with its default (`--rerank`, `rerank: true`, `?rerank`)
 *   or with a name (`--rerank <model>`, `rerank: "<model>"`), and turned off by `--no-rerank`,
 *   `rerank: false` or `?rerank=false`.
 */
export type ParamKind = "count" | "ratio" | "choice" | "text" | "list" | "json" | "switch" | "switch-or-text";

/** One search parameter: its name in the library, how it is read, and its help text. */
export interface SearchParam {
  /** The library's name (`SearchRequest` key); the wire name is its snake_case, the flag its kebab-case. */
  key: keyof SearchRequest;
  kind: ParamKind;
  /** What it does, shown by `--help`, by MCP's tool listing and in the docs. */
  help: string;
  /** The CLI flag's long name when it is not the key's kebab-case (`--tag` for `tags`). */
  flag?: string;
  /** A one-letter CLI alias (`-k`). */
  short?: string;
  /** The CLI flag's value name (`<n>`). */
  value?: string;
  /** The HTTP query-string name when it is not the wire name (`?tag=` for `tags`). */
  query?: string;
  /** `count`: the smallest value. */
  min?: number;
  /** `choice`: the values it takes. */
  choices?: readonly string[];
  /** The default, shown in help (the search applies it). */
  default?: unknown;
}

/**
 * The largest count each interface takes. The CLI takes up to 10,000 (`eval` and scripts ask for
 * deep lists on their own machine); MCP and the HTTP API take up to 50, so one request from an agent
 * or a browser cannot hold a shared server for long.
 */
export const COUNT_LIMITS = { cli: 10_000, api: 50 } as const;

/**
 * The search parameters of `search`, `ask` and `chat` (CLI), the MCP `search` tool, and
 * `GET /api/search` and `POST /api/ask` (HTTP), in the order `--help` and MCP's tool listing give them.
 */
export const SEARCH_PARAMS = [
  { key: "topK", kind: "count", short: "k", min: 1, help: "number of results", default: SEARCH_DEFAULTS.topK },
  { key: "perNote", kind: "count", min: 1, help: "at most this many hits per note", default: SEARCH_DEFAULTS.perNote },
  {
    key: "oversample",
    kind: "count",
    min: 1,
    help: "candidates fetched per hit before the per-note cap",
    default: SEARCH_DEFAULTS.oversample,
  },
  {
    key: "mode",
    kind: "choice",
    value: "<mode>",
    choices: ["dense", "keyword", "hybrid"] as const,
    help: "retrieval mode",
    default: SEARCH_DEFAULTS.mode,
  },
  {
    key: "tags",
    kind: "list",
    flag: "tag",
    query: "tag",
    value: "<tag>",
    help: "only notes with this tag (all must match)",
  },
  { key: "folder", kind: "text", value: "<folder>", help: "only notes directly in this folder (vault-relative)" },
  {
    key: "type",
    kind: "choice",
    value: "<type>",
    choices: ["note", "pdf", "canvas", "docx"] as const,
    help: "only files of this type: Markdown notes, PDFs, Canvas boards or Word documents",
  },
  { key: "topFolder", kind: "text", value: "<folder>", help: "only notes under this top-level folder" },
  {
    key: "under",
    kind: "text",
    value: "<folder>",
    help: "only notes in this folder or any folder below it (vault-relative)",
  },
  {
    key: "since",
    kind: "text",
    value: "<when>",
    help: "only notes dated since: 90d, 2w, 12h, 2026-06-01 or an ISO time (see --by)",
  },
  { key: "until", kind: "text", value: "<when>", help: "only notes dated until (same forms as since)" },
  {
    key: "by",
    kind: "choice",
    value: "<date>",
    choices: ["date", "mtime"] as const,
    help: "the date since/until compare: the note's date (frontmatter updated/modified/date/created, a date in its file name, else mtime) or the file's mtime",
    default: "date",
  },
  {
    key: "props",
    kind: "list",
    flag: "prop",
    query: "prop",
    value: "<key=value>",
    help: "only notes whose property has this value, or whose list property holds it (all must match)",
  },
  { key: "minRatio", kind: "ratio", value: "<r>", help: "drop hits scoring below r × the best hit's score" },
  {
    key: "where",
    kind: "json",
    value: "<json>",
    help: 'a Chroma where filter, e.g. \'{"word_count": {"$gt": 50}}\'',
  },
  {
    key: "whereDocument",
    kind: "json",
    value: "<json>",
    help: 'a Chroma whereDocument filter, e.g. \'{"$contains": "DRV8833"}\'',
  },
  {
    key: "expand",
    kind: "switch",
    help: "widen the keyword query with WordNet synonyms when its words miss; off: the question's own words only",
    default: SEARCH_DEFAULTS.expand,
  },
  {
    key: "spell",
    kind: "switch",
    help: "read a misspelt word (one no note holds and no dictionary knows) as the vault's closest word; off: as typed",
    default: SEARCH_DEFAULTS.spell,
  },
  {
    key: "rerank",
    kind: "switch-or-text",
    value: "[model]",
    help: `reorder the top ${RERANK_DEFAULTS.depth} candidates with a cross-encoder: transformers:<owner>/<name> (in --model-dir or the cache) or a /v1/rerank server's URL; with no model: $VAULT_RAG_RERANK, else ${DEFAULT_RERANKER}; off unless chosen here or in $VAULT_RAG_RERANK`,
  },
] as const satisfies readonly SearchParam[];

/**
 * A camelCase name in another case: `"snake"` gives the wire name (`top_k`), `"kebab"` the flag's
 * (`top-k`). The one mapper between the library's names and the interfaces'.
 *
 * @example
 * ```ts
 * recase("whereDocument", "snake"); // "where_document"
 * recase("topFolder", "kebab"); // "top-folder"
 * ```
 */
export function recase(key: string, to: "snake" | "kebab"): string {
  return key.replace(/[A-Z]/g, (c) => (to === "snake" ? "_" : "-") + c.toLowerCase());
}

/**
 * A parameter's name on the wire: MCP arguments and JSON bodies.
 *
 * @example
 * ```ts
 * wireName(SEARCH_PARAMS[0]); // "top_k"
 * ```
 */
export function wireName(p: SearchParam): string {
  return recase(p.key, "snake");
}

/**
 * A parameter's long CLI flag, without dashes.
 *
 * @example
 * ```ts
 * flagName(SEARCH_PARAMS.find((p) => p.key === "tags")!); // "tag"
 * ```
 */
export function flagName(p: SearchParam): string {
  return p.flag ?? recase(p.key, "kebab");
}

/**
 * The search request that arguments named on the wire mean (`top_k` → `topK`); names that are no
 * search parameter are left out.
 *
 * @example
 * ```ts
 * searchRequestOf({ query: "motors", top_k: 3, tags: ["robots"] }); // { topK: 3, tags: ["robots"] }
 * ```
 */
export function searchRequestOf(args: Record<string, unknown>): SearchRequest {
  const out: Record<string, unknown> = {};
  for (const p of SEARCH_PARAMS) {
    const v = args[wireName(p)];
    if (v !== undefined) out[p.key] = v;
  }
  return out as SearchRequest;
}
