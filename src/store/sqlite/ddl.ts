import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { VaultRagError } from "../../errors.js";
import { SCHEMA_VERSION, type Manifest } from "../types.js";
import { createBacklinkTables } from "./backlinks.js";
import { FTS_TOKENIZE } from "./fts-query.js";
import { MIN_LANGUAGE_WORDS, recordLanguages } from "./fts-text.js";
import { LANGUAGE_TOOLS } from "../language.js";
import { createLinkNames, linkNamesCurrent } from "./link-names.js";

/**
 * The columns of a note's date and properties, last in `chunks`: an index written before them gains
 * them in place ({@link UPGRADE_NOTE_DATES}).
 */
const NOTE_DATE_COLUMNS =
  "date INTEGER NOT NULL DEFAULT 0, date_source TEXT NOT NULL DEFAULT 'mtime', props TEXT NOT NULL DEFAULT '{}'";

/**
 * The columns of a passage's file type (`file_type`: `note`, `pdf`, `canvas`, `docx`) and PDF page (0: none),
 * last in `chunks`: an index written before attachments gains them in place, every passage a note's
 * ({@link UPGRADE_FILE_TYPES}).
 */
const FILE_TYPE_COLUMNS = "file_type TEXT NOT NULL DEFAULT 'note', page INTEGER NOT NULL DEFAULT 0";

/** An index written before attachments: each passage is a note's, on no page. Nothing is read again. */
const UPGRADE_FILE_TYPES = `
ALTER TABLE chunks ADD COLUMN file_type TEXT NOT NULL DEFAULT 'note';
ALTER TABLE chunks ADD COLUMN page INTEGER NOT NULL DEFAULT 0;
`;

/**
 * An index written before notes had dates and properties gains their columns: each passage dated by
 * its note's mtime, with no properties, as it was filtered before. Nothing indexed is lost; the next
 * `index` reads every note again (the chunker's version moved) and fills them in, its vectors kept.
 */
const UPGRADE_NOTE_DATES = `
ALTER TABLE chunks ADD COLUMN date INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN date_source TEXT NOT NULL DEFAULT 'mtime';
ALTER TABLE chunks ADD COLUMN props TEXT NOT NULL DEFAULT '{}';
UPDATE chunks SET date = mtime;
`;

/**
 * Columns an index written by an earlier build lacks, and what a read-only reader takes them to be
 * (an index it may not upgrade, on read-only media).
 */
const LATER_COLUMNS: { table: string; column: string; value: string }[] = [
  { table: "chunks", column: "date", value: "mtime" },
  { table: "chunks", column: "date_source", value: "'mtime'" },
  { table: "chunks", column: "props", value: "'{}'" },
  { table: "chunks", column: "file_type", value: "'note'" },
  { table: "chunks", column: "page", value: "0" },
  { table: "link_texts", column: "markdown", value: "0" },
  { table: "link_texts", column: "display", value: "NULL" },
];

/**
 * Lets a read-only connection query an index written before some columns existed: a temporary view
 * of each such table (temp objects come first in name lookup) adds them with the values the
 * upgrade would give, so nothing is written to the file.
 *
 * @example
 * ```ts
 * const db = new Database(file, { readonly: true });
 * shadowLaterColumns(db); // SELECT date FROM chunks works on an index written without it
 * ```
 */
export function shadowLaterColumns(db: Database.Database): void {
  for (const table of new Set(LATER_COLUMNS.map((c) => c.table))) {
    const has = db.prepare(`SELECT name FROM main.pragma_table_info('${table}')`).pluck().all() as string[];
    const missing = LATER_COLUMNS.filter((c) => c.table === table && !has.includes(c.column));
    if (!has.length || !missing.length) continue;
    const added = missing.map((c) => `${c.value} AS ${c.column}`).join(", ");
    const rowid = has.includes("rowid") ? "" : "rowid AS rowid, ";
    db.exec(`CREATE TEMP VIEW ${table} AS SELECT ${rowid}*, ${added} FROM main.${table}`);
  }
}

