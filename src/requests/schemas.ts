/**
 * The arguments of the MCP tools and of the HTTP API, as zod schemas. The HTTP API (`vault-rag serve`) validates its
 * requests with the same schemas, so a parameter means the same thing, with the same limits, on
 * both. This file loads zod only (not the MCP SDK), so the web server starts fast.
 */
import { z } from "zod";
import { RELATED_DEFAULTS } from "../search/index.js";
import { COUNT_LIMITS, SEARCH_PARAMS, wireName, type SearchParam } from "./params.js";

/**
 * The longest texts a request may hold, in characters, on MCP and the HTTP API alike: a search
 * query or question (a 1 MB query took MCP 50 s, blocking every other call), and a name (a path,
 * heading, folder, tag or date: a 9 MB path took 16 s to look up, and its error quoted all of it).
 */
export const REQUEST_LIMITS = { textChars: 2000, nameChars: 1000 };

/** A query or question: not empty, at most {@link REQUEST_LIMITS}`.textChars`. */
export const requestText = (what: string) => z.string().min(1).max(REQUEST_LIMITS.textChars).describe(what);
const name = () => z.string().max(REQUEST_LIMITS.nameChars);

/** The zod type of one search parameter, with the API's limits ({@link COUNT_LIMITS}`.api`). */
function paramSchema(p: SearchParam): z.ZodType {
  const help = p.default === undefined ? p.help : `${p.help} (default ${String(p.default)})`;
  switch (p.kind) {
    case "count":
      return z
        .number()
        .int()
        .min(p.min ?? 0)
        .max(COUNT_LIMITS.api)
        .optional()
        .describe(help);
    case "ratio":
      return z.number().min(0).max(1).optional().describe(help);
    case "choice":
      return z
        .enum(p.choices as [string, ...string[]])
        .optional()
        .describe(help);
    case "text":
      return name().optional().describe(help);
    case "list":
      return z.array(name().min(1)).max(100).optional().describe(help);
    case "json":
      return z.record(z.string(), z.unknown()).optional().describe(help);
    case "switch":
      return z.boolean().optional().describe(help);
    case "switch-or-text":
      return z
        .union([z.boolean(), name().min(1)])
        .optional()
        .describe(help);
  }
}

/** The arguments of the `search` tool, derived from {@link SEARCH_PARAMS}; the HTTP API validates its search parameters with it too. */
export const searchInput = z
  .object({
    query: requestText("what to look for, in plain words"),
    ...(Object.fromEntries(SEARCH_PARAMS.map((p) => [wireName(p), paramSchema(p)])) as SearchArgShape),
  })
  .strict();

/** A camelCase name in snake_case, as a type (`"topK"` → `"top_k"`), as {@link wireName} gives it. */
type Snake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<T>}`
  : S;
/** The zod type {@link paramSchema} gives a parameter. */
type ParamSchema<P> = P extends { kind: "count" | "ratio" }
  ? z.ZodOptional<z.ZodNumber>
  : P extends { kind: "text" }
    ? z.ZodOptional<z.ZodString>
    : P extends { kind: "list" }
      ? z.ZodOptional<z.ZodArray<z.ZodString>>
      : P extends { kind: "json" }
        ? z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodUnknown>>
        : P extends { kind: "switch" }
          ? z.ZodOptional<z.ZodBoolean>
          : P extends { kind: "switch-or-text" }
            ? z.ZodOptional<z.ZodUnion<[z.ZodBoolean, z.ZodString]>>
            : P extends { kind: "choice"; choices: readonly (infer C extends string)[] }
              ? z.ZodOptional<z.ZodEnum<{ [V in C]: V }>>
              : never;
/** The shape of the search tool's arguments, typed from {@link SEARCH_PARAMS}. */
type SearchArgShape = { [P in (typeof SEARCH_PARAMS)[number] as Snake<P["key"]>]: ParamSchema<P> };

/** The arguments of the `get_note` tool (and of `GET /api/note`). */
export const getNoteInput = z
  .object({
    path: name().min(1).describe("vault-relative path or note name, e.g. robots/SMARS.md or SMARS"),
    heading: name().optional().describe("only this section (every section of a heading the note has more than once)"),
  })
  .strict();

/** The arguments of the `list_props` tool (and of `GET /api/props`). */
export const propsInput = z
  .object({
    name: name()
      .min(1)
      .optional()
      .describe("a property (status, or prop.path): list its values with counts instead of the properties"),
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
