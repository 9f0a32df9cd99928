import type { z } from "zod";
import { VaultRagError } from "../errors.js";

/** How a query parameter is read: text, a number, true/false, JSON, or text that may repeat. */
export type ParamKind = "string" | "number" | "boolean" | "json" | "list";

const bad = (message: string) => new VaultRagError("usage", `vault-rag: ${message}`);

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
        `unknown parameter "${name}" — use ${Object.keys(table)
          .map((n) => `"${n}"`)
          .join(", ")}`,
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
      if (!/^-?\d+(\.\d+)?$/.test(v.trim())) throw bad(`${name} must be a number, got "${v}"`);
      out[key] = Number(v);
    } else if (kind === "boolean") {
      if (!["true", "false", "1", "0", ""].includes(v)) throw bad(`${name} must be true or false, got "${v}"`);
      out[key] = v === "true" || v === "1" || v === "";
    } else if (kind === "json") {
      try {
        out[key] = JSON.parse(v);
      } catch {
        throw bad(`${name} must be JSON, e.g. {"folder": "kitchen"}, got ${v}`);
      }
    } else out[key] = v;
  }
  return out;
}

/**
 * Validates input with a zod schema; the first problem becomes a `usage` error in the CLI's
 * wording, naming the parameter and quoting the bad value. `names` maps a schema key back to the
 * name the client used (`query` → `q`).
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
  const got = value === undefined ? "nothing" : JSON.stringify(value);
  throw bad(`${name ? `${name}: ` : ""}${issue.message.replace(/^Invalid input: /, "")}, got ${got}`);
}
