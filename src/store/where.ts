import { closest, didYouMean } from "../closest.js";
import { isoDateSeconds } from "../dates.js";
import { VaultRagError } from "../errors.js";
import { propName } from "../props.js";
import { shown } from "../shown.js";
import { compileDocRegex, REGEX_LIMITS, type DocRegex } from "./regex.js";
import { ALL_FIELDS, fieldKind, PROP_PREFIX, type ListField, type NumberField, type StringField } from "./fields.js";

/** Chroma's `where` filter, as users write it (JSON). */
export type Where = Record<string, unknown>;
/** Chroma's `whereDocument` filter, as users write it (JSON). */
export type WhereDocument = Record<string, unknown>;

/** A validated, normalised `where` filter: what every store consumes. */
export type WhereNode =
  | { kind: "and" | "or"; clauses: WhereNode[] }
  | {
      kind: "cmp";
      field: StringField | NumberField;
      op: "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte";
      value: string | number;
    }
  | { kind: "set"; field: StringField | NumberField; op: "$in" | "$nin"; values: (string | number)[] }
  | { kind: "list"; field: ListField; op: "$contains" | "$not_contains"; value: string }
  | PropNode;

/** A value a property condition compares: a date is compared as Unix seconds. */
export type PropScalar = string | number | boolean;

/**
 * A condition on a note's property, as Chroma reads a condition on any metadata key: `$eq`, `$in`
 * and the orderings match a scalar of the same type (a date as Unix seconds), `$contains` a list
 * that holds the text; `$ne`, `$nin` and `$not_contains` match every record the positive form does
 * not, those without the property too.
 */
export type PropNode =
  | { kind: "prop"; name: string; op: "$eq" | "$ne" | "$gt" | "$gte" | "$lt" | "$lte"; value: PropScalar }
  | { kind: "prop"; name: string; op: "$in" | "$nin"; value: PropScalar[] }
  | { kind: "prop"; name: string; op: "$contains" | "$not_contains"; value: string };

/** A validated, normalised `whereDocument` filter. */
export type DocNode =
  | { kind: "and" | "or"; clauses: DocNode[] }
  | { kind: "doc"; op: "$contains" | "$not_contains" | "$regex" | "$not_regex"; value: string; regex?: DocRegex };

const SCALAR_OPS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"];
const LIST_OPS = ["$contains", "$not_contains"];
const DOC_OPS = ["$contains", "$not_contains", "$regex", "$not_regex"];
/**
 * How deep `$and`/`$or` may nest (a top-level clause is level 1); deeper filters are refused. A
 * Chroma server refuses past 63 levels, so 32 leaves room for the grouping of long clause lists.
 */
export const MAX_FILTER_DEPTH = 32;
/**
 * How many values the `$in`/`$nin` lists of one filter may hold together; more are refused (a list
 * of 900,000 paths through MCP took 6.5 s to read, where 40,000 take a few ms).
 */
export const MAX_FILTER_VALUES = 50_000;
/** How many conditions one filter may hold (a `$in` list counts as one); more are refused. */
export const MAX_FILTER_CONDITIONS = 10_000;
/** mtime values above this are milliseconds, not seconds (10^11 s is the year 5138). */
export const MTIME_MS_THRESHOLD = 1e11;

const fail = (msg: string): never => {
  throw new VaultRagError("filter_invalid", `vault-rag: ${msg}`);
};
// JSON as the filter was written; a number JSON cannot hold (1e400 reads as Infinity) by its name
// cut, and safe for a value nested thousands deep (JSON.stringify ran out of stack on one)
// JSON reads a number past ±1.8e308 (`1e400`) as Infinity: said so, as the value typed is gone
const show = (v: unknown) =>
  typeof v === "number" && !Number.isFinite(v)
    ? Number.isNaN(v)
      ? "NaN"
      : `a number beyond ±1.8e308, which JSON reads as ${v}`
    : shown(v);

/**
 * Validates a Chroma `where` filter and normalises it. `{}`, `null` and `undefined` mean "no
 * filter" (Chroma rejects `{}`; vault-rag accepts it). `$and`/`$or` with one clause is unwrapped.
 * Tag values are lowercased, as tags are at index time.
 *
 * @example
 * ```ts
 * normaliseWhere({ tags: { $contains: "Pico" } });
 * // { kind: "list", field: "tags", op: "$contains", value: "pico" }
 * normaliseWhere({ tags: { $in: ["pico"] } }); // throws: "$in" does not work on the list field "tags"...
 * ```
 */
