import type { Props } from "../props.js";
import type { RecordMetadata } from "./fields.js";
import type { DocNode, PropNode, WhereNode } from "./where.js";

/**
 * Whether a note's properties pass a property condition: the one reading of {@link PropNode} that
 * the reference evaluator, the SQLite store (`vr_prop`) and its in-memory columns all use, and that
 * a Chroma server's reading of the same clause matches.
 *
 * @example
 * ```ts
 * matchesProp({ kind: "prop", name: "status", op: "$eq", value: "draft" }, { status: "draft" }); // true
 * matchesProp({ kind: "prop", name: "status", op: "$ne", value: "draft" }, {});                  // true
 * ```
 */
export function matchesProp(node: PropNode, props: Props): boolean {
  const v = Object.hasOwn(props, node.name) ? props[node.name] : undefined;
  const list = Array.isArray(v) ? v : undefined;
  const scalar = v === undefined || Array.isArray(v) ? undefined : typeof v === "object" ? v.date : v;
  switch (node.op) {
    case "$contains":
      return !!list?.includes(node.value);
    case "$not_contains":
      return !list?.includes(node.value);
    case "$eq":
      return scalar === node.value;
    case "$ne":
      return scalar !== node.value;
    case "$in":
      return scalar !== undefined && node.value.includes(scalar);
    case "$nin":
      return scalar === undefined || !node.value.includes(scalar);
  }
  if (typeof scalar !== "number" || typeof node.value !== "number") return false;
  switch (node.op) {
    case "$gt":
      return scalar > node.value;
    case "$gte":
      return scalar >= node.value;
    case "$lt":
      return scalar < node.value;
    case "$lte":
      return scalar <= node.value;
  }
}

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
    case "prop":
      return matchesProp(node, meta.props);
    case "list": {
      const has = (meta[node.field] as string[]).includes(node.value);
      return node.op === "$contains" ? has : !has;
    }
    case "set": {
      const has = node.values.includes(scalar(meta, node.field));
      return node.op === "$in" ? has : !has;
    }
    case "cmp": {
      const v = scalar(meta, node.field);
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

/** A scalar field's value as stored: a record written without `file_type` or `page` is a note's, on no page. */
function scalar(meta: RecordMetadata, field: string): string | number {
  const v = meta[field as keyof RecordMetadata] as string | number | undefined;
  return v ?? (field === "file_type" ? "note" : field === "page" ? 0 : (v as unknown as string));
}
