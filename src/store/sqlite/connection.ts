import type { Logger } from "../../log.js";
import { openDatabase, openOnFullDisk } from "./read-only.js";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { VaultRagError } from "../../errors.js";
import { makeDir } from "../../make-dir.js";
import { INDEX_DIR } from "../../config.js";
import { ftsNames, ftsText, passageLanguage } from "./fts-text.js";
import { compileDocRegex, containsText } from "../regex.js";
import { prepareSchema, shadowLaterColumns } from "./ddl.js";
import { propTest } from "./props.js";
import { damaged, diskFull, isCorruption, notAnIndex, openFix, readOnly } from "./errors.js";

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
    `vault-rag: ${dir} is a symbolic link to ${target} — vault-rag keeps no index through a link in the vault, which could write outside it; remove the link, or keep the index in that place itself (${path.join(target, path.basename(file))})`,
  );
}

/**
 * Opens (or creates) the SQLite database of the store at an absolute path: refuses what is no
 * index, registers the SQL functions queries use (`vr_regexp`, `vr_contains`, `vr_fts`), sets the
 * pragmas of a writer and brings the schema up to date ({@link prepareSchema}). SQLite's errors
 * become one-line `VaultRagError`s.
 *
 * @example
 * ```ts
 * const db = openConnection("/home/me/notes/.vault-rag/index.db", { create: true });
 * ```
 */
export function openConnection(file: string, opts: SqliteStoreOptions = {}): Database.Database {
  if (!path.isAbsolute(file)) throw new VaultRagError("usage", `vault-rag: index path "${file}" must be absolute`);
  refuseLinkedIndexFolder(file);
  if (!fs.existsSync(file)) {
    if (!opts.create) throw new VaultRagError("no_index", `no index at ${file}`, { fix: { kind: "index", db: file } });
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
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, opts);
    return prepared(db, file, opts);
  } catch (err) {
    if (err instanceof VaultRagError) throw err;
    // a full disk: SQLite cannot make its log's files even to read; the index is read as it is
    const fallback = opts.create ? undefined : (db?.close(), openOnFullDisk(file, opts.log));
    if (!fallback) throw openError(file, err as Error & { code?: string });
    try {
      return prepared(fallback, file, { ...opts, readonly: true });
    } catch (again) {
      throw openError(file, again as Error & { code?: string });
    }
  }
}

/**
 * The page size of a new index file. A window's float16 vector (1 KB at 512 dimensions) and its
 * row fill a third of a 4 KB page, wasting a fifth of it; at 8 KB a page holds 7. til (2,064
 * passages): 14.8 MB at 4 KB, 13.4 MB at 8 KB, 13.6 MB at 16 KB (decisions/lean-store.md). An
 * index made before keeps its page size.
 */
const PAGE_SIZE = 8192;

/** The size of the WAL at which a writer copies it into the file (see `prepared`). */
const CHECKPOINT_BYTES = 256 * 1024 * 1024;

/** Readies an open connection: busy timeout, SQL functions, the writer's pragmas and the schema. */
function prepared(db: Database.Database, file: string, opts: SqliteStoreOptions): Database.Database {
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 10_000}`);
  addFunctions(db);
  // before any pragma that writes (WAL mode rewrites the header): another program's database stays as it was
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length && !tables.includes("meta")) {
    db.close();
    throw notAnIndex(file, `a SQLite database without vault-rag's tables; it holds ${tables.slice(0, 3).join(", ")}`);
  }
  if (!opts.readonly) {
    // a new file's page size, before WAL mode writes its header: see PAGE_SIZE
    if (!tables.length) db.pragma(`page_size = ${PAGE_SIZE}`);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // 256 MB at most (it fills only with pages read): the keyword phase's batches update indexes
    // spread over the whole file; at 100,000 generated notes it took 95 s of CPU with 64 MB, 84 s
    // with 256 MB
    db.pragma("cache_size = -262144");
    // a checkpoint copies every page the WAL holds into the file: each of the keyword phase's
    // commits rewrites most index pages, so one checkpoint each (after 1,000 pages, SQLite's
    // default) copied them all again. Every 256 MB of pages (64K of 4 KB) copies each page once for
    // several commits: at 100,000 generated notes 2.4 GB read and 4.2 GB written became 1.4 and 3.2.
    // A crash of the process loses nothing either way (the WAL is the file's to recover); on a
    // power loss with synchronous = NORMAL, the commits since the last checkpoint may be rolled
    // back, as before, and the next run indexes their notes again
    db.pragma(`wal_autocheckpoint = ${CHECKPOINT_BYTES / (db.pragma("page_size", { simple: true }) as number)}`);
    // and the WAL file is cut back to 64 MB once checkpointed, not kept at its largest
    db.pragma("journal_size_limit = 67108864");
  }
  if (!opts.readonly) prepareSchema(db, file, tables);
  else shadowLaterColumns(db);
  return db;
}

/** SQLite's error on opening an index as a one-line `VaultRagError` (one already is, as it is). */
function openError(file: string, e: Error & { code?: string }): Error {
  if (e instanceof VaultRagError) return e;
  if (e.code === "SQLITE_READONLY") return readOnly(file);
  if (e.code === "SQLITE_READONLY_DIRECTORY" || e.code === "SQLITE_READONLY_CANTINIT")
    return new VaultRagError(
      "io",
      `vault-rag: cannot read the index at ${file}: its folder is read-only, and SQLite writes a shared-memory file beside an index even to read it — make ${path.dirname(file)} writable (searching changes nothing in the index), or search a copy of the vault`,
    );
  if (e.code === "SQLITE_FULL") return diskFull(file);
  if (isCorruption(e)) return damaged(file, e);
  return new VaultRagError("io", `vault-rag: cannot open the index at ${file}: ${e.message}${openFix(file, e.code)}`);
}

/** Registers the SQL functions the store's statements call, but `vr_passing` (the store's own). */
function addFunctions(db: Database.Database): void {
  db.function("vr_regexp", { deterministic: true }, (pattern: unknown, text: unknown) =>
    compileDocRegex(String(pattern)).test(String(text)) ? 1 : 0,
  );
  // $contains in JavaScript rather than SQLite's instr: it can be stopped (see containsText)
  db.function("vr_contains", { deterministic: true }, (needle: unknown, text: unknown) =>
    containsText(String(needle), String(text)) ? 1 : 0,
  );
  // a property condition, read as the reference evaluator reads it
  db.function("vr_prop", { deterministic: true }, propTest());
  db.function("vr_fts", { deterministic: true, varargs: true }, (text: unknown, lang?: unknown) =>
    ftsText(text, typeof lang === "string" ? lang : undefined),
  );
  db.function("vr_fts_names", { deterministic: true }, (title: unknown, aliases: unknown, lang: unknown) =>
    ftsNames(title, aliases, typeof lang === "string" ? lang : undefined),
  );
  db.function(
    "vr_lang",
    { deterministic: true },
    (title: unknown, section: unknown, text: unknown) =>
      passageLanguage(String(title ?? ""), String(section ?? ""), String(text ?? "")) ?? null,
  );
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

/** The first bytes of every SQLite database file. */
const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * Why a file is no index, judged by its first bytes (an empty file is a new index), or
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

function isFolder(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
