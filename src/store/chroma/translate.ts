import { readProps } from "../../props.js";
import { LIST_FIELDS, NUMBER_FIELDS, PROP_PREFIX, STRING_FIELDS, type RecordMetadata } from "../fields.js";
import { VaultRagError } from "../../errors.js";
import type { QueryFilter } from "../types.js";
import type { DocNode, WhereNode } from "../where.js";

/** A metadata value as Chroma stores it. Lists must be non-empty and of one type. */
export type ChromaValue = string | number | boolean | string[];
export type ChromaMetadata = Record<string, ChromaValue>;

/**
 * A record's metadata as Chroma stores it: scalars as they are, list fields as Chroma arrays. Chroma
 * rejects empty arrays, so an empty list is left out (and read back as `[]`).
 *
 * @example
 * ```ts
 * toChromaMetadata({ ...meta, tags: [] }); // no "tags" key
 * ```
 */
export function toChromaMetadata(meta: RecordMetadata): ChromaMetadata {
  const out: ChromaMetadata = {};
  for (const f of STRING_FIELDS) out[f] = meta[f] ?? (f === "file_type" ? "note" : "");
  for (const f of NUMBER_FIELDS) out[f] = meta[f] ?? 0;
  for (const f of LIST_FIELDS) if (meta[f].length) out[f] = meta[f].map(String);
  out.hash = meta.hash;
  // each property under its own key, as a filter reaches it (a date as Unix seconds, a list as a
  // Chroma array), and all of them with their types as JSON, as they are read back
  const props = meta.props ?? {};
  for (const [name, v] of Object.entries(props))
    out[PROP_PREFIX + name] = Array.isArray(v) ? v : typeof v === "object" ? v.date : v;
  if (Object.keys(props).length) out[PROPS_KEY] = JSON.stringify(props);
  return out;
}

/** The metadata key that holds a record's properties with their types (JSON). */
const PROPS_KEY = "props";

/**
 * Reads Chroma metadata back into a record's metadata; missing lists are empty, missing scalars
 * take neutral values (a record written by another tool still reads).
 *
 * @example
 * ```ts
 * fromChromaMetadata({ path: "a.md", tags: ["pico"] }).tags; // ["pico"]
 * ```
 */
export function fromChromaMetadata(m: Record<string, unknown> | null | undefined): RecordMetadata {
  const src = m ?? {};
  const str = (k: string) => (typeof src[k] === "string" ? (src[k] as string) : "");
  const num = (k: string) => (typeof src[k] === "number" ? (src[k] as number) : 0);
  const list = (k: string) => (Array.isArray(src[k]) ? (src[k] as unknown[]).map(String) : []);
  return {
    path: str("path"),
    title: str("title"),
    section: str("section"),
    folder: str("folder"),
    top_folder: str("top_folder"),
    mtime: num("mtime"),
    date: typeof src.date === "number" ? src.date : num("mtime"),
    date_source: str("date_source") || "mtime",
    word_count: num("word_count"),
    ordinal: num("ordinal"),
    start_line: num("start_line"),
    end_line: num("end_line"),
    tags: list("tags"),
    links: list("links"),
    aliases: list("aliases"),
    props: typeof src[PROPS_KEY] === "string" ? readProps(src[PROPS_KEY] as string) : {},
    hash: str("hash"),
    // a note's passage reads as it was written: no type, no page
    ...(str("file_type") && str("file_type") !== "note" ? { file_type: str("file_type") } : {}),
    ...(num("page") ? { page: num("page") } : {}),
  };
}

/**
 * A validated `where` filter in Chroma's own syntax. Every clause is written out explicitly
 * (`{"field": {"$eq": v}}`), so what the server evaluates is exactly what vault-rag validated.
 *
 * @example
 * ```ts
 * toChromaWhere(normaliseWhere({ tags: "pico" })!); // { tags: { $contains: "pico" } }
 * ```
 */
export function toChromaWhere(node: WhereNode): Record<string, unknown> {
  switch (node.kind) {
    case "and":
    case "or":
      return grouped(node.kind, merged(node.kind, node.clauses).map(toChromaWhere));
    case "set":
      return { [node.field]: { [node.op]: node.values } };
    case "cmp":
    case "list":
      return { [node.field]: { [node.op]: node.value } };
    case "prop": {
      const key = PROP_PREFIX + node.name;
      // the server refuses a list of whole and fractional numbers (JSON's 4 and 2.5 are of two
      // types to it): such a list is sent as one clause per value
      const values = Array.isArray(node.value) ? (node.value as unknown[]) : [];
      const mixed = new Set(values.map((v) => typeof v === "number" && Number.isInteger(v))).size > 1;
      if (mixed && (node.op === "$in" || node.op === "$nin"))
        return grouped(
          node.op === "$in" ? "or" : "and",
          values.map((v) => ({ [key]: { [node.op === "$in" ? "$eq" : "$ne"]: v } })),
        );
      return { [key]: { [node.op]: node.value } };
    }
  }
}

