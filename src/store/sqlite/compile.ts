import type { DocNode, WhereNode } from "../where.js";

/** A compiled SQL condition over the `chunks` table aliased `c`, with its parameters. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/** Separator around list values in list columns; never part of a tag, link or alias. */
export const LIST_SEP = "\u001f";

/** Encodes a list field for storage: `\x1fa\x1fb\x1f`, or "" when empty. */
export function encodeList(values: string[]): string {
  const clean = values.map((v) => v.split(LIST_SEP).join(" "));
  return clean.length ? LIST_SEP + clean.join(LIST_SEP) + LIST_SEP : "";
}

/** Decodes a list field. */
export function decodeList(s: string): string[] {
  return s ? s.slice(1, -1).split(LIST_SEP) : [];
}

const CMP: Record<string, string> = { $eq: "=", $ne: "!=", $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

/**
 * Compiles a normalised `where` filter to SQL over `chunks c`.
 *
 * @example
 * ```ts
 * compileWhere(normaliseWhere({ folder: "kitchen" })!); // { sql: "c.folder = ?", params: ["kitchen"] }
 * ```
 */
export function compileWhere(node: WhereNode): SqlCondition {
  switch (node.kind) {
    case "and":
    case "or":
      return joinConditions(node.kind, node.clauses.map(compileWhere));
    case "cmp":
      return { sql: `c.${node.field} ${CMP[node.op]} ?`, params: [node.value] };
    case "set":
      return { sql: `c.${node.field} ${node.op === "$in" ? "IN" : "NOT IN"} (${node.values.map(() => "?").join(", ")})`, params: node.values };
    case "list":
      return { sql: `instr(c.${node.field}, ?) ${node.op === "$contains" ? ">" : "="} 0`, params: [LIST_SEP + node.value + LIST_SEP] };
  }
}

/**
 * Compiles a normalised `whereDocument` filter to SQL over `c.text` (case-sensitive, as in Chroma).
 *
 * @example
 * ```ts
 * compileDocument(normaliseWhereDocument({ $contains: "PETG" })!); // { sql: "instr(c.text, ?) > 0", ... }
 * ```
 */
export function compileDocument(node: DocNode): SqlCondition {
  switch (node.kind) {
    case "and":
    case "or":
      return joinConditions(node.kind, node.clauses.map(compileDocument));
    case "doc":
      switch (node.op) {
        case "$contains":
          return { sql: "instr(c.text, ?) > 0", params: [node.value] };
        case "$not_contains":
          return { sql: "instr(c.text, ?) = 0", params: [node.value] };
        case "$regex":
          return { sql: "vr_regexp(?, c.text)", params: [node.value] };
        case "$not_regex":
          return { sql: "NOT vr_regexp(?, c.text)", params: [node.value] };
      }
  }
}

/** `(a AND b ...)` or `(a OR b ...)` with the parameters in order. */
function joinConditions(kind: "and" | "or", parts: SqlCondition[]): SqlCondition {
  return { sql: `(${parts.map((p) => p.sql).join(kind === "and" ? " AND " : " OR ")})`, params: parts.flatMap((p) => p.params) };
}
