import { LIST_FIELDS, NUMBER_FIELDS, STRING_FIELDS, type RecordMetadata } from "../schema.js";
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
  for (const f of STRING_FIELDS) out[f] = meta[f];
  for (const f of NUMBER_FIELDS) out[f] = meta[f];
  for (const f of LIST_FIELDS) if (meta[f].length) out[f] = meta[f].map(String);
  out.hash = meta.hash;
  return out;
}

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
    word_count: num("word_count"),
    ordinal: num("ordinal"),
    start_line: num("start_line"),
    end_line: num("end_line"),
    tags: list("tags"),
    links: list("links"),
    aliases: list("aliases"),
    hash: str("hash"),
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
      return { $and: node.clauses.map(toChromaWhere) };
    case "or":
      return { $or: node.clauses.map(toChromaWhere) };
    case "set":
      return { [node.field]: { [node.op]: node.values } };
    case "cmp":
    case "list":
      return { [node.field]: { [node.op]: node.value } };
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
      return { $and: node.clauses.map(toChromaDocument) };
    case "or":
      return { $or: node.clauses.map(toChromaDocument) };
    case "doc":
      return { [node.op]: node.value };
  }
}
