import type Database from "better-sqlite3";
import type { DenseProgress, IndexWarning, StoredWindow } from "../types.js";
import { vectorToBlob } from "./rows.js";
import { writeTransaction } from "./writes.js";

/** A chunk has vectors when it has at least one window row. */
const HAS_WINDOWS = "EXISTS (SELECT 1 FROM windows w WHERE w.chunk = c.rowid)";

/**
 * How many chunks have vectors: a scan of every chunk (see counts.ts, which keeps the figure).
 *
 * @example
 * ```ts
 * vectorCount(db); // 2140
 * ```
 */
export function vectorCount(db: Database.Database): number {
  return db.prepare(`SELECT count(*) FROM chunks c WHERE ${HAS_WINDOWS}`).pluck().get() as number;
}

/**
 * The paths of notes with a chunk that has no windows, in path order after `after`, at most
 * `limit`. Read through the path index, so a dense phase that walks them batch by batch reads each
 * chunk about once.
 *
 * @example
 * ```ts
 * pendingVectorPaths(db, 100, "a.md"); // ["b.md", "c/d.md"]
 * ```
 */
export function pendingVectorPaths(db: Database.Database, limit: number, after?: string): string[] {
  return db
    .prepare(`SELECT DISTINCT c.path FROM chunks c WHERE c.path > ? AND NOT ${HAS_WINDOWS} ORDER BY c.path LIMIT ?`)
    .pluck()
    .all(after ?? "", Math.max(1, Math.floor(limit))) as string[];
}

/**
 * Which of `ids` name chunks that have no windows.
 *
 * @example
 * ```ts
 * withoutVectors(db, ["3f…", "9a…"]); // Set { "9a…" }
 * ```
 */
export function withoutVectors(db: Database.Database, ids: string[]): Set<string> {
  const stmt = db.prepare(`SELECT 1 FROM chunks c WHERE c.id = ? AND NOT ${HAS_WINDOWS}`).pluck();
  return new Set(ids.filter((id) => stmt.get(id)));
}

/**
 * Writes windows for chunks that have none, and the dense phase's progress, in one write; chunks
 * that are gone or already have windows are skipped. Returns how many chunks got windows.
 *
 * @example
 * ```ts
 * setVectors(db, file, [{ id, windows }], { windows: 900, done: 64, started, updated });
 * ```
 */
export function setVectors(
  db: Database.Database,
  file: string,
  items: { id: string; windows: StoredWindow[] }[],
  progress: DenseProgress | undefined,
): number {
  const find = db.prepare(`SELECT c.rowid FROM chunks c WHERE c.id = ? AND NOT ${HAS_WINDOWS}`).pluck();
  const ins = db.prepare("INSERT INTO windows (chunk, hash, vector) VALUES (?, ?, ?)");
  let n = 0;
  writeTransaction(db, file, () => {
    for (const { id, windows } of items) {
      const rowid = find.get(id) as number | undefined;
      if (rowid === undefined || !windows.length) continue;
      for (const w of windows) ins.run(rowid, w.hash, vectorToBlob(w.vector));
      n++;
    }
    if (progress) writeProgress(db, progress);
  });
  return n;
}

/**
 * Records the dense phase's progress (`undefined` clears it), inside the caller's transaction.
 *
 * @example
 * ```ts
 * writeProgress(db, { windows: 900, done: 64, started, updated });
 * ```
 */
export function writeProgress(db: Database.Database, progress: DenseProgress | undefined): void {
  if (!progress) db.prepare("DELETE FROM meta WHERE key = 'dense_progress'").run();
  else
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('dense_progress', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(JSON.stringify(progress));
}

/**
 * The dense phase's progress as last recorded, or undefined.
 *
 * @example
 * ```ts
 * readProgress(db)?.done; // 2140
 * ```
 */
export function readProgress(db: Database.Database): DenseProgress | undefined {
  const raw = db.prepare("SELECT value FROM meta WHERE key = 'dense_progress'").pluck().get() as string | undefined;
  return raw ? (JSON.parse(raw) as DenseProgress) : undefined;
}

/**
 * Records indexing's warnings about files (replacing those recorded), inside the caller's transaction.
 *
 * @example
 * ```ts
 * writeWarnings(db, [{ code: "note_skipped", path: "scan.md", message: 'vault-rag: skipped "scan.md": binary' }]);
 * ```
 */
export function writeWarnings(db: Database.Database, warnings: IndexWarning[]): void {
  if (!warnings.length) db.prepare("DELETE FROM meta WHERE key = 'index_warnings'").run();
  else
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('index_warnings', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(JSON.stringify(warnings));
}

/**
 * Indexing's warnings about files as last recorded (none when none were).
 *
 * @example
 * ```ts
 * readWarnings(db); // [{ code: "note_skipped", path: "scan.md", message: … }]
 * ```
 */
export function readWarnings(db: Database.Database): IndexWarning[] {
  const raw = db.prepare("SELECT value FROM meta WHERE key = 'index_warnings'").pluck().get() as string | undefined;
  return raw ? (JSON.parse(raw) as IndexWarning[]) : [];
}
