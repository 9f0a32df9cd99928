/**
 * Notes' own properties (frontmatter keys) as the index keeps them: their names and the kinds of
 * value they hold. One module for the vault, which reads them, and the store, which filters on them.
 */

import type { PropValue } from "./shared/api.js";

export type { PropValue } from "./shared/api.js";

/** A note's properties by normalised name (see {@link propName}). */
export type Props = Record<string, PropValue>;

/** The kinds of value a property holds, as `vault-rag props` names them. */
export type PropType = "string" | "number" | "boolean" | "date" | "list";

/**
 * The name a property is filtered and listed by: as Obsidian treats names, case does not count
 * (lower-cased), spaces at the ends do not either (trimmed), and a run of spaces inside counts as
 * one. `""` for a name that holds nothing.
 *
 * @example
 * ```ts
 * propName("  Due   Date "); // "due date"
 * ```
 */
export function propName(raw: string): string {
  return raw.normalize("NFC").trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * The kind of a stored value.
 *
 * @example
 * ```ts
 * propType({ date: 1773446400 }); // "date"
 * ```
 */
export function propType(v: PropValue): PropType {
  if (Array.isArray(v)) return "list";
  if (typeof v === "object") return "date";
  return typeof v as "string" | "number" | "boolean";
}

/** The frontmatter keys a note's date is read from, first found first, unless configured (`VAULT_RAG_DATE_KEYS`). */
export const DEFAULT_DATE_KEYS: readonly string[] = ["updated", "modified", "date", "created"];

/**
 * Properties read back from their JSON (a `props` column, Chroma's `props` key); `{}` for an empty or unreadable one.
 *
 * @example
 * ```ts
 * readProps('{"status":"draft"}'); // { status: "draft" }
 * ```
 */
export function readProps(json: string): Props {
  try {
    const v: unknown = JSON.parse(json || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Props) : {};
  } catch {
    return {};
  }
}
