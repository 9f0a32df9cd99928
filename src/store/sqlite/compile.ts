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
      // one JSON parameter, however long the list (SQLite allows 32,766 parameters per statement)
      return {
        sql: `c.${node.field} ${node.op === "$in" ? "IN" : "NOT IN"} (SELECT value FROM json_each(?))`,
        params: [JSON.stringify(node.values)],
      };
    case "list":
      return {
        sql: `instr(c.${node.field}, ?) ${node.op === "$contains" ? ">" : "="} 0`,
        params: [LIST_SEP + node.value + LIST_SEP],
      };
    case "prop":
      // in JavaScript, by the reference's reading of the condition (see propTest)
      return { sql: "vr_prop(c.props, ?)", params: [JSON.stringify(node)] };
  }
}

/**
 * Compiles a normalised `whereDocument` filter to SQL over `c.text` (case-sensitive, as in Chroma).
 *
 * @example
 * ```ts
 * compileDocument(normaliseWhereDocument({ $contains: "PETG" })!); // { sql: "vr_contains(?, c.text)", ... }
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
          return { sql: "vr_contains(?, c.text)", params: [node.value] };
        case "$not_contains":
          return { sql: "NOT vr_contains(?, c.text)", params: [node.value] };
        case "$regex":
          return { sql: "vr_regexp(?, c.text)", params: [node.value] };
        case "$not_regex":
          return { sql: "NOT vr_regexp(?, c.text)", params: [node.value] };
      }
  }
}

/**
 * `(a AND b ...)` or `(a OR b ...)` with the parameters in order. Long lists are grouped into a
 * balanced tree of groups of 8, so SQLite's expression depth (at most 1,000) grows with the log of
 * the number of clauses, not with the number itself.
 */
function joinConditions(kind: "and" | "or", parts: SqlCondition[]): SqlCondition {
  const join = (ps: SqlCondition[]): SqlCondition => ({
    sql: `(${ps.map((p) => p.sql).join(kind === "and" ? " AND " : " OR ")})`,
    params: ps.flatMap((p) => p.params),
  });
  let level = parts;
  while (level.length > 8)
    level = Array.from({ length: Math.ceil(level.length / 8) }, (_, i) => join(level.slice(i * 8, i * 8 + 8)));
  return join(level);
}
