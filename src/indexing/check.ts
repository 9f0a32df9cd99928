import path from "node:path";
import { chunkNote } from "../chunk/index.js";
import {
  ChromaStore,
  removeStaleTemps,
  SCHEMA_VERSION,
  SqliteStore,
  staleTemps,
  type IndexWarning,
  type NoteEntry,
  type OpenStoreOptions,
} from "../store/index.js";
import { countFiles, fileTypeOf, readNote } from "../vault/index.js";
import { staleInVault } from "./stale.js";
import type { Fix } from "../errors.js";

/** What `check` found. */
export interface CheckReport {
  ok: boolean;
  index: string;
  problems: string[];
  /** The files the index holds (notes and attachments counted apart), its passages, vectors and keyword rows. */
  counts: { notes: number; attachments: number; chunks: number; vectors: number; ftsRows: number };
  orphanVectors: number;
  /**
   * Passages without vectors yet: pending, not damage (keyword-first indexing stores passages
   * first; the next `index` embeds what a stopped run left). Searches rank them by keyword.
   */
  chunksWithoutVectors: number;
  chunksWithoutNote: number;
  ftsMismatch: boolean;
  /** Notes whose file changed or vanished since indexing (not corruption: the next index updates them). */
  stale: number;
  /**
   * Temporary files of the vector snapshot that a stopped run left beside the index (their writer
   * is gone): not damage; `repair` and the next `index` remove them.
   */
  tempFiles: string[];
  repaired: string[];
  /** What indexing warned of about files, kept in the index (a binary file skipped, a note over its window budget): not damage. */
  warnings: IndexWarning[];
  /** What fixes a problem a repair cannot (a missing manifest, another storage version): a rebuild. */
  fix?: Fix;
}

/**
 * Verifies an index: manifest and storage version, orphan vectors, chunks without notes, notes
 * that lost their chunks, the BM25 index against the chunks, and stale notes (by the rule `status`
 * uses too, in stale.ts). Chunks without vectors are counted as pending, not as damage: the next
 * `index` embeds them. With `repair`, fixes what needs no embedding: orphans are removed, the BM25
 * index is rebuilt from the chunks, and notes with bad vectors or lost chunks are dropped so the
 * next index redoes them.
 *
 * @example
 * ```ts
 * const report = await checkIndex("/home/me/notes", "/home/me/notes/.vault-rag/index.db");
 * report.ok; // true
 * ```
 */
export async function checkIndex(vault: string, dbPath: string, opts: { repair?: boolean } = {}): Promise<CheckReport> {
  const store = SqliteStore.open(dbPath);
  const problems: string[] = [];
  const repaired: string[] = [];
  try {
    const manifest = await store.manifest();
    const {
      counts: held,
      orphanVectors,
      chunksWithoutVectors,
      chunksWithoutNote,
      ftsMismatch,
      badVectors,
      notesWithoutChunks,
    } = await store.integrity();
    const notes = await store.notes();
    const counts = { ...held, ...countFiles(notes.keys()) };
    const lost = chunklessNotes(vault, notesWithoutChunks, notes);
    // an index without a manifest and without chunks is merely unfinished; with chunks it is damaged
    if (!manifest && counts.chunks > 0) problems.push("the manifest is missing but chunks are stored");
    else if (manifest && manifest.schemaVersion !== SCHEMA_VERSION)
      problems.push(`storage version ${manifest.schemaVersion}, expected ${SCHEMA_VERSION}`);
    const rebuild = (!manifest && counts.chunks > 0) || (!!manifest && manifest.schemaVersion !== SCHEMA_VERSION);
    const dims = manifest?.embedder.dimensions;
    if (orphanVectors) problems.push(`${orphanVectors} vector(s) belong to no chunk`);
    if (chunksWithoutNote) problems.push(`${chunksWithoutNote} chunk(s) belong to no indexed note`);
    if (ftsMismatch) problems.push(`the keyword index holds ${counts.ftsRows} row(s) for ${counts.chunks} chunk(s)`);
    if (badVectors) problems.push(`${badVectors} chunk(s) have vectors without ${dims} dimensions`);
    if (lost.length)
      problems.push(
        `${lost.length} note(s) have no passages in the index though their text makes some (${lost
          .slice(0, 3)
          .map((p) => `"${p}"`)
          .join(", ")}${lost.length > 3 ? ", …" : ""}): no search finds them`,
      );
    // files beside the index, not in it: no damage, removed apart
    let tempFiles = staleTemps(dbPath);
    if (opts.repair && tempFiles.length) {
      const removed = removeStaleTemps(dbPath);
      if (removed.length) repaired.push(`removed ${removed.length} temporary file(s) a stopped run left`);
      tempFiles = tempFiles.filter((t) => !removed.includes(t));
    }
    const stale = staleInVault(vault, notes);
    if (opts.repair && problems.length) {
      const fixed = await store.repair({ drop: lost });
      if (fixed.orphanVectors) repaired.push(`removed ${fixed.orphanVectors} orphan vector(s)`);
      if (fixed.droppedNotes)
        repaired.push(`dropped ${fixed.droppedNotes} damaged note(s); the next index re-indexes them`);
      // rebuilt every time, but said only when it was wrong (a repair of one missing vector does not
      // report a rebuild of an intact keyword index)
      if (ftsMismatch) repaired.push("rebuilt the keyword index from the chunks");
    }
    return {
      ok: problems.length === 0 || (!!opts.repair && repaired.length > 0 && manifest !== undefined),
      index: dbPath,
      problems,
      counts,
      orphanVectors,
      chunksWithoutVectors,
      chunksWithoutNote,
      ftsMismatch,
      stale,
      tempFiles,
      repaired,
      warnings: await store.indexWarnings(),
      ...(rebuild ? { fix: { kind: "rebuild" as const, db: dbPath } } : {}),
    };
  } finally {
    await store.close();
  }
}