/**
 * What `windows` is indexed by to find a window's vector by its text's hash: the hash's first 16
 * characters (64 bits of a sha256 in hex), not all 64. A lookup names both (`WHERE substr(hash, 1, 16)
 * = substr(@hash, 1, 16) AND hash = @hash`, reads.ts `cachedVectors`), so its answer is exact whatever
 * hashes share a prefix. An entry takes 21 bytes instead of 69: til's 6,331 windows index in 20 pages
 * of 8 KB instead of 64. Any text is indexed so, one that is not hex (`SKIPPED_WINDOW_HASH`) too.
 */
export const WINDOW_HASH_CHARS = 16;

/** The expression `windows_hash_prefix` indexes: a query must name it so for SQLite to use the index. */
export const WINDOW_HASH_PREFIX = `substr(hash, 1, ${WINDOW_HASH_CHARS})`;

/**
 * Indexes of an index written before {@link WINDOW_HASH_PREFIX}, dropped when it is opened for writing
 * (in the transaction that makes the new one, so a crash leaves the file as it was): `windows_hash`
 * held each window's whole hash, `chunks_hash` each passage's, which no query reads. Their pages go to
 * the free list and are written again as the index grows; the file is not made smaller (`index
 * --full` makes a new one).
 */
const DROP_WIDE_HASH_INDEXES = `
DROP INDEX IF EXISTS windows_hash;
DROP INDEX IF EXISTS chunks_hash;
`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, hash TEXT NOT NULL, mtime INTEGER NOT NULL, size INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL, title TEXT NOT NULL, section TEXT NOT NULL, folder TEXT NOT NULL, top_folder TEXT NOT NULL,
  mtime INTEGER NOT NULL, word_count INTEGER NOT NULL, ordinal INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
  tags TEXT NOT NULL, links TEXT NOT NULL, aliases TEXT NOT NULL, hash TEXT NOT NULL,
  text TEXT NOT NULL,
  ${NOTE_DATE_COLUMNS},
  ${FILE_TYPE_COLUMNS}
);
CREATE TABLE IF NOT EXISTS windows (rowid INTEGER PRIMARY KEY, chunk INTEGER NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS windows_chunk ON windows(chunk);
CREATE INDEX IF NOT EXISTS windows_hash_prefix ON windows(${WINDOW_HASH_PREFIX});
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, aliases, section, text, content = 'chunks', content_rowid = 'rowid', tokenize = '${FTS_TOKENIZE}');
`;

/**
 * The keyword index's settings, recorded in it when it is made (its results do not depend on them).
 * `hashsize`: FTS5 keeps up to this many bytes of new entries in memory before it writes them out as
 * a segment, 1 MB by default; a keyword-phase batch of 4,096 notes made one segment a megabyte and
 * FTS5 merged them again and again. With 64 MB a batch makes one (at 100,000 generated notes the
 * keyword index's writes took about 5 s less CPU).
 */
const FTS_SETTINGS = "INSERT INTO fts (fts, rank) VALUES ('hashsize', 67108864);";

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

/**
 * The rules {@link rebuildKeywordIndex}'s text passes through (`vr_fts`), recorded in the index: an
 * index whose `keyword_text` differs is rebuilt by the next `index` ({@link SqliteStore.upgradeKeywordText}).
 * Change it when `vr_fts` does.
 */
// NFKC and the CJK ranges come from Node's Unicode data: a newer Unicode may read a character
// another way, and FTS5's 'delete' must be given what was inserted, so its version is a rule too
// the language detector's and the stemmers' versions are rules too: another version may read a
// passage as another language, or stem a word otherwise
export const KEYWORD_TEXT_RULES = `nfkc cjk-bigrams 1; unicode ${process.versions.unicode}; stems ${MIN_LANGUAGE_WORDS} ${LANGUAGE_TOOLS}; joined names 1; plainly english 1`;

/**
 * Records that the keyword index's text was read by today's {@link KEYWORD_TEXT_RULES}.
 *
 * @example
 * ```ts
 * db.transaction(() => { rebuildKeywordIndex(db); markKeywordText(db); }).immediate();
 * ```
 */
export function markKeywordText(db: Database.Database): void {
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('keyword_text', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(KEYWORD_TEXT_RULES);
}

/** The tables, indexes and columns this version's SCHEMA and backlink tables make (read once). */
let currentShape: string | undefined;

/** What of a database's shape {@link schemaIsCurrent} compares: its objects and link_texts' columns. */
function shapeOf(db: Database.Database): string {
  const objects = db.prepare("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1").pluck().all();
  const columns = db.prepare("SELECT name FROM pragma_table_info('link_texts') ORDER BY 1").pluck().all();
  const chunks = db.prepare("SELECT name FROM pragma_table_info('chunks') ORDER BY 1").pluck().all();
  return JSON.stringify([objects, columns, chunks]);
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
    createLinkNames(ref);
    currentShape = shapeOf(ref);
    ref.close();
  }
  if (shapeOf(db) !== currentShape) return false;
  if (!linkNamesCurrent(db)) return false;
  if (db.prepare("SELECT 1 FROM chunks LIMIT 1").get()) return true;
  return db.prepare("SELECT value FROM meta WHERE key = 'keyword_text'").pluck().get() === KEYWORD_TEXT_RULES;
}

/**
 * Rebuilds the keyword index from the chunks, as indexed: every field through `vr_fts`. Runs inside
 * the caller's transaction.
 *
 * @example
 * ```ts
 * db.transaction(() => rebuildKeywordIndex(db)).immediate();
 * ```
 */
export function rebuildKeywordIndex(db: Database.Database): void {
  db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
  db.prepare(
    `INSERT INTO fts (rowid, title, aliases, section, text) SELECT rowid, ${KEYWORD_FIELDS} FROM (${WITH_LANGUAGE})`,
  ).run();
  recordLanguages(db);
}

/**
 * The chunks' rows with the language their words are stemmed by (`l`, see fts-text.ts
 * `passageLanguage`); a `WHERE` may follow.
 */
export const WITH_LANGUAGE =
  "SELECT rowid, title, aliases, section, text, vr_lang(title, section, text) AS l FROM chunks";

/** The keyword index's four fields of a {@link WITH_LANGUAGE} row, as FTS5 is given them (rowid first is the caller's). */
export const KEYWORD_FIELDS = "vr_fts(title, l), vr_fts_names(title, aliases, l), vr_fts(section, l), vr_fts(text, l)";

/**
 * Brings a database opened for writing to this version's schema: refuses an index of a storage
 * version it cannot upgrade, creates what is missing (a version-2 index is moved over in place),
 * and gives the file its random identity. An index already as this version makes it is not written
 * to. `tables` are the database's tables as found before any write.
 *
 * @example
 * ```ts
 * const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
 * prepareSchema(db, "/v/.vault-rag/index.db", tables);
 * ```
 */
export function prepareSchema(db: Database.Database, file: string, tables: string[]): void {
  const hasMeta = tables.includes("meta");
  const old = hasMeta
    ? (db.prepare("SELECT value FROM meta WHERE key = 'manifest'").pluck().get() as string | undefined)
    : undefined;
  const version = old ? (JSON.parse(old) as Manifest).schemaVersion : SCHEMA_VERSION;
  if (version !== SCHEMA_VERSION && version !== 2)
    throw new VaultRagError(
      "index_outdated",
      `the index at ${file} has storage version ${version}; this vault-rag needs ${SCHEMA_VERSION}`,
      {
        fix: { kind: "rebuild", db: file },
      },
    );
  // an index already as this version makes it is not written to: a reader of a Chroma sidecar
  // opens it while a writer holds its lock across a write to the server (holdWrite)
  if (!schemaIsCurrent(db, version))
    db.transaction(() => {
      const hadChunks = db.prepare("SELECT name FROM pragma_table_info('chunks')").pluck().all() as string[];
      if (hadChunks.length && !hadChunks.includes("props")) db.exec(UPGRADE_NOTE_DATES);
      if (hadChunks.length && !hadChunks.includes("file_type")) db.exec(UPGRADE_FILE_TYPES);
      db.exec(DROP_WIDE_HASH_INDEXES);
      db.exec(SCHEMA);
      if (!tables.includes("fts")) db.exec(FTS_SETTINGS);
      createBacklinkTables(db);
      // an index written without link_names, or by a build that left it behind, has it filled from its chunks
      createLinkNames(db);
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
