import type { RecordMetadata } from "./schema.js";
import type { DocNode, WhereNode } from "./where.js";

/**
 * The reference evaluator: a small, obviously correct in-memory reading of the filter language.
 * Property tests check every store against it.
 *
 * @example
 * ```ts
 * matchesWhere(normaliseWhere({ folder: "kitchen" })!, record.meta); // true or false
 * ```
 */
export function matchesWhere(node: WhereNode, meta: RecordMetadata): boolean {
  switch (node.kind) {
    case "and":
      return node.clauses.every((c) => matchesWhere(c, meta));
    case "or":
      return node.clauses.some((c) => matchesWhere(c, meta));
    case "list": {
      const has = (meta[node.field] as string[]).includes(node.value);
      return node.op === "$contains" ? has : !has;
    }
    case "set": {
      const has = node.values.includes(meta[node.field] as string | number);
      return node.op === "$in" ? has : !has;
    }
    case "cmp": {
      const v = meta[node.field] as string | number;
      switch (node.op) {
        case "$eq":
          return v === node.value;
        case "$ne":
          return v !== node.value;
        case "$gt":
          return v > node.value;
        case "$gte":
          return v >= node.value;
        case "$lt":
          return v < node.value;
        case "$lte":
          return v <= node.value;
      }
    }
  }
}

/**
 * Reference evaluation of a `whereDocument` filter against a record's text.
 *
 * @example
 * ```ts
 * matchesDocument(normaliseWhereDocument({ $contains: "PETG" })!, "Ordered more PETG."); // true
 * ```
 */
export function matchesDocument(node: DocNode, text: string): boolean {
  switch (node.kind) {
    case "and":
      return node.clauses.every((c) => matchesDocument(c, text));
    case "or":
      return node.clauses.some((c) => matchesDocument(c, text));
    case "doc":
      switch (node.op) {
        case "$contains":
          return text.includes(node.value);
        case "$not_contains":
          return !text.includes(node.value);
        case "$regex":
          return node.regex!.test(text);
        case "$not_regex":
          return !node.regex!.test(text);
      }
  }
}