export function normaliseWhere(where: unknown, props?: readonly string[]): WhereNode | undefined {
  return topLevel(where, "where", (o) => whereNode(o, new Walk("where", props)));
}

/** Where a parse is: how deep, and how many conditions it has met; refuses past the limits. */
class Walk {
  depth = 1;
  conditions = 0;
  /** Values of the `$in`/`$nin` lists so far. */
  values = 0;
  /** Steps of the filter's regular expressions so far. */
  steps = 0;
  /**
   * The properties the index holds (normalised names), which a bare name may reach; without them
   * only `prop.<name>` reaches a property, and any other name but a field's is unknown.
   */
  constructor(
    readonly name: string,
    readonly props?: readonly string[],
  ) {}
  /** Parses the clauses of an `$and`/`$or` one level deeper. */
  nested<T>(clauses: unknown[], parse: (o: Record<string, unknown>) => T): T[] {
    if (++this.depth > MAX_FILTER_DEPTH)
      fail(
        `the ${this.name} filter nests $and/$or more than ${MAX_FILTER_DEPTH} levels deep (the limit) — flatten it: one $and or $or takes any number of clauses`,
      );
    const out = clauses.map((c) => parse(c as Record<string, unknown>));
    this.depth--;
    return out;
  }
  /** Counts the values of one `$in`/`$nin` list. */
  listValues(n: number): void {
    if ((this.values += n) > MAX_FILTER_VALUES)
      fail(
        `the ${this.name} filter's $in/$nin lists hold more than ${MAX_FILTER_VALUES} values together (the limit) — narrow the search with a folder or a tag instead`,
      );
  }
  /** Counts one condition. */
  condition(): void {
    if (++this.conditions > MAX_FILTER_CONDITIONS)
      fail(
        `the ${this.name} filter holds more than ${MAX_FILTER_CONDITIONS} conditions (the limit) — ${this.name === "whereDocument" ? "narrow the search with where (a tag, a folder) instead" : "put the values of many $eq clauses on one field into one $in list"}`,
      );
  }
}

/** `null`, `undefined` and `{}` mean no filter; anything else but an object is an error. */
function topLevel<T>(value: unknown, name: string, parse: (o: Record<string, unknown>) => T): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    fail(`a ${name} filter must be a JSON object, got ${show(value)}`);
  if (Object.keys(value as object).length === 0) return undefined;
  return parse(value as Record<string, unknown>);
}

/** `$and`/`$or`: a non-empty list of clauses; one clause is unwrapped (Chroma would reject it). */
function combine<T>(
  op: "$and" | "$or",
  val: unknown,
  walk: Walk,
  parse: (o: Record<string, unknown>) => T,
): T | { kind: "and" | "or"; clauses: T[] } {
  if (!Array.isArray(val) || val.length === 0) fail(`"${op}" needs a non-empty list of clauses, got ${show(val)}`);
  const clauses = walk.nested(val as unknown[], parse);
  return clauses.length === 1 ? clauses[0] : { kind: op === "$and" ? "and" : "or", clauses };
}

