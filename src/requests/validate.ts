/**
 * Validation of tool and API arguments against the zod schemas of ./schemas.ts, with errors in the
 * CLI's wording (`vault-rag: top_k must be a whole number of at most 50, got 500`). The MCP server
 * and the HTTP API both validate through {@link validate}, so a bad value reads the same on both.
 * This file loads zod only (the quoting of bad values lives in src/shown.ts, shared with the filters).
 */
import type { z } from "zod";
import { VaultRagError } from "../errors.js";
import { shown } from "../shown.js";

/** A `usage` error: `vault-rag: ` and the message. */
export const bad = (message: string) => new VaultRagError("usage", `vault-rag: ${message}`);

/**
 * Validates input with a zod schema; the first problem becomes a `usage` error in the CLI's
 * wording, naming the parameter and quoting the bad value. `names` maps a schema key back to the
 * name the client used (`query` → `q`); `from` says where a missing one goes (`?path=…`, the JSON
 * body, or an MCP tool's arguments).
 *
 * @example
 * ```ts
 * validate(searchInput, { query: "x", top_k: 500 }); // throws: vault-rag: top_k is too big: expected number to be <=50, got 500
 * ```
 */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  names: Record<string, string> = {},
  from: "query" | "body" | "arguments" = "query",
): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) {
    // a filter reaches normaliseWhere as it was sent: zod's copy of a record drops an own
    // "__proto__" key (the assignment sets the copy's prototype), so {"__proto__": {…}} ran as no
    // filter at all instead of being refused as the unknown field it is
    const data = r.data as Record<string, unknown>;
    for (const k of FILTER_FIELDS)
      if (data && typeof data === "object" && data[k] !== undefined) data[k] = (input as Record<string, unknown>)[k];
    return r.data;
  }
  // of a number's checks, the one with the tightest bound speaks (100,000, not the largest safe integer)
  const bound = (i: z.core.$ZodIssue) => (i.code === "too_big" ? Number(i.maximum) : Infinity);
  const issue = r.error.issues.reduce((a, b) => (b.path.join() === a.path.join() && bound(b) < bound(a) ? b : a));
  const nameOf = (k: string) => (Object.hasOwn(names, k) ? names[k] : k);
  if (issue.code === "unrecognized_keys") {
    // the fields there are, as the HTTP API names its parameters
    const shape =
      issue.path.length === 0 ? (schema as unknown as { shape?: Record<string, unknown> }).shape : undefined;
    const keys = shape ? Object.keys(shape).map(nameOf) : undefined;
    const known = keys ? (keys.length ? ` — use ${keys.join(", ")}` : " — this takes none") : "";
    throw bad(`unknown field ${issue.keys.map((k) => `"${nameOf(k)}"`).join(", ")}${known}`);
  }
  if (issue.path.length === 0 && issue.code === "invalid_type")
    throw bad(`${WHOLE[from]} must be a JSON object, got ${shown(input)} — ${WHOLE_FIX[from]}`);
  const [first, ...rest] = issue.path.map(String);
  // a list's items are named by the list (`tag`, not `tag.0`)
  const name = first === undefined ? "" : [nameOf(first), ...rest.filter((p) => !/^\d+$/.test(p))].join(".");
  let value: unknown = input;
  for (const p of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  if (value === undefined && issue.code === "invalid_type" && name)
    throw bad(`${name} is required — ${MISSING_FIX[from](name)}`);
  const got = value === undefined ? "nothing" : shown(value);
  if (issue.code === "too_big" && issue.origin === "string" && typeof value === "string")
    throw bad(`${name} is ${value.length} characters, over the limit of ${issue.maximum} — shorten it`);
  if (issue.code === "too_big" && issue.origin === "array" && Array.isArray(value))
    throw bad(`${name} has ${value.length} values, over the limit of ${issue.maximum}`);
  const rule = ruleOf(issue, first);
  if (rule && name) throw bad(`${name} ${rule}, got ${got}`);
  throw bad(`${name ? `${name}: ` : ""}${issue.message.replace(/^Invalid input: /, "")}, got ${got}`);
}

/** The request fields that hold a filter in Chroma's language, read by normaliseWhere and normaliseWhereDocument. */
const FILTER_FIELDS = ["where", "where_document"];

/** The whole input, by where it came from, and what it should look like. */
const WHOLE = { query: "the query", body: "the request body", arguments: "the tool's arguments" };
const WHOLE_FIX = {
  query: "give parameters as ?name=value",
  body: 'send a body like {"question": "…"}',
  arguments: 'send them like {"query": "…"}',
};

/** Where a missing field goes, by where the input came from. */
const MISSING_FIX = {
  query: (name: string) => `give it as ?${name}=…`,
  body: (name: string) => `add "${name}" to the JSON body`,
  arguments: (name: string) => `add "${name}" to the tool's arguments`,
};

/** What a value of each type must be, in the CLI's words. */
const TYPE_RULES: Record<string, string | undefined> = {
  int: "must be a whole number",
  number: "must be a number",
  string: "must be text",
  boolean: "must be true or false",
  array: "must be a list",
  record: "must be a JSON object",
  object: "must be a JSON object",
};

/** Fields that are fractions from 0 to 1; every other number field is a whole number. */
const FRACTIONS = new Set(["min_ratio"]);

/** What a field must be, in the CLI's words (`must be a whole number of at least 1`), or undefined for zod's own. */
function ruleOf(issue: z.core.$ZodIssue, field: string | undefined): string | undefined {
  const fraction = field !== undefined && FRACTIONS.has(field);
  switch (issue.code) {
    case "too_small":
      if (issue.origin === "string") return "must not be empty";
      if (issue.origin === "number")
        return fraction ? "must be between 0 and 1" : `must be a whole number of at least ${issue.minimum}`;
      return undefined;
    case "too_big":
      if (issue.origin === "number" || issue.origin === "int")
        return fraction ? "must be between 0 and 1" : `must be a whole number of at most ${issue.maximum}`;
      return undefined;
    case "invalid_type":
      return TYPE_RULES[issue.expected];
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union":
      // the one union of the parameters: a switch that may name what to use (`rerank`)
      return "must be true, false or a name";
    default:
      return undefined;
  }
}