/**
 * A validated `whereDocument` filter in Chroma's syntax. Regular expressions are passed as written;
 * Chroma evaluates them with Rust's regex dialect, which vault-rag runs locally too (RE2JS, linear
 * time): look-around and back-references were refused when the filter was validated.
 *
 * @example
 * ```ts
 * toChromaDocument(normaliseWhereDocument({ $contains: "PETG" })!); // { $contains: "PETG" }
 * ```
 */
export function toChromaDocument(node: DocNode): Record<string, unknown> {
  switch (node.kind) {
    case "and":
    case "or":
      return grouped(node.kind, node.clauses.map(toChromaDocument));
    case "doc":
      return { [node.op]: node.value };
  }
}

/**
 * `$and`/`$or` of many clauses as a balanced tree of groups of at most 8: the server turns a flat
 * list into an expression as deep as the list is long, and fails past 1,000 (or crashes past a few
 * thousand); grouped, the depth grows with the log of the length.
 */
function grouped(kind: "and" | "or", clauses: Record<string, unknown>[]): Record<string, unknown> {
  if (clauses.length === 1) return clauses[0];
  if (clauses.length <= 8) return { [`$${kind}`]: clauses };
  return grouped(
    kind,
    Array.from({ length: Math.ceil(clauses.length / 8) }, (_, i) => grouped(kind, clauses.slice(i * 8, i * 8 + 8))),
  );
}

/**
 * An `$or` of `$eq` clauses on one field as one `$in`, an `$and` of `$ne` clauses as one `$nin`:
 * the same records, and one condition where the server's time grows with the square of the count.
 */
function merged(kind: "and" | "or", clauses: WhereNode[]): WhereNode[] {
  const op = kind === "or" ? "$eq" : "$ne";
  const byField = new Map<string, (string | number)[]>();
  for (const c of clauses)
    if (c.kind === "cmp" && c.op === op) byField.set(c.field, [...(byField.get(c.field) ?? []), c.value]);
  const out: WhereNode[] = [];
  const done = new Set<string>();
  for (const c of clauses) {
    if (c.kind !== "cmp" || c.op !== op || byField.get(c.field)!.length < 2) out.push(c);
    else if (!done.has(c.field)) {
      out.push({ kind: "set", field: c.field, op: kind === "or" ? "$in" : "$nin", values: byField.get(c.field)! });
      done.add(c.field);
    }
  }
  return out;
}

/** What one query may hand a Chroma server: its SQLite takes at most 32,766 parameters per statement. */
export const CHROMA_MAX_FILTER_VALUES = 30_000;
/** Conditions in one query to a Chroma server, whose time grows with the square of their count. */
export const CHROMA_MAX_FILTER_CONDITIONS = 1_000;

/**
 * Conditions and values of a translated filter: a text `$in`/`$nin` value counts 1, a number 2 (the
 * server matches it as an integer and as a float), any other condition 2 (a key and a value).
 */
function cost(f: Record<string, unknown>, acc = { conditions: 0, values: 0 }): { conditions: number; values: number } {
  const [key, val] = Object.entries(f)[0];
  if (key === "$and" || key === "$or") for (const c of val as Record<string, unknown>[]) cost(c, acc);
  else {
    acc.conditions++;
    const operand = val !== null && typeof val === "object" ? Object.values(val)[0] : val;
    acc.values += Array.isArray(operand) ? operand.length * (typeof operand[0] === "number" ? 2 : 1) : 2;
  }
  return acc;
}

/**
 * A validated filter in Chroma's syntax, refused with a stated limit when it holds more conditions
 * or values than the server takes in one query.
 *
 * @example
 * ```ts
 * toChromaFilter({ where: normaliseWhere({ folder: "kitchen" }) }); // { where: { folder: { $eq: "kitchen" } } }
 * ```
 */
export function toChromaFilter(filter: QueryFilter): {
  where?: Record<string, unknown>;
  whereDocument?: Record<string, unknown>;
} {
  const out = {
    ...(filter.where ? { where: toChromaWhere(filter.where) } : {}),
    ...(filter.whereDocument ? { whereDocument: toChromaDocument(filter.whereDocument) } : {}),
  };
  const n = { conditions: 0, values: 0 };
  for (const f of Object.values(out)) cost(f, n);
  if (n.conditions > CHROMA_MAX_FILTER_CONDITIONS)
    throw new VaultRagError(
      "filter_invalid",
      `vault-rag: the filter holds ${n.conditions} conditions for the Chroma server, which takes at most ${CHROMA_MAX_FILTER_CONDITIONS} in one query (the limit; its time grows with their square) — put the values of many clauses on one field into one $in or $nin list`,
    );
  if (n.values > CHROMA_MAX_FILTER_VALUES)
    throw new VaultRagError(
      "filter_invalid",
      `vault-rag: the filter hands ${n.values} values to the Chroma server (a text $in/$nin value counts 1, a number or any other condition 2), which takes at most ${CHROMA_MAX_FILTER_VALUES} in one query (the limit) — shorten the $in/$nin lists, or filter on folder or tags instead`,
    );
  return out;
}