/**
 * Verifies an index on a Chroma server: the manifest, and the local keyword sidecar against the
 * collection (same number of chunks). With `repair`, the sidecar is rebuilt from the collection.
 *
 * @example
 * ```ts
 * const report = await checkChromaIndex("/home/me/notes", "chroma://localhost:8000/notes");
 * ```
 */
export async function checkChromaIndex(
  vault: string,
  db: string,
  opts: { repair?: boolean; store?: OpenStoreOptions } = {},
): Promise<CheckReport> {
  const store = await ChromaStore.open(db, opts.store);
  const problems: string[] = [];
  const repaired: string[] = [];
  try {
    const manifest = await store.manifest();
    const server = await store.serverCount();
    let local = await store.count();
    // passages the sidecar holds without vectors are pending (keyword-first indexing), not on the server yet
    let coverage = await store.vectorCoverage();
    const rebuild = !manifest && server > 0;
    if (rebuild) problems.push("the manifest is missing but chunks are stored");
    const mismatch = coverage.withVectors !== server;
    if (mismatch)
      problems.push(`the keyword sidecar holds ${coverage.withVectors} chunk(s) with vectors, the server ${server}`);
    if (opts.repair && mismatch) {
      await store.rebuildSidecar();
      local = await store.count();
      coverage = await store.vectorCoverage();
      repaired.push(`rebuilt the keyword sidecar from the server (${local.chunks} chunks)`);
    }
    const files = await store.notes();
    const stale = staleInVault(vault, files);
    const counts = { ...countFiles(files.keys()), chunks: server, vectors: server, ftsRows: local.chunks };
    const ok = problems.length === 0 || (repaired.length > 0 && coverage.withVectors === server);
    return {
      ok,
      index: store.location,
      problems,
      counts,
      orphanVectors: 0,
      chunksWithoutVectors: coverage.chunks - coverage.withVectors,
      chunksWithoutNote: 0,
      ftsMismatch: coverage.withVectors !== server,
      stale,
      tempFiles: [],
      repaired,
      warnings: await store.indexWarnings(),
      ...(rebuild ? { fix: { kind: "rebuild" as const, db: store.location } } : {}),
    };
  } finally {
    await store.close();
  }
}

/**
 * The notes among `paths` (notes with no chunk in the index) whose file is as it was indexed and
 * whose text does make passages: their chunks were lost (a crash of another program on the file, a
 * hand edit of the database), and `index` would call them unchanged. An empty note makes none.
 */
function chunklessNotes(vault: string, paths: string[], notes: Map<string, NoteEntry>): string[] {
  const lost: string[] = [];
  for (const p of paths) {
    // an attachment with no passage is one that could not be read, warned of (attachment_unreadable)
    if (fileTypeOf(p) !== "note") continue;
    // read once: a file gone or unreadable is no note here (stale, which `index` handles)
    const note = readNote({ path: p, absPath: path.join(vault, p), mtime: 0, size: 0 });
    // a changed file is stale, and `index` re-reads it anyway
    if (note && note.hash === notes.get(p)?.hash && chunkNote(note).length > 0) lost.push(p);
  }
  return lost;
}
