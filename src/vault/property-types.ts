import fs from "node:fs";
import path from "node:path";
import { propName } from "../props.js";

/** A property's type as Obsidian's `.obsidian/types.json` names it. */
export type ObsidianType = "text" | "multitext" | "number" | "checkbox" | "date" | "datetime";

const TYPES: readonly string[] = ["text", "multitext", "number", "checkbox", "date", "datetime"];

/** Where Obsidian keeps the vault's property types. */
export const TYPES_FILE = ".obsidian/types.json";

/**
 * The property types a vault declares in `.obsidian/types.json` (`{"types": {"rating": "number"}}`),
 * by normalised name; empty when the file is missing or unreadable, and types Obsidian uses for its
 * own keys (`aliases`, `tags`) or does not know are left out.
 *
 * @example
 * ```ts
 * readPropertyTypes("/home/me/notes"); // Map { "rating" => "number", "created" => "datetime" }
 * ```
 */
export function readPropertyTypes(vault: string): Map<string, ObsidianType> {
  const out = new Map<string, ObsidianType>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(vault, TYPES_FILE), "utf8"));
  } catch {
    return out;
  }
  const types = (parsed as { types?: unknown } | null)?.types;
  if (!types || typeof types !== "object" || Array.isArray(types)) return out;
  for (const [name, t] of Object.entries(types as Record<string, unknown>))
    if (typeof t === "string" && TYPES.includes(t) && propName(name)) out.set(propName(name), t as ObsidianType);
  return out;
}

/**
 * A frontmatter value read as its declared type: a `number` written as text (`"8"`) is the number,
 * a `checkbox` written `"true"` is true, a `text` written `8` is `"8"`, a `multitext` of one value is
 * a list of it; a value that is not of its type is left as written (dates are read as dates
 * whatever their type).
 *
 * @example
 * ```ts
 * asDeclared("8", "number");   // 8
 * asDeclared("soon", "number"); // "soon"
 * ```
 */
export function asDeclared(v: unknown, type: ObsidianType | undefined): unknown {
  if (type === "number" && typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  if (type === "checkbox" && typeof v === "string" && /^(true|false)$/i.test(v.trim()))
    return v.trim().toLowerCase() === "true";
  if (type === "text" && (typeof v === "number" || typeof v === "boolean")) return String(v);
  if (type === "multitext" && (typeof v === "string" || typeof v === "number")) return [v];
  return v;
}

/**
 * A key of the declared types, which the index keeps beside its chunker version: a change to them
 * reads every note again. `""` when none are declared.
 *
 * @example
 * ```ts
 * typesKey(new Map([["rating", "number"]])); // "rating:number"
 * ```
 */
export function typesKey(types: ReadonlyMap<string, ObsidianType>): string {
  return [...types]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([n, t]) => `${n}:${t}`)
    .join(",");
}
