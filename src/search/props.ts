import { isoDateSeconds } from "../dates.js";
import { VaultRagError } from "../errors.js";
import { propName, propType, type PropType, type PropValue } from "../props.js";
import type { DateSources } from "../shared/api.js";

export type { DateSources };
import { fieldKind, PROP_PREFIX, type NoteProperties, type Store, type Where } from "../store/index.js";

/** A property as `vault-rag props` lists it: how many notes have it, and of which types its values are. */
export interface PropCount {
  /** Its normalised name. */
  name: string;
  /** The name a filter reaches it by: the name, or `prop.<name>` when a field has that name. */
  field: string;
  notes: number;
  /** Notes per type of value. */
  types: Partial<Record<PropType, number>>;
}

/** One value of a property, as `vault-rag props <name>` lists it. */
export interface PropValueCount {
  /** The value as text: a date as its ISO date (`2026-03-14`, or with its time when it has one). */
  value: string;
  type: PropType;
  /** Notes that hold it (a list property: notes whose list holds it). */
  notes: number;
}

/**
 * The properties the notes hold, the most common first (then by name).
 *
 * @example
 * ```ts
 * propCounts(await store.noteProperties());
 * // [{ name: "status", field: "status", notes: 12, types: { string: 12 } }, { name: "path", field: "prop.path", … }]
 * ```
 */
export function propCounts(notes: NoteProperties[]): PropCount[] {
  const counts = new Map<string, PropCount>();
  for (const n of notes)
    for (const [name, v] of Object.entries(n.props)) {
      let c = counts.get(name);
      if (!c) counts.set(name, (c = { name, field: propField(name), notes: 0, types: {} }));
      c.notes++;
      const t = propType(v);
      c.types[t] = (c.types[t] ?? 0) + 1;
    }
  return [...counts.values()].sort((a, b) => b.notes - a.notes || a.name.localeCompare(b.name));
}

/**
 * The name a filter reaches a property by, as `props` lists it: the name itself, or `prop.<name>`
 * when the bare name would mean something else to a filter: a field's name (`path`), a name that
 * begins with `prop.` (the filter would strip it) or with `$` (an operator's mark).
 *
 * @example
 * ```ts
 * propField("status");    // "status"
 * propField("path");      // "prop.path"
 * propField("prop.path"); // "prop.prop.path"
 * propField("$id");       // "prop.$id"
 * ```
 */
export function propField(name: string): string {
  return fieldKind(name) || name.startsWith(PROP_PREFIX) || name.startsWith("$") ? PROP_PREFIX + name : name;
}

