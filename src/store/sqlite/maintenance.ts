import type Database from "better-sqlite3";
import { rebuildBacklinks } from "./backlinks.js";
import { KEYWORD_TEXT_RULES, markKeywordText, rebuildKeywordIndex } from "./ddl.js";
import { fillLinkNames } from "./link-names.js";
import { readManifest } from "./meta.js";
import { blobFitsSql } from "./vector-blob.js";
import { writeTransaction } from "./writes.js";

/** What {@link SqliteStore.integrity} found in the store's tables. */
export interface SqliteIntegrity {
  counts: { notes: number; chunks: number; vectors: number; ftsRows: number };
  /** Vectors (windows) whose chunk is gone. */
  orphanVectors: number;
  chunksWithoutVectors: number;
  /** Chunks whose note is not in the notes table. */
  chunksWithoutNote: number;
  /** The keyword index does not hold exactly one row per chunk. */
  ftsMismatch: boolean;
  /** Chunks with a vector whose length is not the manifest's dimensions (0 without a manifest). */
  badVectors: number;
  /** Notes with no chunk: an empty note, or one whose chunks were lost (`check` tells them apart by the note's text). */
  notesWithoutChunks: string[];
}

/** What {@link SqliteStore.repair} changed. */
export interface SqliteRepair {
  /** Vectors removed because their chunk was gone. */
  orphanVectors: number;
  /** Notes dropped (chunks, vectors and note row) because a chunk had a bad vector or no note (a chunk without vectors is pending, and kept). */
  droppedNotes: number;
}

/**
 * Counts what `vault-rag check` verifies, from one snapshot (see {@link SqliteStore.integrity}).
 *
 * @example
 * ```ts
 * checkIntegrity(db).orphanVectors; // 0 on a healthy index
 * ```
 */
export function checkIntegrity(db: Database.Database): SqliteIntegrity {
  const one = (sql: string) => db.prepare(sql).pluck().get() as number;
  return db
    .transaction((): SqliteIntegrity => {
      const counts = {
        notes: one("SELECT count(*) FROM notes"),
        chunks: one("SELECT count(*) FROM chunks"),
        vectors: one("SELECT count(*) FROM windows"),
        ftsRows: one("SELECT count(*) FROM fts_docsize"),
      };
      const dims = readManifest(db)?.embedder.dimensions;
      return {
        counts,
        orphanVectors: one("SELECT count(*) FROM windows WHERE chunk NOT IN (SELECT rowid FROM chunks)"),
        chunksWithoutVectors: one("SELECT count(*) FROM chunks WHERE rowid NOT IN (SELECT chunk FROM windows)"),
        chunksWithoutNote: one("SELECT count(*) FROM chunks WHERE path NOT IN (SELECT path FROM notes)"),
        ftsMismatch:
          counts.ftsRows !== counts.chunks ||
          one("SELECT count(*) FROM fts_docsize WHERE id NOT IN (SELECT rowid FROM chunks)") > 0,
        badVectors: dims
          ? one(`SELECT count(DISTINCT chunk) FROM windows WHERE NOT ${blobFitsSql("vector", dims)}`)
          : 0,
        notesWithoutChunks: db
          .prepare("SELECT path FROM notes WHERE path NOT IN (SELECT path FROM chunks) ORDER BY path")
          .pluck()
          .all() as string[],
      };
    })
    .deferred();
}

/**
 * Reads the keyword index's text again when it was read by other rules than today's (see
 * {@link SqliteStore.upgradeKeywordText}). Returns whether it rebuilt.
 *
 * @example
 * ```ts
 * if (rereadKeywordText(db, file)) log.info("keyword index read again");
 * ```
 */
export function rereadKeywordText(db: Database.Database, file: string): boolean {
  const rules = db.prepare("SELECT value FROM meta WHERE key = 'keyword_text'").pluck().get();
  if (rules === KEYWORD_TEXT_RULES) return false;
  writeTransaction(
    db,
    file,
    () => {
      rebuildKeywordIndex(db);
      rebuildBacklinks(db);
      markKeywordText(db);
    },
    false,
  );
  return true;
}

/**
 * Repairs what needs no embedding, in one transaction (see {@link SqliteStore.repair}).
 *
 * @example
 * ```ts
 * repairIndex(db, file, { drop: ["notes/lost its chunks.md"] }).droppedNotes;
 * ```
 */
export function repairIndex(db: Database.Database, file: string, opts: { drop?: string[] } = {}): SqliteRepair {
  const dims = readManifest(db)?.embedder.dimensions;
  const fixed: SqliteRepair = { orphanVectors: 0, droppedNotes: 0 };
  writeTransaction(db, file, () => {
    fixed.orphanVectors = db.prepare("DELETE FROM windows WHERE chunk NOT IN (SELECT rowid FROM chunks)").run().changes;
    const paths = db
      .prepare(
        `SELECT DISTINCT path FROM chunks WHERE path NOT IN (SELECT path FROM notes)${dims ? ` OR rowid IN (SELECT chunk FROM windows WHERE NOT ${blobFitsSql("vector", dims)})` : ""}`,
      )
      .pluck()
      .all() as string[];
    for (const p of opts.drop ?? []) if (!paths.includes(p)) paths.push(p);
    const delV = db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = ?)");
    const del = db.prepare("DELETE FROM chunks WHERE path = ?");
    const delN = db.prepare("DELETE FROM notes WHERE path = ?");
    for (const p of paths) {
      delV.run(p);
      del.run(p);
      delN.run(p);
    }
    // the links read from the passages that are left
    fillLinkNames(db);
    fixed.droppedNotes = paths.length;
    // what a note that is gone said about others goes with it (the next index says it again)
    rebuildBacklinks(db);
    rebuildKeywordIndex(db);
    markKeywordText(db);
  });
  return fixed;
}
