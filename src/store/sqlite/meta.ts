import type Database from "better-sqlite3";
import type { Manifest } from "../types.js";

/**
 * The manifest recorded in the index, or undefined before the first indexing run wrote one.
 *
 * @example
 * ```ts
 * const dims = readManifest(db)?.embedder.dimensions;
 * ```
 */
export function readManifest(db: Database.Database): Manifest | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'manifest'").get() as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as Manifest) : undefined;
}

/**
 * The write generation, bumped by every write transaction that changes chunks or notes.
 *
 * @example
 * ```ts
 * if (readGeneration(db) !== seen) reload();
 * ```
 */
export function readGeneration(db: Database.Database): string {
  return (
    (db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() as string | undefined) ?? "0"
  ).toString();
}

/**
 * A random identity given to the file when it is created, so snapshots of other files never match.
 *
 * @example
 * ```ts
 * const key = `${readIndexId(db)}:${readGeneration(db)}:pooled`;
 * ```
 */
export function readIndexId(db: Database.Database): string {
  const id = db.prepare("SELECT value FROM meta WHERE key = 'index_id'").pluck().get() as string | undefined;
  return id ?? "unknown";
}
