import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { VaultRagError } from "../../errors.js";
import { makeDir } from "../../make-dir.js";
import { INDEX_DIR, isVaultIndex } from "../../config.js";
import { shellArg } from "../../shell-arg.js";
import { writeNewFile } from "../../safe-file.js";
import type { RecordMetadata } from "../schema.js";
import {
  SCHEMA_VERSION,
  type KeywordRanking,
  type KeywordStats,
  type Spelling,
  type SpellingQuery,
  type Manifest,
  type NoteEntry,
  type NoteLink,
  type QueryFilter,
  type ScoredRecord,
  type Store,
  type StoreCounts,
  type StoreRecord,
} from "../types.js";
import { compileDocument, compileWhere, decodeList, encodeList, type SqlCondition } from "./compile.js";
import { cjkBigrams } from "./cjk.js";
import { KeywordSpellings } from "./spellings.js";
import {
  backlinkMatch,
  createBacklinkTables,
  hasBacklinks,
  readLinks,
  rebuildBacklinks,
  relink,
  writeLinks,
} from "./backlinks.js";
import { FTS_TOKENIZE, phraseQuery, proximityQuery, toFtsQuery } from "./fts-query.js";
import { DamagedSnapshotError, DenseIndex } from "./dense-index.js";
import { MetaColumns } from "./meta-columns.js";
import { checkQueryVector, checkWindows, pooledVector } from "../windows.js";
import type { WhereNode } from "../where.js";
import { compileDocRegex, containsText, withDocumentBudget } from "../regex.js";
import type { Logger } from "../../log.js";
import { DocumentRows } from "./document-rows.js";
import { openDatabase } from "./read-only.js";

