import { isoDateSeconds } from "../dates.js";
import { DEFAULT_DATE_KEYS, propName, type Props, type PropValue } from "../props.js";
import { asDeclared, type ObsidianType } from "./property-types.js";

export { DEFAULT_DATE_KEYS, propName, propType, type Props, type PropType, type PropValue } from "../props.js";

/** Frontmatter keys read as a note's own fields, not as properties: its tags and aliases. */
export const NOT_PROPERTIES = new Set(["tags", "tag", "aliases", "alias"]);

/** The most properties of one note the index keeps (in the order the frontmatter gives them). */
export const MAX_NOTE_PROPS = 100;
/** The most values of a list property kept, and the longest text value kept (longer ones are cut). */
export const MAX_PROP_VALUES = 100;
export const MAX_PROP_CHARS = 500;

/** A frontmatter value as a property value, or undefined when it is none (null, a mapping, empty). */
function readValue(v: unknown): PropValue | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : { date: Math.floor(v.getTime() / 1000) };
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string") {
    const text = v.trim();
    if (!text) return undefined;
    const date = isoDateSeconds(text);
    return date === undefined ? text.slice(0, MAX_PROP_CHARS) : { date };
  }
  if (Array.isArray(v)) {
    const items: string[] = [];
    for (const x of v) {
      if (items.length >= MAX_PROP_VALUES) break;
      const one = x instanceof Date ? x.toISOString().slice(0, 10) : x;
      if (typeof one === "string" || typeof one === "number" || typeof one === "boolean") {
        const text = String(one).trim().slice(0, MAX_PROP_CHARS);
        if (text && !items.includes(text)) items.push(text);
      }
    }
    return items.length ? items : undefined;
  }
  return undefined;
}

/**
 * A note's properties from its parsed frontmatter: every key with a scalar or list value, by its
 * normalised name ({@link propName}); a key the note also uses for tags or aliases is left out, as is
 * a null value, a mapping, an empty list or text. Texts that are ISO dates are dates; a list keeps its
 * scalar items as texts. When two keys normalise to one name, the first wins. A property of a declared
 * type (`types`, from `.obsidian/types.json`) is read as that type ({@link asDeclared}).
 *
 * @example
 * ```ts
 * readProperties({ Type: "Uni Note", rating: 4, due: "2026-03-14", topics: ["ml", 2], tags: ["x"] });
 * // { type: "Uni Note", rating: 4, due: { date: … }, topics: ["ml", "2"] }
 * ```
 */
export function readProperties(data: Record<string, unknown>, types?: ReadonlyMap<string, ObsidianType>): Props {
  // no prototype: `constructor` and `__proto__` are names like any other
  const props: Props = Object.create(null) as Props;
  let n = 0;
  for (const [key, raw] of Object.entries(data)) {
    if (n >= MAX_NOTE_PROPS) break;
    const name = propName(key);
    if (!name || NOT_PROPERTIES.has(name) || Object.hasOwn(props, name)) continue;
    const value = readValue(types?.size ? asDeclared(raw, types.get(name)) : raw);
    if (value === undefined) continue;
    Object.defineProperty(props, name, { value, enumerable: true, writable: true, configurable: true });
    n++;
  }
  return props;
}

/** Where a note's date came from: a frontmatter key (`updated`, …), its file name, or its file's mtime. */
export type DateSource = string;

/** A date at the start of a file name: `2026-03-14.md`, `2026-03-14 Meeting.md`. */
const FILE_NAME_DATE = /^(\d{4}-\d{2}-\d{2})(?![\d])/;

/**
 * A note's one date: the first of `keys` its properties hold as a date, else a date its file name
 * starts with, else the file's mtime. A key whose value is no date (`updated: last week`) is passed
 * over, and named in `unread`.
 *
 * @example
 * ```ts
 * noteDate("daily/2026-03-14.md", { updated: "soon" }, 1_800_000_000);
 * // { date: <2026-03-14, local midnight>, source: "filename", unread: ["updated"] }
 * ```
 */
export function noteDate(
  path: string,
  props: Props,
  mtime: number,
  keys: readonly string[] = DEFAULT_DATE_KEYS,
): { date: number; source: DateSource; unread: string[] } {
  const unread: string[] = [];
  for (const raw of keys) {
    const key = propName(raw);
    const v = Object.hasOwn(props, key) ? props[key] : undefined;
    if (v === undefined) continue;
    if (typeof v === "object" && !Array.isArray(v)) return { date: v.date, source: key, unread };
    unread.push(key);
  }
  const name = path.slice(path.lastIndexOf("/") + 1);
  const m = FILE_NAME_DATE.exec(name);
  const fromName = m ? isoDateSeconds(m[1]) : undefined;
  if (fromName !== undefined) return { date: fromName, source: "filename", unread };
  return { date: mtime, source: "mtime", unread };
}
