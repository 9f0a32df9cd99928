import type { z } from "zod";
import { VaultRagError } from "../errors.js";

/** How a query parameter is read: text, a number, true/false, JSON, or text that may repeat. */
export type ParamKind = "string" | "number" | "boolean" | "json" | "list";

const bad = (message: string) => new VaultRagError("usage", `vault-rag: ${message}`);

/** The most characters of a bad value an error message quotes. */
const SHOWN_CHARS = 80;

const cut = (s: string) => (s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);

/** A text as an error quotes it: in quotes, cut at {@link SHOWN_CHARS}. */
const quoted = (s: string) => `"${cut(s)}"`;

/**
 * A value as an error quotes it: its JSON, cut at {@link SHOWN_CHARS}. Written by hand to that
 * length, so that a value nested thousands deep (which `JSON.stringify` cannot write: it runs out
 * of stack) is quoted too.
 *
 * @example
 * ```ts
 * shown([[1, 2], "x"]); // '[[1,2],"x"]'
 * ```
 */
export function shown(value: unknown): string {
  let out = "";
  const walk = (v: unknown): void => {
    if (out.length > SHOWN_CHARS) return;
    if (Array.isArray(v)) {
      out += "[";
      v.forEach((x, i) => (i && (out += ","), walk(x)));
      out += "]";
    } else if (v !== null && typeof v === "object") {
      out += "{";
      Object.entries(v).forEach(([k, x], i) => ((out += `${i ? "," : ""}${JSON.stringify(k)}:`), walk(x)));
      out += "}";
    } else out += JSON.stringify(v) ?? String(v);
  };
  // the walk stops adding once past the limit, so it goes no deeper than SHOWN_CHARS levels
  walk(value);
  return cut(out);
}

/**
 * Reads a URL's query parameters into an object by a table of names and kinds (`name → [key, kind]`),
 * ready for a zod schema: numbers, booleans and JSON are parsed; a `list` parameter may repeat
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
  table: Record<string, [key: string, kind: ParamKind]>,
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
    } else if (kind === "boolean") {
      if (!["true", "false", "1", "0", ""].includes(v)) throw bad(`${name} must be true or false, got ${quoted(v)}`);
      out[key] = v === "true" || v === "1" || v === "";
    } else if (kind === "json") {
      try {
        out[key] = JSON.parse(v);
      } catch {
        throw bad(`${name} must be JSON, e.g. {"folder": "kitchen"}, got ${cut(v)}`);
      }
    } else out[key] = v;
  }
  return out;
}

/**
 * Validates input with a zod schema; the first problem becomes a `usage` error in the CLI's
 * wording, naming the parameter and quoting the bad value. `names` maps a schema key back to the
 * name the client used (`query` → `q`); `from` says where a missing one goes (`?path=…`, or the JSON body).
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
  from: "query" | "body" = "query",
): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (issue.code === "unrecognized_keys")
    throw bad(`unknown field ${issue.keys.map((k) => `"${names[k] ?? k}"`).join(", ")}`);
  const [first, ...rest] = issue.path.map(String);
  const name = first === undefined ? "" : [names[first] ?? first, ...rest].join(".");
  let value: unknown = input;
  for (const p of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[p as PropertyKey];
  if (value === undefined && issue.code === "invalid_type" && name)
    throw bad(`${name} is required — ${from === "query" ? `give it as ?${name}=…` : `add "${name}" to the JSON body`}`);
  const got = value === undefined ? "nothing" : shown(value);
  const rule = ruleOf(issue, first);
  if (rule && name) throw bad(`${name} ${rule}, got ${got}`);
  throw bad(`${name ? `${name}: ` : ""}${issue.message.replace(/^Invalid input: /, "")}, got ${got}`);
}

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
      if (issue.origin === "number")
        return fraction ? "must be between 0 and 1" : `must be a whole number of at most ${issue.maximum}`;
      return undefined;
    case "invalid_type":
      return TYPE_RULES[issue.expected];
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return undefined;
  }
}