/** BM25 column weights: title, aliases and breadcrumb weigh more than body text. */
export const BM25_WEIGHTS = { title: 4, aliases: 4, section: 2, body: 1 };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, hash TEXT NOT NULL, mtime INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL, title TEXT NOT NULL, section TEXT NOT NULL, folder TEXT NOT NULL, top_folder TEXT NOT NULL,
  mtime INTEGER NOT NULL, word_count INTEGER NOT NULL, ordinal INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  tags TEXT NOT NULL, links TEXT NOT NULL, aliases TEXT NOT NULL, hash TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS windows (rowid INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS windows_chunk ON windows(chunk);
CREATE INDEX IF NOT EXISTS windows_hash ON windows(hash);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(hash);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, aliases, section, text, content = 'chunks', content_rowid = 'rowid', tokenize = '${FTS_TOKENIZE}');
`;

const COLUMNS =
  "c.id, c.path, c.title, c.section, c.folder, c.top_folder, c.mtime, c.word_count, c.ordinal, c.start_line, c.end_line, c.tags, c.links, c.aliases, c.hash, c.text";

/**
 * Storage version 2 kept one vector per chunk in `vectors` (rowid = the chunk's); version 3 keeps
 * one per window in `windows`. An index of version 2 is moved over in place when opened for writing:
 * each old vector becomes its chunk's one window, keyed by the chunk's embedded-text hash, so a
 * window whose text is unchanged is never embedded again.
 */
const UPGRADE_FROM_2 = `
INSERT INTO windows (chunk, hash, vector) SELECT v.rowid, c.hash, v.vector FROM vectors v JOIN chunks c ON c.rowid = v.rowid;
DROP TABLE vectors;
`;

/** A chunks row: the metadata with list fields still encoded, plus text and query extras. */
type Row = Omit<RecordMetadata, "tags" | "links" | "aliases"> & {
  id: string;
  tags: string;
  links: string;
  aliases: string;
  text: string;
  d?: number;
  /** 1 when the note's backlink text matched (keyword queries). */
  b?: number;
};

/** Options for opening the SQLite store. */
export interface SqliteStoreOptions {
  /** Create the file (and its folder) when missing. Default false: a missing file is a `no_index` error. */
  create?: boolean;
  readonly?: boolean;
  /** How long to wait for another writer, in ms. Default 10 000. */
  busyTimeoutMs?: number;
  /**
   * `"cache"`: the Chroma store's local sidecar. It keeps notes, chunks, metadata and the BM25 index,
   * and the window vectors it is given as an embedding cache only (no dense queries): the server
   * holds one pooled vector per chunk, and a rebuild would otherwise embed long passages again.
   * Unset: a full store, dense queries included.
   */
  vectors?: "cache";
  /** Told (info) when a read-only folder has the index opened immutable (see openDatabase). */
  log?: Logger;
}

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
  /** Notes dropped (chunks, vectors and note row) because a chunk had no vector, a bad vector or no note. */
  droppedNotes: number;
}

/**
 * Refuses an index in a vault's `.vault-rag/` folder when that folder is a symbolic link: a vault
 * shared with such a link (a clone, a synced folder) would have the index, its lock and its cache
 * written wherever the link points. An index elsewhere is named with `--db`.
 *
 * @example
 * ```ts
 * refuseLinkedIndexFolder("/home/me/notes/.vault-rag/index.db"); // throws when .vault-rag is a link
 * ```
 */
export function refuseLinkedIndexFolder(file: string): void {
  const dir = path.dirname(file);
  if (path.basename(dir) !== INDEX_DIR) return;
  let linked: boolean;
  try {
    linked = fs.lstatSync(dir).isSymbolicLink();
  } catch {
    return; // not there yet: it is created as a folder
  }
  if (!linked) return;
  let target = fs.readlinkSync(dir);
  try {
    target = fs.realpathSync(dir);
  } catch {
    // a link to nothing: named as written
  }
  throw new VaultRagError(
    "io",
    `vault-rag: ${dir} is a symbolic link to ${target} — vault-rag keeps no index through a link in the vault, which could write outside it; remove the link, or name that place with --db ${shellArg(path.join(target, path.basename(file)))}`,
  );
}

/**
 * What to do about an index SQLite could not open, from what the path is: not a file (`/dev/null`,
 * a folder), a file this user may not read or write, or a folder it may not write.
 */
function openFix(file: string, code: string | undefined): string {
  // SQLite opens its journal files beside the index never through a link, and fails on one
  for (const side of ["-wal", "-shm", "-journal"])
    try {
      if (fs.lstatSync(file + side).isSymbolicLink())
        return ` — ${path.basename(file + side)} beside it is a symbolic link, which SQLite will not write through; remove it`;
    } catch {
      // not there
    }
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    // not there: SQLite was to create it, in a folder it could not write
  }
  if (st && !st.isFile()) return ` — it is not a file; give --db the path of an index file (or of one to create)`;
  if (st)
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch {
      return ` — this user may not read and write the file; check its permissions (ls -l ${shellArg(file)})`;
    }
  if (code === "SQLITE_CANTOPEN" || !st) return " — check the folder is writable";
  return "";
}

/** Encodes a vector for a BLOB column. */
export function vectorToBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Decodes a BLOB column into a vector (copying, so the buffer can be reused). */
export function blobToVector(b: Buffer): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

/**
 * The rules {@link rebuildKeywordIndex}'s text passes through (`vr_fts`), recorded in the index: an
 * index whose `keyword_text` differs is rebuilt by the next `index` ({@link SqliteStore.upgradeKeywordText}).
 * Change it when `vr_fts` does.
 */
// NFKC and the CJK ranges come from Node's Unicode data: a newer Unicode may read a character
// another way, and FTS5's 'delete' must be given what was inserted, so its version is a rule too
const KEYWORD_TEXT_RULES = `nfkc cjk-bigrams 1; unicode ${process.versions.unicode}`;

/** Records that the keyword index's text was read by today's {@link KEYWORD_TEXT_RULES}. */
function markKeywordText(db: Database.Database): void {
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('keyword_text', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(KEYWORD_TEXT_RULES);
}

/** A write lock taken by {@link SqliteStore.holdWrite}: `rollback` after `commit` does nothing. */
export interface HeldWrite {
  commit(): void;
  rollback(): void;
}

/** The tables, indexes and columns this version's SCHEMA and backlink tables make (read once). */
let currentShape: string | undefined;

/** What of a database's shape {@link schemaIsCurrent} compares: its objects and link_texts' columns. */
function shapeOf(db: Database.Database): string {
  const objects = db.prepare("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1").pluck().all();
  const columns = db.prepare("SELECT name FROM pragma_table_info('link_texts') ORDER BY 1").pluck().all();
  return JSON.stringify([objects, columns]);
}

/**
 * Whether opening `db` for writing would change nothing: it is of this storage version, has every
 * table, index and column today's schema makes, and an empty one has its keyword rules recorded.
 */
function schemaIsCurrent(db: Database.Database, version: number): boolean {
  if (version !== SCHEMA_VERSION) return false;
  if (currentShape === undefined) {
    const ref = new Database(":memory:");
    ref.exec(SCHEMA);
    createBacklinkTables(ref);
    currentShape = shapeOf(ref);
    ref.close();
  }
  if (shapeOf(db) !== currentShape) return false;
  if (db.prepare("SELECT 1 FROM chunks LIMIT 1").get()) return true;
  return db.prepare("SELECT value FROM meta WHERE key = 'keyword_text'").pluck().get() === KEYWORD_TEXT_RULES;
}

/** Rebuilds the keyword index from the chunks, as indexed: every field through `vr_fts`. */
function rebuildKeywordIndex(db: Database.Database): void {
  db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
  db.prepare(
    "INSERT INTO fts (rowid, title, aliases, section, text) SELECT rowid, vr_fts(title), vr_fts(aliases), vr_fts(section), vr_fts(text) FROM chunks",
  ).run();
}

/**
 * The embedded store: one SQLite file holding chunks, vectors (float32 blobs, scanned by dense-index.ts), an
 * FTS5 BM25 index and the manifest. WAL mode lets readers work while one process writes.
 *
 * @example
 * ```ts
 * const store = SqliteStore.open("/abs/vault/.vault-rag/index.db", { create: true });
 * await store.queryDense(vector, 6, { where: normaliseWhere({ tags: { $contains: "pico" } }) });
 * ```
 */
export class SqliteStore implements Store {
  readonly location: string;
  readonly db: Database.Database;

  private constructor(
    file: string,
    db: Database.Database,
    /** The Chroma sidecar: window vectors are kept when given, as a cache, but not required and never queried. */
    private readonly windowCache: boolean,
  ) {
    this.location = file;
    this.db = db;
    // a whereDocument filter's rows tested ahead, for the one keyword statement running now
    db.function("vr_passing", { deterministic: false }, (rowid: unknown) =>
      this.passingNow?.has(Number(rowid)) ? 1 : 0,
    );
  }

  /** Opens (or creates) the store at an absolute path. */
  static open(file: string, opts: SqliteStoreOptions = {}): SqliteStore {
    if (!path.isAbsolute(file)) throw new VaultRagError("usage", `vault-rag: index path "${file}" must be absolute`);
    refuseLinkedIndexFolder(file);
    if (!fs.existsSync(file)) {
      if (!opts.create)
        throw new VaultRagError("no_index", `vault-rag: no index at ${file} — run \`vault-rag index <vault>\` first`);
      try {
        makeDir(path.dirname(file));
      } catch (err) {
        throw new VaultRagError(
          "io",
          `vault-rag: cannot create the index folder ${path.dirname(file)}: ${(err as Error).message}`,
        );
      }
    }
    // a file that is not an index (a note, someone else's database) is refused before SQLite or
    // a rebuild writes to it: `--db notes.md` must never turn a note into an index
    const foreign = notAnIndexReason(file);
    if (foreign) throw notAnIndex(file, foreign);
    // a reader of an index it may not write (a read-only file or folder) opens it read-only; a
    // writer then gets the read-only error from its first write, with nothing changed
    if (!opts.readonly && !opts.create && !writable(file)) opts = { ...opts, readonly: true };
    if (isFolder(file))
      throw new VaultRagError(
        "usage",
        `vault-rag: the index path ${file} is a folder — give the index file in it (${path.join(file, "index.db")}), or leave --db out to use <vault>/.vault-rag/index.db`,
      );
    let db: Database.Database;
    try {
      db = openDatabase(file, opts);
      db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 10_000}`);
      db.function("vr_regexp", { deterministic: true }, (pattern: unknown, text: unknown) =>
        compileDocRegex(String(pattern)).test(String(text)) ? 1 : 0,
      );
      // $contains in JavaScript rather than SQLite's instr: it can be stopped (see containsText)
      db.function("vr_contains", { deterministic: true }, (needle: unknown, text: unknown) =>
        containsText(String(needle), String(text)) ? 1 : 0,
      );
      // what FTS5 indexes for a field (the 'delete' command must be given exactly the same values):
      // NFKC, as queries are read ("ﬁle" copied from a PDF is "file", "Ｗｉｄｅ" is "Wide"), and CJK bigrams
      db.function("vr_fts", { deterministic: true }, (text: unknown) =>
        cjkBigrams(String(text ?? "").normalize("NFKC")),
      );
      // before any pragma that writes (WAL mode rewrites the header): another program's database stays as it was
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      if (tables.length && !tables.includes("meta")) {
        db.close();
        throw notAnIndex(
          file,
          `a SQLite database without vault-rag's tables; it holds ${tables.slice(0, 3).join(", ")}`,
        );
      }
      if (!opts.readonly) {
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
        db.pragma("cache_size = -65536"); // 64 MB: index upkeep during large batches
      }
      if (!opts.readonly) {
        const hasMeta = tables.includes("meta");
        const old = hasMeta
          ? (db.prepare("SELECT value FROM meta WHERE key = 'manifest'").pluck().get() as string | undefined)
          : undefined;
        const version = old ? (JSON.parse(old) as Manifest).schemaVersion : SCHEMA_VERSION;
        if (version !== SCHEMA_VERSION && version !== 2)
          throw new VaultRagError(
            "index_outdated",
            `vault-rag: the index at ${file} has storage version ${version}; this vault-rag needs ${SCHEMA_VERSION} — run \`${rebuildCommand(file)}\` to rebuild it`,
          );
        // an index already as this version makes it is not written to: a reader of a Chroma sidecar
        // opens it while a writer holds its lock across a write to the server (holdWrite)
        if (!schemaIsCurrent(db, version))
          db.transaction(() => {
            db.exec(SCHEMA);
            createBacklinkTables(db);
            // a new index's keyword text is read by today's rules (an older index's is read again by
            // `index`, see upgradeKeywordText: a search does not wait for that)
            if (!db.prepare("SELECT 1 FROM chunks LIMIT 1").get()) markKeywordText(db);
            if (version === 2 && old) {
              if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vectors'").pluck().get())
                db.exec(UPGRADE_FROM_2);
              db.prepare("UPDATE meta SET value = ? WHERE key = 'manifest'").run(
                JSON.stringify({ ...(JSON.parse(old) as Manifest), schemaVersion: SCHEMA_VERSION }),
              );
            }
          }).immediate();
        if (!db.prepare("SELECT 1 FROM meta WHERE key = 'index_id'").get())
          db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('index_id', ?)").run(randomUUID());
      }
    } catch (err) {
      const e = err as Error & { code?: string };
      if (e instanceof VaultRagError) throw e;
      if (e.code === "SQLITE_READONLY") throw readOnly(file);
      if (e.code === "SQLITE_READONLY_DIRECTORY" || e.code === "SQLITE_READONLY_CANTINIT")
        throw new VaultRagError(
          "io",
          `vault-rag: cannot read the index at ${file}: its folder is read-only, and SQLite writes a shared-memory file beside an index even to read it — make ${path.dirname(file)} writable (searching changes nothing in the index), or search a copy of the vault`,
        );
      if (e.code === "SQLITE_FULL") throw diskFull(file);
      if (isCorruption(e)) throw damaged(file, e);
      throw new VaultRagError(
        "io",
        `vault-rag: cannot open the index at ${file}: ${e.message}${openFix(file, e.code)}`,
      );
    }
    return new SqliteStore(file, db, opts.vectors === "cache");
  }

  async upsertNotes(batch: { note: NoteEntry; records: StoreRecord[]; links?: NoteLink[] }[]): Promise<void> {
    const { delFts, delVectors, delChunks } = this.deleteStatements();
    const ins = this.db.prepare(
      `INSERT INTO chunks (id, path, title, section, folder, top_folder, mtime, word_count, ordinal, start_line, end_line, tags, links, aliases, hash, text)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insWindow = this.db.prepare("INSERT INTO windows (chunk, hash, vector) VALUES (?, ?, ?)");
    const dims = this.readManifest()?.embedder.dimensions;
    const known = this.db.prepare("SELECT 1 FROM chunks WHERE path = ? LIMIT 1").pluck();
    const insFts = this.db.prepare(
      "INSERT INTO fts (rowid, title, aliases, section, text) VALUES (?, vr_fts(?), vr_fts(?), vr_fts(?), vr_fts(?))",
    );
    const upNote = this.db.prepare(
      "INSERT INTO notes (path, hash, mtime, size) VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
    );
    this.write(() => {
      for (const { note, records } of batch) {
        if (known.get(note.path)) {
          delFts.run(note.path);
          delVectors.run(note.path);
          delChunks.run(note.path);
        }
        for (const r of records) {
          const m = r.meta;
          if (!this.windowCache) checkWindows(r, dims);
          const aliases = encodeList(m.aliases);
          const info = ins.run(
            r.id,
            m.path,
            m.title,
            m.section,
            m.folder,
            m.top_folder,
            m.mtime,
            m.word_count,
            m.ordinal,
            m.start_line,
            m.end_line,
            encodeList(m.tags),
            encodeList(m.links),
            aliases,
            m.hash,
            r.text,
          );
          // a full store keeps its windows for dense queries, the sidecar as a cache: both keep them
          for (const w of r.windows) insWindow.run(info.lastInsertRowid, w.hash, vectorToBlob(w.vector));
          insFts.run(info.lastInsertRowid, m.title, aliases, m.section, r.text);
        }
        upNote.run(note.path, note.hash, note.mtime, note.size);
      }
      writeLinks(
        this.db,
        batch.map((b) => ({ source: b.note.path, links: b.links })),
      );
    });
  }

  async deleteNotes(paths: string[]): Promise<void> {
    const { delFts, delVectors, delChunks } = this.deleteStatements();
    const delNote = this.db.prepare("DELETE FROM notes WHERE path = ?");
    this.write(() => {
      for (const p of paths) {
        delFts.run(p);
        delVectors.run(p);
        delChunks.run(p);
        delNote.run(p);
      }
      writeLinks(
        this.db,
        paths.map((source) => ({ source })),
      );
    });
  }

  /**
   * Deletes every note and chunk (with their vectors, keyword rows and links), as one write: the
   * Chroma store empties its sidecar so before filling it again from the server.
   *
   * @example
   * ```ts
   * await sidecar.clearNotes();
   * ```
   */
  async clearNotes(): Promise<void> {
    const paths = this.db
      .prepare("SELECT path FROM notes UNION SELECT DISTINCT path FROM chunks")
      .pluck()
      .all() as string[];
    await this.deleteNotes(paths);
  }

  async linkTexts(): Promise<Map<string, NoteLink[]>> {
    return hasBacklinks(this.db) ? readLinks(this.db) : new Map();
  }

  async resolveLinks(key: string, resolve: (link: NoteLink, source: string) => string | undefined): Promise<boolean> {
    let changed = false;
    // not a new generation: the chunks are as they were, only the keyword index's backlink text moved
    this.write(() => {
      changed = relink(this.db, key, resolve);
    }, false);
    return changed;
  }

  async touchNote(note: NoteEntry): Promise<void> {
    // the chunks carry the note's mtime too (date filters read it), so a touch moves them as well,
    // and bumps the generation so that readers reload their metadata columns
    this.write(() => {
      this.db.prepare("UPDATE notes SET mtime = ?, size = ? WHERE path = ?").run(note.mtime, note.size, note.path);
      this.db.prepare("UPDATE chunks SET mtime = ? WHERE path = ?").run(note.mtime, note.path);
    });
  }

  private deleteStatements() {
    return {
      // external-content FTS: removing a row means telling FTS5 the values it indexed
      delFts: this.db.prepare(
        "INSERT INTO fts (fts, rowid, title, aliases, section, text) SELECT 'delete', rowid, vr_fts(title), vr_fts(aliases), vr_fts(section), vr_fts(text) FROM chunks WHERE path = ?",
      ),
      delVectors: this.db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = ?)"),
      delChunks: this.db.prepare("DELETE FROM chunks WHERE path = ?"),
    };
  }

  /**
   * Takes this file's write lock for asynchronous work (SQLite's own, so it dies with the process):
   * every write until `commit` joins one transaction, which other connections see whole or not at
   * all, and which a crash rolls back. Waits the busy timeout for another connection's lock, then
   * fails. The Chroma store holds it across a write to the server, so that a reader never takes a
   * write in progress for a crashed one.
   *
   * @example
   * ```ts
   * const held = sidecar.holdWrite();
   * try { await writeServer(); await sidecar.upsertNotes(batch); held.commit(); }
   * finally { held.rollback(); }
   * ```
   */
  holdWrite(): HeldWrite {
    const held = this.beginHeld(true);
    if (!held)
      throw new VaultRagError(
        "index_locked",
        `vault-rag: ${this.location} stayed locked by another process for ${this.busyTimeout() / 1000} s (a rebuild of Chroma's keyword index from the server) — run again when it is done`,
      );
    return held;
  }

  /**
   * {@link SqliteStore.holdWrite}, or `undefined` at once when another connection holds the lock.
   *
   * @example
   * ```ts
   * const held = sidecar.tryHoldWrite();
   * if (!held) return; // a writer is at work: read the file as it is
   * ```
   */
  tryHoldWrite(): HeldWrite | undefined {
    return this.beginHeld(false);
  }

  private busyTimeout(): number {
    return this.db.pragma("busy_timeout", { simple: true }) as number;
  }

  /** `BEGIN IMMEDIATE`, waiting the busy timeout or not at all; `undefined` when the lock stayed taken. */
  private beginHeld(wait: boolean): HeldWrite | undefined {
    const timeout = this.busyTimeout();
    if (!wait) this.db.pragma("busy_timeout = 0");
    try {
      this.db.exec("BEGIN IMMEDIATE");
    } catch (err) {
      if ((err as { code?: string }).code === "SQLITE_BUSY") return undefined;
      throw err;
    } finally {
      if (!wait) this.db.pragma(`busy_timeout = ${timeout}`);
    }
    const end = (sql: string) => () => {
      if (this.db.inTransaction) this.db.exec(sql);
    };
    return { commit: end("COMMIT"), rollback: end("ROLLBACK") };
  }

  /** Runs a write transaction and bumps the generation so readers reload their dense index. */
  private write(fn: () => void, bumpGeneration = true): void {
    const bump = this.db.prepare(
      "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    );
    try {
      this.db
        .transaction(() => {
          fn();
          if (bumpGeneration) bump.run();
        })
        .immediate();
    } catch (err) {
      const e = err as Error & { code?: string };
      if (e.code === "SQLITE_FULL") throw diskFull(this.location);
      if (e.code === "SQLITE_READONLY" || e.code === "SQLITE_READONLY_DBMOVED") throw readOnly(this.location);
      if (isCorruption(e)) throw damaged(this.location, e);
      throw err;
    }
  }

  async notes(): Promise<Map<string, NoteEntry>> {
    const out = new Map<string, NoteEntry>();
    for (const r of this.db.prepare("SELECT path, hash, mtime, size FROM notes").all() as NoteEntry[])
      out.set(r.path, r);
    return out;
  }

  async get(query: { ids?: string[]; path?: string; includeVectors?: boolean }): Promise<StoreRecord[]> {
    const cols = `c.rowid AS rid, ${COLUMNS}`;
    let rows: (Row & { rid: number })[];
    if (query.ids) {
      const stmt = this.db.prepare(`SELECT ${cols} FROM chunks c WHERE c.id = ?`);
      rows = query.ids
        .map((id) => stmt.get(id) as (Row & { rid: number }) | undefined)
        .filter((r): r is Row & { rid: number } => !!r);
    } else if (query.path !== undefined) {
      rows = this.db
        .prepare(`SELECT ${cols} FROM chunks c WHERE c.path = ? ORDER BY c.ordinal`)
        .all(query.path) as (Row & { rid: number })[];
    } else {
      rows = this.db.prepare(`SELECT ${cols} FROM chunks c ORDER BY c.path, c.ordinal`).all() as (Row & {
        rid: number;
      })[];
    }
    const windows =
      query.includeVectors && !this.windowCache
        ? this.db.prepare("SELECT hash, vector FROM windows WHERE chunk = ? ORDER BY rowid")
        : undefined;
    return rows.map((r) => ({
      id: r.id,
      text: r.text,
      meta: rowMeta(r),
      windows: windows
        ? (windows.all(r.rid) as { hash: string; vector: Buffer }[]).map((w) => ({
            hash: w.hash,
            vector: blobToVector(w.vector),
          }))
        : [],
    }));
  }

  /** Counts, cached per write generation: search() asks on every query and count(*) scans. */
  async count(): Promise<StoreCounts> {
    const generation = this.generation();
    if (this.counted?.generation === generation) return this.counted.counts;
    const notes = (this.db.prepare("SELECT count(*) n FROM notes").get() as { n: number }).n;
    const chunks = (this.db.prepare("SELECT count(*) n FROM chunks").get() as { n: number }).n;
    this.counted = { generation, counts: { notes, chunks } };
    return this.counted.counts;
  }

  private counted?: { generation: string; counts: StoreCounts };

  /** The write generation, bumped by every write transaction that changes chunks or notes. */
  private generation(): string {
    return (
      (this.db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() as string | undefined) ?? "0"
    ).toString();
  }

  async listTags(): Promise<{ tag: string; notes: number }[]> {
    const counts = new Map<string, Set<string>>();
    for (const r of this.db.prepare("SELECT DISTINCT path, tags FROM chunks WHERE tags != ''").all() as {
      path: string;
      tags: string;
    }[]) {
      for (const t of decodeList(r.tags)) {
        let s = counts.get(t);
        if (!s) counts.set(t, (s = new Set()));
        s.add(r.path);
      }
    }
    return [...counts]
      .map(([tag, s]) => ({ tag, notes: s.size }))
      .sort((a, b) => b.notes - a.notes || a.tag.localeCompare(b.tag));
  }

  async noteLinks(): Promise<{ path: string; links: string[] }[]> {
    const byNote = new Map<string, Set<string>>();
    for (const r of this.db.prepare("SELECT DISTINCT path, links FROM chunks WHERE links != ''").all() as {
      path: string;
      links: string;
    }[]) {
      let s = byNote.get(r.path);
      if (!s) byNote.set(r.path, (s = new Set()));
      for (const l of decodeList(r.links)) s.add(l);
    }
    return [...byNote].map(([path, links]) => ({ path, links: [...links] }));
  }

  async listFolders(): Promise<{ folder: string; notes: number }[]> {
    // every note the index holds, as `status` counts them: a note with no text has no chunk but is
    // in its folder. The folder is the path up to its last "/" (rtrim drops the file name's
    // characters, which hold no "/"), as noteFolder makes a chunk's `folder`
    return this.db
      .prepare(
        "SELECT rtrim(rtrim(path, replace(path, '/', '')), '/') folder, count(*) notes FROM notes GROUP BY folder ORDER BY folder",
      )
      .all() as { folder: string; notes: number }[];
  }

  async queryDense(vector: Float32Array, k: number, filter: QueryFilter = {}): Promise<ScoredRecord[]> {
    if (this.windowCache) throw new Error(`vault-rag: the store at ${this.location} was opened without vectors`);
    // the whereDocument filter's passing rows first, tested in slices (see warmFilter); then one
    // read transaction: the filters, the vectors and the rows come from one snapshot
    if (filter.whereDocument) await this.warmFilter(filter);
    try {
      return this.denseRows(vector, k, filter);
    } catch (e) {
      if (!(e instanceof DamagedSnapshotError)) throw e;
      // the snapshot held damaged rows (and is gone): the index is built again from SQLite, once
      this.dense = undefined;
      return this.denseRows(vector, k, filter);
    }
  }

  private denseRows(vector: Float32Array, k: number, filter: QueryFilter): ScoredRecord[] {
    return this.db
      .transaction(() => {
        const index = this.denseIndex();
        checkQueryVector(vector, index.size ? index.dims : undefined, this.location);
        const { where, whereDocument } = filter;
        // rows tested ahead, when they were tested at this snapshot's generation
        const passing = whereDocument ? this.documentRows?.known(whereDocument) : undefined;
        let allowed: Set<number> | Uint8Array | undefined = passing;
        if (where && (!whereDocument || passing)) {
          const mask = this.metaMask(index, where);
          if (passing) for (let p = 0; p < mask.length; p++) if (mask[p] && !passing.has(index.rowidAt(p))) mask[p] = 0;
          allowed = mask;
        } else if (whereDocument && !passing) {
          // the index changed since they were tested: tested here, within the read, as one statement
          const cond = filterSql(filter);
          allowed = new Set(
            withDocumentBudget(
              () =>
                this.db
                  .prepare(`SELECT c.rowid FROM chunks c WHERE ${cond.sql}`)
                  .pluck()
                  .all(...cond.params) as number[],
            ),
          );
        }
        const hits = index.search(vector, Math.max(1, Math.floor(k)), allowed);
        if (!hits.length) return [];
        // one statement for all hits (json_each keeps it a single prepared query whatever k is)
        const rows = this.db
          .prepare(`SELECT c.rowid AS rid, ${COLUMNS} FROM chunks c WHERE c.rowid IN (SELECT value FROM json_each(?))`)
          .all(JSON.stringify(hits.map((h) => h.rowid))) as (Row & { rid: number })[];
        const byRowid = new Map(rows.map((r) => [r.rid, r]));
        const out: ScoredRecord[] = [];
        for (const h of hits) {
          const r = byRowid.get(h.rowid);
          if (r) out.push({ id: r.id, text: r.text, meta: rowMeta(r), distance: h.distance });
        }
        return out;
      })
      .deferred();
  }

  private dense?: { generation: string; index: DenseIndex };
  private meta?: { index: DenseIndex; columns: MetaColumns; toColumn: Int32Array };

  /** Evaluates a `where` filter on in-memory metadata columns; a mask over the dense index's positions. */
  private metaMask(index: DenseIndex, where: WhereNode): Uint8Array {
    if (!this.meta || this.meta.index !== index) {
      const columns = new MetaColumns(this.db);
      // each dense position (a window) points at its chunk's row in the metadata columns
      const rowOf = new Map<number, number>();
      columns.rowids.forEach((rowid, i) => rowOf.set(rowid, i));
      const toColumn = new Int32Array(index.size);
      for (let p = 0; p < index.size; p++) toColumn[p] = rowOf.get(index.rowidAt(p)) ?? -1;
      this.meta = { index, columns, toColumn };
    }
    const { columns, toColumn } = this.meta;
    const rows = columns.evaluate(where);
    const mask = new Uint8Array(index.size);
    for (let p = 0; p < mask.length; p++) if (toColumn[p] >= 0 && rows[toColumn[p]]) mask[p] = 1;
    return mask;
  }

  /**
   * The in-memory dense index for the current write generation. Loading 30,000 vectors through
   * SQLite takes ~0.3 s, so a snapshot (`<db>.vectors`) keyed by the index's identity and
   * generation is kept beside the file: a derived cache, never the source of truth — a missing,
   * stale or torn snapshot is ignored and rewritten.
   */
  private denseIndex(): DenseIndex {
    const generation = this.generation();
    if (this.dense && this.dense.generation === generation) return this.dense.index;
    const key = `${this.indexId()}:${generation}:pooled`; // the rule that made the rows is part of the key
    const snapshot = `${this.location}.vectors`;
    let index = DenseIndex.fromFile(snapshot, key);
    if (!index) {
      const rows = pooledRows(
        this.db.prepare("SELECT chunk, vector FROM windows ORDER BY chunk, rowid").raw().iterate() as IterableIterator<
          [number, Buffer]
        >,
      );
      const dims = rows.length ? rows[0][1].byteLength / 4 : (this.readManifest()?.embedder.dimensions ?? 0);
      index = DenseIndex.fromRows(rows, dims);
      try {
        // a new file of an unguessable name (a link planted at a predictable one was written through)
        const tmp = `${snapshot}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
        writeNewFile(tmp, index.toBuffer(key));
        fs.renameSync(tmp, snapshot);
      } catch {
        // read-only folder or full disk: the snapshot is only a cache
      }
    }
    this.dense?.index.close();
    this.dense = { generation, index };
    return index;
  }

  /** Builds (and snapshots) the dense index now, e.g. at the end of an indexing run. */
  async warmDense(): Promise<void> {
    this.db.transaction(() => this.denseIndex()).deferred();
  }

  /** A random identity given to the file when it is created, so snapshots of other files never match. */
  private indexId(): string {
    const id = this.db.prepare("SELECT value FROM meta WHERE key = 'index_id'").pluck().get() as string | undefined;
    return id ?? "unknown";
  }

  async queryKeyword(
    text: string,
    k: number,
    filter: QueryFilter = {},
    ranking: KeywordRanking = {},
  ): Promise<ScoredRecord[]> {
    // a whereDocument filter's rows tested ahead (by warmFilter) answer for it at the generation
    // they were tested at; else the filter is tested within the query, on the rows the keyword
    // index matched (one statement, within its time budget: see REGEX_LIMITS)
    return withDocumentBudget(() =>
      this.db
        .transaction(() => {
          const passing = filter.whereDocument ? this.documentRows?.known(filter.whereDocument) : undefined;
          if (!passing) return this.keywordRows(text, k, filterSql(filter), ranking);
          this.passingNow = passing;
          try {
            return this.keywordRows(text, k, filterSql({ where: filter.where }, true), ranking);
          } finally {
            this.passingNow = undefined;
          }
        })
        .deferred(),
    );
  }

  /**
   * Tests a `whereDocument` filter over every passage ahead of the queries that use it, in slices
   * of about 20 ms with the process free between them, and keeps the passing rows for the index's
   * write generation ({@link DocumentRows}): a search's dense and keyword lists, and searches asked
   * at the same time with the same filter, then test each passage once. A search calls it before
   * its keyword queries when it also ranks densely (a dense query tests every passage anyway); a
   * keyword-only search leaves it, testing only the passages that hold its words. The slices' turn
   * is the one place a query of this store waits: `close` waits for them (a long-lived reader
   * closes an index swapped under it while its searches go on).
   */
  async warmFilter(filter: QueryFilter): Promise<void> {
    if (!filter.whereDocument) return;
    const run = (this.documentRows ??= new DocumentRows(this.db, () => this.generation())).test(filter.whereDocument);
    this.testing.add(run);
    try {
      await run;
    } finally {
      this.testing.delete(run);
    }
  }

  private readonly testing = new Set<Promise<unknown>>();
  /** The passing rows `vr_passing(rowid)` answers for, set only while one keyword statement runs. */
  private passingNow?: Set<number>;

  private documentRows?: DocumentRows;

  private keywordRows(text: string, k: number, cond: SqlCondition, ranking: KeywordRanking): ScoredRecord[] {
    const match = toFtsQuery(text);
    if (!match) return [];
    const w = BM25_WEIGHTS;
    const bm25 = `bm25(fts, ${w.title}, ${w.aliases}, ${w.section}, ${w.body})`;
    const limit = Math.max(1, Math.floor(k));
    // the parts a chunk's score sums beside the question's own BM25: synonym phrases, near pairs
    const extra: { weight: number; match: string }[] = [];
    const { expansion, proximity } = ranking;
    const phrases = expansion && expansion.weight > 0 ? expansion.phrases.filter((p) => p.trim()) : [];
    if (phrases.length) extra.push({ weight: expansion!.weight, match: phraseQuery(phrases) });
    const near = proximity && proximity > 0 ? proximityQuery(text) : undefined;
    if (near) extra.push({ weight: proximity!, match: near });
    const linked = ranking.backlinks && ranking.backlinks > 0 && this.anyBacklinks();
    if (extra.length || linked) {
      // every chunk that matches the question or an expansion phrase, or whose note's backlink text
      // matches the question, scored by the sum; exact (no cut before the sum: each phrase is held
      // by a small share of the chunks, see search/expand.ts, a near pair only matches where the
      // question does, and few notes are linked to), and the best k are cut before the chunks'
      // text is read
      const sql = `WITH s AS (SELECT r, sum(d) AS d, max(b) AS b FROM (
          SELECT rowid AS r, ${bm25} AS d, 0 AS b FROM fts WHERE fts MATCH ?
          ${extra.map(() => `UNION ALL SELECT rowid AS r, ? * ${bm25} AS d, 0 AS b FROM fts WHERE fts MATCH ?`).join("\n          ")}
          ${linked ? `UNION ALL ${backlinkMatch}` : ""}) GROUP BY r),
        top AS (SELECT s.r, s.d, s.b FROM s ${cond.sql ? `JOIN chunks c ON c.rowid = s.r WHERE ${cond.sql}` : ""}
          ORDER BY s.d, s.r LIMIT ?)
        SELECT ${COLUMNS}, top.d AS d, top.b AS b FROM top JOIN chunks c ON c.rowid = top.r ORDER BY top.d, top.r`;
      const rows = this.db
        .prepare(sql)
        .all(
          match,
          ...extra.flatMap((e) => [e.weight, e.match]),
          ...(linked ? [ranking.backlinks, match] : []),
          ...cond.params,
          limit,
        ) as Row[];
      return rows.map((r) => ({
        id: r.id,
        text: r.text,
        meta: rowMeta(r),
        distance: r.d!,
        ...(r.b ? { backlinked: true as const } : {}),
      }));
    }
    // without a filter the best rows are picked inside the keyword index and only they are joined
    // to their chunks (5.6 → 3.9 ms on a common three-word query at 10,000 notes); a filter needs
    // the chunk's columns before the cut. Ties go to the older row, in both.
    const sql = cond.sql
      ? `SELECT ${COLUMNS}, ${bm25} AS d FROM fts JOIN chunks c ON c.rowid = fts.rowid
      WHERE fts MATCH ? AND ${cond.sql} ORDER BY d, c.rowid LIMIT ?`
      : `SELECT ${COLUMNS}, f.d FROM (SELECT rowid, ${bm25} AS d FROM fts WHERE fts MATCH ? ORDER BY d, rowid LIMIT ?) f
      JOIN chunks c ON c.rowid = f.rowid ORDER BY f.d, f.rowid`;
    const rows = this.db.prepare(sql).all(match, ...cond.params, limit) as Row[];
    return rows.map((r) => ({ id: r.id, text: r.text, meta: rowMeta(r), distance: r.d! }));
  }

  /** Whether any note has backlink text (an index from before backlink text has not even the table). */
  private anyBacklinks(): boolean {
    // the tables, once there, stay: looked up until seen, not on every query
    this.backlinkTables ||= hasBacklinks(this.db);
    return this.backlinkTables && !!this.db.prepare("SELECT 1 FROM backlink_notes LIMIT 1").pluck().get();
  }

  private backlinkTables = false;

  async keywordSpellings(word: string, maxEdits: number, opts?: SpellingQuery): Promise<Spelling[]> {
    return (this.spellings ??= new KeywordSpellings(this.db, () => this.generation())).near(word, maxEdits, opts);
  }

  private spellings?: KeywordSpellings;

  async keywordStats(phrases: string[], opts: { id?: string; cap?: number } = {}): Promise<KeywordStats> {
    // the count of chunks cached per write generation ({@link count}): a search asks twice (its
    // spelling, then its synonyms), and count(*) reads the whole table
    const { chunks } = await this.count();
    return this.db
      .transaction((): KeywordStats => {
        const cap = opts.cap === undefined ? -1 : Math.max(0, Math.floor(opts.cap));
        const count = this.db.prepare("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)").pluck();
        const row =
          opts.id === undefined
            ? undefined
            : (this.db.prepare("SELECT rowid FROM chunks WHERE id = ?").pluck().get(opts.id) as number | undefined);
        // the rowid cast: a JS number binds as REAL, and FTS5 then drops the rowid constraint
        const holds = this.db
          .prepare("SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid = CAST(? AS INTEGER)")
          .pluck();
        const counts: number[] = [];
        const inChunk: boolean[] = [];
        for (const p of phrases) {
          const q = p.trim() ? phraseQuery([p]) : undefined;
          counts.push(q ? (count.get(q, cap) as number) : 0);
          inChunk.push(q !== undefined && row !== undefined && (holds.get(q, row) as number) > 0);
        }
        return { chunks, counts, inChunk };
      })
      .deferred();
  }

  async manifest(): Promise<Manifest | undefined> {
    return this.readManifest();
  }

  private readManifest(): Manifest | undefined {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'manifest'").get() as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as Manifest) : undefined;
  }

  async setManifest(m: Manifest): Promise<void> {
    this.write(() => {
      this.db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('manifest', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(JSON.stringify({ ...m, schemaVersion: SCHEMA_VERSION }));
    }, false);
  }

  /**
   * Vectors already stored for these window-text hashes. The index holds one model's vectors, so
   * its own windows are the embedding cache: a moved or unchanged text is never embedded again.
   * Returns nothing when `model` is not the model that built this index.
   */
  async cachedVectors(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    // a cache for another store (the Chroma sidecar) leaves the model check to its owner
    const m = this.readManifest();
    if (!this.windowCache && (!m || `${m.embedder.provider}:${m.embedder.model}` !== model)) return out;
    const stmt = this.db.prepare("SELECT vector FROM windows WHERE hash = ? LIMIT 1").pluck();
    for (const h of hashes) {
      const blob = stmt.get(h) as Buffer | undefined;
      if (blob) out.set(h, blobToVector(blob));
    }
    return out;
  }

  /**
   * Counts what `vault-rag check` verifies, from one snapshot: rows per table, vectors without a
   * chunk, chunks without a vector or a note, the keyword index against the chunks, and vectors of
   * the wrong length for the manifest's dimensions.
   *
   * @example
   * ```ts
   * const found = await SqliteStore.open(db).integrity();
   * found.orphanVectors; // 0 on a healthy index
   * ```
   */
  async integrity(): Promise<SqliteIntegrity> {
    const one = (sql: string) => this.db.prepare(sql).pluck().get() as number;
    return this.db
      .transaction((): SqliteIntegrity => {
        const counts = {
          notes: one("SELECT count(*) FROM notes"),
          chunks: one("SELECT count(*) FROM chunks"),
          vectors: one("SELECT count(*) FROM windows"),
          ftsRows: one("SELECT count(*) FROM fts_docsize"),
        };
        const dims = this.readManifest()?.embedder.dimensions;
        return {
          counts,
          orphanVectors: one("SELECT count(*) FROM windows WHERE chunk NOT IN (SELECT rowid FROM chunks)"),
          chunksWithoutVectors: one("SELECT count(*) FROM chunks WHERE rowid NOT IN (SELECT chunk FROM windows)"),
          chunksWithoutNote: one("SELECT count(*) FROM chunks WHERE path NOT IN (SELECT path FROM notes)"),
          ftsMismatch:
            counts.ftsRows !== counts.chunks ||
            one("SELECT count(*) FROM fts_docsize WHERE id NOT IN (SELECT rowid FROM chunks)") > 0,
          badVectors: dims ? one(`SELECT count(DISTINCT chunk) FROM windows WHERE length(vector) != ${dims * 4}`) : 0,
          notesWithoutChunks: this.db
            .prepare("SELECT path FROM notes WHERE path NOT IN (SELECT path FROM chunks) ORDER BY path")
            .pluck()
            .all() as string[],
        };
      })
      .deferred();
  }

  /**
   * Reads the keyword index's text again when it was read by other rules than today's (an index
   * built before NFKC, or under another Unicode version): FTS5 and backlink text only, in one
   * transaction, no embedding. Run by `index` before it writes, as the FTS5 'delete' command must
   * be given the text as it was inserted. Returns whether it rebuilt.
   *
   * @example
   * ```ts
   * if (await store.upgradeKeywordText()) log.info("keyword index read again");
   * ```
   */
  async upgradeKeywordText(): Promise<boolean> {
    const rules = this.db.prepare("SELECT value FROM meta WHERE key = 'keyword_text'").pluck().get();
    if (rules === KEYWORD_TEXT_RULES) return false;
    this.write(() => {
      rebuildKeywordIndex(this.db);
      rebuildBacklinks(this.db);
      markKeywordText(this.db);
    }, false);
    return true;
  }

  /**
   * Repairs what needs no embedding, in one transaction: removes vectors without a chunk, drops the
   * notes that have a chunk without a vector, with a vector of the wrong length or without a note,
   * and the notes named in `drop` (so the next indexing run redoes them), and rebuilds the keyword
   * index from the chunks.
   *
   * @example
   * ```ts
   * const fixed = await store.repair({ drop: ["notes/lost its chunks.md"] });
   * fixed.droppedNotes; // notes the next `vault-rag index` re-indexes
   * ```
   */
  async repair(opts: { drop?: string[] } = {}): Promise<SqliteRepair> {
    const dims = this.readManifest()?.embedder.dimensions;
    const fixed: SqliteRepair = { orphanVectors: 0, droppedNotes: 0 };
    this.write(() => {
      fixed.orphanVectors = this.db
        .prepare("DELETE FROM windows WHERE chunk NOT IN (SELECT rowid FROM chunks)")
        .run().changes;
      const paths = this.db
        .prepare(
          `SELECT DISTINCT path FROM chunks WHERE rowid NOT IN (SELECT chunk FROM windows) OR path NOT IN (SELECT path FROM notes)${dims ? ` OR rowid IN (SELECT chunk FROM windows WHERE length(vector) != ${dims * 4})` : ""}`,
        )
        .pluck()
        .all() as string[];
      for (const p of opts.drop ?? []) if (!paths.includes(p)) paths.push(p);
      const delV = this.db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = ?)");
      const del = this.db.prepare("DELETE FROM chunks WHERE path = ?");
      const delN = this.db.prepare("DELETE FROM notes WHERE path = ?");
      for (const p of paths) {
        delV.run(p);
        del.run(p);
        delN.run(p);
      }
      fixed.droppedNotes = paths.length;
      // what a note that is gone said about others goes with it (the next index says it again)
      rebuildBacklinks(this.db);
      rebuildKeywordIndex(this.db);
      markKeywordText(this.db);
    });
    return fixed;
  }

  /**
   * The Chroma store's mark for its keyword sidecar: which collection generation the sidecar
   * mirrors (`<collection id>:<generation>`), or undefined when none was recorded.
   *
   * @example
   * ```ts
   * if ((await sidecar.syncMark()) !== `${collection.id}:${generation}`) rebuild();
   * ```
   */
  async syncMark(): Promise<string | undefined> {
    return this.db.prepare("SELECT value FROM meta WHERE key = 'chroma_sync'").pluck().get() as string | undefined;
  }

  /**
   * Records the mark {@link SqliteStore.syncMark} returns (the write generation is not bumped: the
   * chunks did not change).
   *
   * @example
   * ```ts
   * await sidecar.setSyncMark(`${collection.id}:${generation}`);
   * ```
   */
  async setSyncMark(mark: string): Promise<void> {
    this.write(() => {
      this.db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('chroma_sync', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(mark);
    }, false);
  }

  async close(): Promise<void> {
    // a query between its filter's slices ends first, with its rows read (see warmFilter)
    await Promise.allSettled([...this.testing]);
    this.dense?.index.close();
    if (this.db.open) this.db.close();
  }
}

/** True when the index file and its folder (for the WAL files) can be written. */
function writable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.W_OK);
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function diskFull(file: string): VaultRagError {
  return new VaultRagError(
    "io",
    `vault-rag: the disk holding ${file} is full — nothing from this batch was written; free some space and run again`,
  );
}

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * Why a file is no vault-rag index, judged by its first bytes (an empty file is a new index), or
 * undefined when it may be one.
 */
function notAnIndexReason(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, "r");
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    if (n === 0) return undefined;
    return head.toString("latin1", 0, n) === SQLITE_HEADER ? undefined : "it is not a SQLite database";
  } catch {
    return undefined; // unreadable: SQLite's own error says why
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The refusal of a file that is not an index at all: nothing is written to it, and no rebuild is
 * offered over it.
 *
 * @example
 * ```ts
 * throw notAnIndex("/home/me/notes/todo.md", "it is not a SQLite database");
 * // vault-rag: /home/me/notes/todo.md is not a vault-rag index (it is not a SQLite database) — nothing was changed; …
 * ```
 */
export function notAnIndex(file: string, why: string): VaultRagError {
  return new VaultRagError(
    "usage",
    `vault-rag: ${file} is not a vault-rag index (${why}) — nothing was changed; point --db at an index or at a new path to build one there (an index that was overwritten: delete it, then run \`vault-rag index\`)`,
  );
}

/**
 * Whether an error is SQLite's word that the file is damaged (`SQLITE_CORRUPT…`, or not a database
 * at all): what {@link damaged} turns into the refusal that names the rebuild.
 *
 * @example
 * ```ts
 * isCorruption(Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" })); // true
 * ```
 */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/**
 * The refusal of a damaged index file (truncated, overwritten): it names the rebuild, which needs
 * nothing from the old file.
 *
 * @example
 * ```ts
 * throw damaged("/v/.vault-rag/index.db", err); // vault-rag: the index at … is damaged (…) — run `vault-rag index --full` …
 * ```
 */
export function damaged(file: string, err: Error): VaultRagError {
  return new VaultRagError(
    "index_damaged",
    `vault-rag: the index at ${file} is damaged (${err.message}) — run \`${rebuildCommand(file)}\` to rebuild it from the notes`,
    { cause: err },
  );
}

/**
 * The command that rebuilds the index at `file`: of its vault when the file is in the default
 * place (`<vault>/.vault-rag/index.db`), else with `--db`, so that running it rebuilds this file.
 *
 * @example
 * ```ts
 * rebuildCommand("/home/me/notes/.vault-rag/index.db"); // "vault-rag index /home/me/notes --full"
 * rebuildCommand("/tmp/my index.db"); // "vault-rag index <vault> --full --db '/tmp/my index.db'"
 * rebuildCommand("/home/me/notes/.vault-rag/index.db", false); // "vault-rag index /home/me/notes": a first index
 * ```
 */
export function rebuildCommand(file: string, full = true): string {
  const abs = path.resolve(file);
  const vault = path.dirname(path.dirname(abs)); // the vault whose own index this would be
  const flag = full ? " --full" : "";
  if (isVaultIndex(vault, abs)) return `vault-rag index ${shellArg(vault)}${flag}`;
  return `vault-rag index <vault>${flag} --db ${shellArg(abs)}`;
}

function isFolder(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function readOnly(file: string): VaultRagError {
  return new VaultRagError(
    "io",
    `vault-rag: the index at ${file} is read-only — nothing was written; make it and its folder writable`,
  );
}

/** One row per chunk, `[chunk rowid, pooled vector]`, from window rows ordered by chunk. */
function pooledRows(windows: IterableIterator<[number, Buffer]>): [number, Uint8Array][] {
  const out: [number, Uint8Array][] = [];
  let chunk = -1;
  let group: { vector: Float32Array }[] = [];
  const flush = () => {
    if (!group.length) return;
    const v = pooledVector(group);
    out.push([chunk, new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]);
    group = [];
  };
  for (const [c, blob] of windows) {
    if (c !== chunk) flush();
    chunk = c;
    group.push({ vector: blobToVector(blob) });
  }
  flush();
  return out;
}

/**
 * A query's filter as SQL over `chunks c`: its where and whereDocument clauses; with `passing`, the
 * rows a whereDocument filter let through when tested ahead (`vr_passing`, see queryKeyword).
 */
function filterSql(filter: QueryFilter, passing = false): SqlCondition {
  const parts: SqlCondition[] = [];
  if (filter.where) parts.push(compileWhere(filter.where));
  if (filter.whereDocument) parts.push(compileDocument(filter.whereDocument));
  if (passing) parts.push({ sql: "vr_passing(c.rowid)", params: [] });
  return { sql: parts.map((p) => p.sql).join(" AND "), params: parts.flatMap((p) => p.params) };
}

function rowMeta(r: Row): RecordMetadata {
  const { id: _id, text: _text, d: _d, tags, links, aliases, ...rest } = r;
  const { rid: _rid, ...scalars } = rest as typeof rest & { rid?: number };
  return { ...scalars, tags: decodeList(tags), links: decodeList(links), aliases: decodeList(aliases) };
}