function whereNode(obj: Record<string, unknown>, walk: Walk): WhereNode {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    fail(`a where clause must be a JSON object, got ${show(obj)}`);
  const keys = Object.keys(obj);
  if (keys.length !== 1) {
    fail(
      keys.length === 0
        ? `empty where clause {} inside $and/$or — remove it`
        : `a where clause must have exactly one key, got ${keys.length} (${keys.map((k) => `"${k}"`).join(", ")}) — combine them with $and`,
    );
  }
  const key = keys[0];
  const val = obj[key];
  if (key === "$and" || key === "$or") return combine(key, val, walk, (o) => whereNode(o, walk));
  walk.condition();
  if (key.startsWith("$"))
    fail(`unknown operator "${key}" at the top of a where clause — use $and, $or or a field name`);
  const kind = fieldKind(key);
  if (!kind) return propNode(key, val, walk);
  // shorthand {field: value}
  const { op, operand } = operatorOf(key, val, kind === "list" ? "$contains" : "$eq");
  if (kind === "list") {
    if (SCALAR_OPS.includes(op))
      fail(
        `"${op}" does not work on the list field "${key}" — use {"${key}": {"$contains": ${show(Array.isArray(operand) ? (operand[0] ?? "value") : operand)}}}`,
      );
    if (!LIST_OPS.includes(op)) fail(`unknown operator "${op}" on "${key}" — use $contains or $not_contains`);
    if (typeof operand !== "string" || operand === "")
      fail(`"${op}" on "${key}" needs a non-empty string, got ${show(operand)}`);
    const value = key === "tags" ? (operand as string).replace(/^#/, "").toLowerCase() : (operand as string);
    return { kind: "list", field: key as ListField, op: op as "$contains", value };
  }
  if (LIST_OPS.includes(op)) {
    fail(
      `"${op}" on "${key}" is not a substring match — metadata ${op} only works on list fields (tags, links, aliases); use {"top_folder": ...} for a folder tree or whereDocument {"$contains": ...} for text`,
    );
  }
  if (!SCALAR_OPS.includes(op)) fail(`unknown operator "${op}" on "${key}" — use one of ${SCALAR_OPS.join(", ")}`);
  const checkValue = (v: unknown): string | number => {
    if (kind === "number") {
      if (typeof v !== "number" || !Number.isFinite(v)) fail(`"${op}" on "${key}" needs a number, got ${show(v)}`);
      // a time far before 1970 is a time (every note is after it), not milliseconds
      if (key === "mtime" && (v as number) > MTIME_MS_THRESHOLD)
        fail(`mtime value ${v} looks like milliseconds — mtime is in seconds; divide by 1000`);
      return v as number;
    }
    // the operator first: a number would not make "$gt" on text work, so that is not the fix to give
    if (op !== "$eq" && op !== "$ne" && op !== "$in" && op !== "$nin")
      fail(`"${op}" on "${key}" needs a number field; "${key}" holds text`);
    if (typeof v !== "string") fail(`"${op}" on "${key}" needs a string, got ${show(v)}`);
    return v as string;
  };
  if (op === "$in" || op === "$nin") {
    if (!Array.isArray(operand)) fail(`"${op}" on "${key}" needs a list, got ${show(operand)}`);
    if ((operand as unknown[]).length === 0) fail(`"${op}" on "${key}" needs a non-empty list`);
    walk.listValues((operand as unknown[]).length);
    return { kind: "set", field: key as StringField, op: op as "$in", values: (operand as unknown[]).map(checkValue) };
  }
  return { kind: "cmp", field: key as StringField, op: op as "$eq", value: checkValue(operand) };
}

/** The most property names an "unknown metadata field" error lists. */
const LISTED_PROPS = 20;

/** A condition on a key that is no field: a property's, named bare or as `prop.<name>`, else an error. */
function propNode(key: string, val: unknown, walk: Walk): PropNode {
  const prefixed = key.startsWith(PROP_PREFIX);
  const name = propName(prefixed ? key.slice(PROP_PREFIX.length) : key);
  const known = walk.props;
  // a bare name reaches a property the index holds, unless it is a field's in another case
  const reaches = prefixed ? !!name && (!known || known.includes(name)) : !fieldKind(name) && !!known?.includes(name);
  if (!reaches) unknownField(key, known);
  const { op, operand } = operatorOf(key, val, "$eq");
  if (op === "$contains" || op === "$not_contains") {
    if (typeof operand !== "string" || operand === "")
      fail(
        `"${op}" on the property "${key}" needs a non-empty string (an item of a list property), got ${show(operand)}`,
      );
    return { kind: "prop", name, op, value: operand as string };
  }
  if (!SCALAR_OPS.includes(op))
    fail(`unknown operator "${op}" on "${key}" — use one of ${[...SCALAR_OPS, ...LIST_OPS].join(", ")}`);
  const ordered = op === "$gt" || op === "$gte" || op === "$lt" || op === "$lte";
  const scalar = (v: unknown): PropScalar => {
    // a date is compared as Unix seconds, as the index keeps it
    const date = typeof v === "string" ? isoDateSeconds(v) : undefined;
    if (date !== undefined) return date;
    if (ordered && (typeof v !== "number" || !Number.isFinite(v)))
      fail(`"${op}" on the property "${key}" needs a number or an ISO date like "2026-03-14", got ${show(v)}`);
    if (typeof v === "number" && !Number.isFinite(v)) fail(`"${op}" on "${key}" needs a finite number, got ${show(v)}`);
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
      fail(`"${op}" on the property "${key}" needs a string, a number, true or false, got ${show(v)}`);
    return v as PropScalar;
  };
  if (op === "$in" || op === "$nin") {
    if (!Array.isArray(operand) || operand.length === 0)
      fail(`"${op}" on "${key}" needs a non-empty list, got ${show(operand)}`);
    walk.listValues((operand as unknown[]).length);
    const values = (operand as unknown[]).map(scalar);
    // Chroma takes the values of one list of one type
    if (new Set(values.map((v) => typeof v)).size > 1)
      fail(`"${op}" on "${key}" needs values of one type (all strings, all numbers or dates, or all true/false)`);
    return { kind: "prop", name, op, value: values };
  }
  return { kind: "prop", name, op: op as "$eq", value: scalar(operand) };
}

/** Refuses a key that is neither a field nor a property the index holds, with the closest names. */
function unknownField(key: string, props: readonly string[] | undefined): never {
  const names = [...ALL_FIELDS, ...(props ?? [])];
  const bare = key.startsWith(PROP_PREFIX) ? key.slice(PROP_PREFIX.length) : key;
  const near = closest(propName(bare), names).map((n) =>
    fieldKind(n) && props?.includes(n) && key.startsWith(PROP_PREFIX) ? PROP_PREFIX + n : n,
  );
  const listed = props?.length
    ? `; properties: ${props.slice(0, LISTED_PROPS).join(", ")}${props.length > LISTED_PROPS ? `, and ${props.length - LISTED_PROPS} more` : ""} (each also as ${PROP_PREFIX}<name>)`
    : "";
  return fail(
    `unknown metadata field "${key}"${near.length ? ` — ${didYouMean(near)}` : ""} — known fields: ${ALL_FIELDS.join(", ")}${listed}`,
  );
}

/**
 * Validates a Chroma `whereDocument` filter and normalises it. `{}`/`null` mean no filter.
 *
 * @example
 * ```ts
 * normaliseWhereDocument({ $contains: "DRV8833" }); // { kind: "doc", op: "$contains", value: "DRV8833" }
 * ```
 */
export function normaliseWhereDocument(wd: unknown): DocNode | undefined {
  return topLevel(wd, "whereDocument", (o) => docNode(o, new Walk("whereDocument")));
}

function docNode(obj: Record<string, unknown>, walk: Walk): DocNode {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj))
    fail(`a whereDocument clause must be a JSON object, got ${show(obj)}`);
  const keys = Object.keys(obj);
  if (keys.length !== 1)
    fail(
      `a whereDocument clause must have exactly one key, got ${keys.length}${keys.length ? ` (${keys.map((k) => `"${k}"`).join(", ")})` : ""} — combine them with $and`,
    );
  const op = keys[0];
  const val = obj[op];
  if (op === "$and" || op === "$or") return combine(op, val, walk, (o) => docNode(o, walk));
  walk.condition();
  if (!DOC_OPS.includes(op))
    fail(`unknown whereDocument operator "${op}" — use one of ${DOC_OPS.join(", ")}, $and, $or`);
  if (typeof val !== "string" || val === "") fail(`whereDocument "${op}" needs a non-empty string, got ${show(val)}`);
  if (op === "$regex" || op === "$not_regex") {
    const regex = compileDocRegex(val as string, op);
    // each pattern is within its cap; many together would cost as much as one far over it
    if ((walk.steps += regex.steps) > REGEX_LIMITS.filterSteps)
      fail(
        `the whereDocument filter's patterns compile to over ${REGEX_LIMITS.filterSteps.toLocaleString("en-US")} steps together — use fewer or simpler patterns, or narrow the search with where`,
      );
    return { kind: "doc", op: op as "$regex", value: val as string, regex };
  }
  return { kind: "doc", op: op as "$contains", value: val as string };
}

/**
 * The one operator of a field's condition and its operand: `{"$gte": 4}` is `$gte` 4; a bare value
 * is the shorthand, read with `shorthand` (`$eq`, or `$contains` for a list field).
 *
 * @example
 * ```ts
 * operatorOf("rating", { $gte: 4 }, "$eq"); // { op: "$gte", operand: 4 }
 * operatorOf("tags", "bread", "$contains"); // { op: "$contains", operand: "bread" }
 * ```
 */
function operatorOf(key: string, val: unknown, shorthand: string): { op: string; operand: unknown } {
  if (val === null || typeof val !== "object" || Array.isArray(val)) return { op: shorthand, operand: val };
  const ops = Object.keys(val);
  if (ops.length !== 1)
    fail(
      `the condition on "${key}" must have exactly one operator, got ${ops.length} (${ops.map((k) => `"${k}"`).join(", ")}) — combine them with $and`,
    );
  return { op: ops[0], operand: (val as Record<string, unknown>)[ops[0]] };
}
