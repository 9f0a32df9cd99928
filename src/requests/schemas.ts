/**
 * The arguments of the MCP tools and of the HTTP API, as zod schemas. The HTTP API (`vault-rag serve`) validates its
 * requests with the same schemas, so a parameter means the same thing, with the same limits, on
 * both. This file loads zod only (not the MCP SDK), so the web server starts fast.
 */
import { z } from "zod";
import { RELATED_DEFAULTS, SEARCH_DEFAULTS, type SearchRequest } from "../search/index.js";

/**
 * The longest texts a request may hold, in characters, on MCP and the HTTP API alike: a search
 * query or question (a 1 MB query took MCP 50 s, blocking every other call), and a name (a path,
 * heading, folder, tag or date: a 9 MB path took 16 s to look up, and its error quoted all of it).
 */
export const REQUEST_LIMITS = { textChars: 2000, nameChars: 1000 };

/** A query or question: not empty, at most {@link REQUEST_LIMITS}`.textChars`. */
export const requestText = (what: string) => z.string().min(1).max(REQUEST_LIMITS.textChars).describe(what);
const name = () => z.string().max(REQUEST_LIMITS.nameChars);

/** The arguments of the `search` tool; the HTTP API validates its search parameters with it too. */
export const searchInput = z
  .object({
    query: requestText("what to look for, in plain words"),
    top_k: z.number().int().min(1).max(50).optional().describe(`number of hits (default ${SEARCH_DEFAULTS.topK})`),
    per_note: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`at most this many hits per note (default ${SEARCH_DEFAULTS.perNote})`),
    oversample: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`candidates fetched per hit before the per-note cap (default ${SEARCH_DEFAULTS.oversample})`),
    mode: z
      .enum(["dense", "keyword", "hybrid"])
      .optional()
      .describe(`retrieval mode (default ${SEARCH_DEFAULTS.mode})`),
    tags: z.array(name().min(1)).max(100).optional().describe("only notes with all these tags"),
    folder: name().optional().describe("only notes directly in this folder"),
    top_folder: name().optional().describe("only notes under this top-level folder"),
    since: name().optional().describe("only notes modified since: 90d, 2w, 12h, 2026-06-01 or an ISO time"),
    until: name().optional().describe("only notes modified until (same forms as since)"),
    min_ratio: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("drop hits scoring below this ratio × the best hit's score"),
    where: z.record(z.string(), z.unknown()).optional().describe("a Chroma where filter"),
    where_document: z.record(z.string(), z.unknown()).optional().describe("a Chroma whereDocument filter"),
    expand: z
      .boolean()
      .optional()
      .describe(
        `widen the keyword query with WordNet synonyms when its words miss (default ${SEARCH_DEFAULTS.expand}); false: the question's own words only`,
      ),
    spell: z
      .boolean()
      .optional()
      .describe(
        `read a misspelt word (one no note holds and no dictionary knows) as the vault's closest word (default ${SEARCH_DEFAULTS.spell}); false: as typed`,
      ),
  })
  .strict();

/** The arguments of the `get_note` tool (and of `GET /api/note`). */
export const getNoteInput = z
  .object({
    path: name().min(1).describe("vault-relative path or note name, e.g. robots/SMARS.md or SMARS"),
    heading: name().optional().describe("only this section (every section of a heading the note has more than once)"),
  })
  .strict();

/** The arguments of the `related` tool (and of `GET /api/related`). */
export const relatedInput = z
  .object({
    path: name().min(1).describe("vault-relative path or note name, e.g. robots/SMARS.md or SMARS"),
    k: z.number().int().min(1).max(50).optional().describe(`number of notes (default ${RELATED_DEFAULTS.k})`),
    unlinked_only: z.boolean().optional().describe("only notes not already linked from or to it: link suggestions"),
  })
  .strict();

/**
 * The search request that validated `search` arguments mean (snake_case to the library's names).
 *
 * @example
 * ```ts
 * searchRequestOf({ query: "motors", top_k: 3, tags: ["robots"] }); // { topK: 3, tags: ["robots"], … }
 * ```
 */
export function searchRequestOf(a: Omit<z.infer<typeof searchInput>, "query">): SearchRequest {
  return {
    topK: a.top_k,
    perNote: a.per_note,
    oversample: a.oversample,
    mode: a.mode,
    tags: a.tags,
    folder: a.folder,
    topFolder: a.top_folder,
    since: a.since,
    until: a.until,
    minRatio: a.min_ratio,
    where: a.where,
    whereDocument: a.where_document,
    expand: a.expand,
    spell: a.spell,
  };
}