/** A date as a listing shows it: the day, with the time when it is not local midnight. */
function shownDate(seconds: number): string {
  const d = new Date(seconds * 1000);
  const pad = (x: number) => String(x).padStart(2, "0");
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return d.getHours() || d.getMinutes() || d.getSeconds()
    ? `${day}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
    : day;
}

/** A stored value's items as a listing counts them. */
function items(v: PropValue): { value: string; type: PropType }[] {
  if (Array.isArray(v)) return v.map((x) => ({ value: x, type: "list" as const }));
  if (typeof v === "object") return [{ value: shownDate(v.date), type: "date" }];
  return [{ value: String(v), type: propType(v) }];
}

/**
 * The values one property takes, the most common first; `undefined` when no note has it. A name is
 * read as a filter reads it (`Status`, `prop.status`).
 *
 * @example
 * ```ts
 * propValueCounts(await store.noteProperties(), "Status");
 * // [{ value: "draft", type: "string", notes: 3 }, { value: "final", type: "string", notes: 1 }]
 * ```
 */
export function propValueCounts(notes: NoteProperties[], name: string): PropValueCount[] | undefined {
  const key = propName(name.startsWith(PROP_PREFIX) ? name.slice(PROP_PREFIX.length) : name);
  const counts = new Map<string, PropValueCount>();
  let found = false;
  for (const n of notes) {
    if (!Object.hasOwn(n.props, key)) continue;
    found = true;
    for (const it of items(n.props[key])) {
      const id = `${it.type}\u0000${it.value}`;
      const c = counts.get(id);
      if (c) c.notes++;
      else counts.set(id, { ...it, notes: 1 });
    }
  }
  if (!found) return undefined;
  return [...counts.values()].sort((a, b) => b.notes - a.notes || a.value.localeCompare(b.value));
}

/**
 * Where the notes' dates came from. A note counts as unreadable when one of `keys` that comes
 * before its date's source holds something other than a date.
 *
 * @example
 * ```ts
 * dateSources(await store.noteProperties(), ["updated", "created"]);
 * // { sources: { updated: 4, filename: 2, mtime: 30 }, unreadable: 1 }
 * ```
 */
export function dateSources(notes: NoteProperties[], keys: readonly string[]): DateSources {
  const sources: Record<string, number> = {};
  let unreadable = 0;
  const names = keys.map(propName);
  for (const n of notes) {
    sources[n.dateSource] = (sources[n.dateSource] ?? 0) + 1;
    const upTo = names.indexOf(n.dateSource);
    const before = upTo < 0 ? names : names.slice(0, upTo);
    if (before.some((k) => Object.hasOwn(n.props, k) && propType(n.props[k]) !== "date")) unreadable++;
  }
  return { sources, unreadable };
}

/**
 * The `where` clauses of `--prop key=value` (several are ANDed): the property equals the value, read
 * as a number, true/false or an ISO date when it is one and as text too, or is a list that holds it.
 * The name is read as a filter reads a key, and as `props` lists it: `prop.<name>` is the property
 * `<name>`. A pair with several `=` is read at each of them (the name `a=b` and the value `c`, or the
 * name `a` and the value `b=c`), and the readings whose name is one of the `known` properties kept
 * (a note matches by any of them); without `known`, or when none is known, at the first `=`.
 *
 * @example
 * ```ts
 * propClauses(["status=draft"]);
 * // [{ $or: [{ "prop.status": { $eq: "draft" } }, { "prop.status": { $contains: "draft" } }] }]
 * ```
 */
export function propClauses(pairs: readonly string[], known?: readonly string[]): Where[] {
  return pairs.map((pair) => {
    const all: { name: string; raw: string }[] = [];
    for (let at = pair.indexOf("="); at >= 0; at = pair.indexOf("=", at + 1)) {
      const given = pair.slice(0, at).trim();
      const name = propName(given.startsWith(PROP_PREFIX) ? given.slice(PROP_PREFIX.length) : given);
      const raw = pair.slice(at + 1).trim();
      if (name && raw) all.push({ name, raw });
    }
    // of several readings, those that name a property the index holds (any one, when none does:
    // the filter names the closest)
    const held = all.length > 1 && known ? all.filter((r) => known.includes(r.name)) : [];
    const readings = (held.length ? held : all.slice(0, 1)).flatMap((r) => propEquals(PROP_PREFIX + r.name, r.raw));
    if (!readings.length)
      throw new VaultRagError(
        "usage",
        `vault-rag: --prop needs a property and a value, like status=draft, got ${JSON.stringify(pair)}`,
      );
    return { $or: readings };
  });
}

/**
 * The clauses of a property `key` that equals `raw`, read as text, a number, true/false, or a list
 * holding it; a date alone (`2025-11-25`) matches any time of its day (`2025-11-25T08:02:35`).
 */
function propEquals(key: string, raw: string): Where[] {
  const typed: (string | number | boolean)[] = [raw];
  if (Number.isFinite(Number(raw)) && isoDateSeconds(raw) === undefined) typed.push(Number(raw));
  if (raw === "true" || raw === "false") typed.push(raw === "true");
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw) && isoDateSeconds(raw) !== undefined;
  return [
    ...typed.map((v) => ({ [key]: { $eq: v } })),
    ...(day ? [{ $and: [{ [key]: { $gte: raw } }, { [key]: { $lte: `${raw}T23:59:59` } }] }] : []),
    { [key]: { $contains: raw } },
  ];
}

/**
 * Whether `--prop` pairs need the index's property names to be read ({@link propClauses}): one holds
 * several `=`.
 *
 * @example
 * ```ts
 * propPairsNeedNames(["a=b=c"]); // true
 * ```
 */
export function propPairsNeedNames(pairs: readonly string[] | undefined): boolean {
  return !!pairs?.some((p) => p.indexOf("=") !== p.lastIndexOf("="));
}

/**
 * The property names the index holds, as a filter's bare names may reach them.
 *
 * @example
 * ```ts
 * await propNames(store); // ["status", "type", "rating"]
 * ```
 */
export async function propNames(store: Store): Promise<string[]> {
  return propCounts(await store.noteProperties()).map((p) => p.name);
}
