import type Database from "better-sqlite3";
import type { StoreCounts, VectorCoverage } from "../types.js";
import { readGeneration } from "./meta.js";
import { vectorCount } from "./vectors.js";
import { beginHeld } from "./writes.js";

/**
 * The index's counts: notes, chunks, and chunks with vectors. Counting reads a whole table or
 * index (0.45 s at 325,884 chunks, most of a cold search's own work), so the counts are kept in
 * `meta` under {@link COUNTS_KEY} with the write generation they were taken at, and read from there
 * while no write has moved the generation. This module owns that key.
 */
export interface IndexCounts extends StoreCounts, VectorCoverage {}

/** The `meta` key that holds the counts and their generation. */
const COUNTS_KEY = "counts";

/** Which counts a caller needs: the chunks with vectors cost a second scan, and a keyword search needs none of them. */
export type CountsWanted = "notes and chunks" | "all";

interface Kept extends Partial<IndexCounts> {
  generation: string;
}

/**
 * The counts at the current write generation: those kept in `meta` when taken at it, else counted
 * (only what `wanted` asks, and what was kept at it besides), and kept for the next reader when
 * the connection can write and no other connection holds the write lock. One read transaction, so
 * the counts and their generation agree.
 *
 * @example
 * ```ts
 * readCounts(db, "all"); // { generation: "41", notes: 1871, chunks: 2064, withVectors: 2064 }
 * ```
 */
export function readCounts(db: Database.Database, wanted: CountsWanted): Kept {
  const got = db
    .transaction((): { kept: Kept; counted: boolean } => {
      const generation = readGeneration(db);
      const kept = keptAt(db, generation) ?? { generation };
      let counted = false;
      if (kept.notes === undefined || kept.chunks === undefined) {
        kept.notes = db.prepare("SELECT count(*) FROM notes").pluck().get() as number;
        kept.chunks = db.prepare("SELECT count(*) FROM chunks").pluck().get() as number;
        counted = true;
      }
      if (wanted === "all" && kept.withVectors === undefined) {
        kept.withVectors = vectorCount(db);
        counted = true;
      }
      return { kept, counted };
    })
    .deferred();
  if (got.counted) keep(db, got.kept);
  return got.kept;
}

/** The counts kept in `meta`, when they were taken at `generation`. */
function keptAt(db: Database.Database, generation: string): Kept | undefined {
  const json = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(COUNTS_KEY) as string | undefined;
  if (!json) return undefined;
  try {
    const kept = JSON.parse(json) as Kept;
    const whole = (n: unknown) => n === undefined || (Number.isInteger(n) && (n as number) >= 0);
    if (kept.generation !== generation || !whole(kept.notes) || !whole(kept.chunks) || !whole(kept.withVectors))
      return undefined;
    return { generation, notes: kept.notes, chunks: kept.chunks, withVectors: kept.withVectors };
  } catch {
    return undefined; // a value this module did not write: counted again, and overwritten
  }
}

/**
 * Keeps counts for the next reader, unless the connection is read-only, another connection holds
 * the write lock (a reader never waits on a writer for this), or a write moved the generation since
 * they were taken. Not a write of the index's content: the generation stays.
 */
function keep(db: Database.Database, counts: Kept): void {
  // (inside a caller's transaction, a Chroma store's held write, the counts wait for the next reader)
  if (db.readonly || db.inTransaction) return;
  let held;
  try {
    held = beginHeld(db, false);
  } catch {
    return; // a file that cannot be written (a read-only folder): counted again next time
  }
  if (!held) return;
  try {
    if (readGeneration(db) === counts.generation)
      db.prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ).run(COUNTS_KEY, JSON.stringify(counts));
    held.commit();
  } catch {
    // kept or not, the counts returned are right
  } finally {
    held.rollback();
  }
}
