import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "../../log.js";

// SQLite reads `file:` names as URIs only when told so before its first connection: the read-only
// fallback below needs `?immutable=1`. Every index path given to SQLite is absolute, so no other
// name changes meaning (a user's own SQLITE_USE_URI=0 is kept: the fallback then fails as before).
process.env.SQLITE_USE_URI ??= "1";

/** SQLite's errors for a WAL database it may read but cannot make the shared-memory file of. */
const NO_SHARED_MEMORY = new Set(["SQLITE_READONLY_DIRECTORY", "SQLITE_READONLY_CANTINIT", "SQLITE_CANTOPEN"]);

/** The `file:` URI of an absolute path, with `immutable=1`. */
function immutableUri(file: string): string {
  return `file:${file.split(path.sep).map(encodeURIComponent).join("/")}?mode=ro&immutable=1`;
}

/**
 * The connections opened read-only because their disk is full ({@link openOnFullDisk}): a write to
 * one says the disk is full, not that the index is read-only.
 */
export const ON_FULL_DISK: WeakSet<object> = new WeakSet();

/** True when the file system holding `dir` has no space left for this process. */
export function diskIsFull(dir: string): boolean {
  try {
    return fs.statfsSync(dir).bavail === 0;
  } catch {
    return false;
  }
}

/**
 * Opens an index on a full disk, where SQLite cannot make the write-ahead log's files to open it
 * even to read (`disk I/O error`): read as it is on disk (immutable), as a read-only folder is,
 * after removing the shared-memory file that the failed open left too short to be any
 * connection's (a live one is at least 32 KiB). A write to it is refused as a full disk's; `log.info`
 * says so (`--verbose`). Undefined when the disk is not full or the file cannot be read so.
 *
 * @example
 * ```ts
 * openOnFullDisk("/v/.vault-rag/index.db"); // a read-only connection when the disk is full
 * ```
 */
export function openOnFullDisk(file: string, log?: Logger): Database.Database | undefined {
  if (!diskIsFull(path.dirname(file))) return undefined;
  try {
    if (fs.statSync(`${file}-shm`).size < 32768) fs.rmSync(`${file}-shm`);
  } catch {
    // none there
  }
  let db: Database.Database;
  try {
    db = new Database(immutableUri(file), { readonly: true, fileMustExist: true });
    db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get();
  } catch {
    return undefined;
  }
  ON_FULL_DISK.add(db);
  log?.info(
    `vault-rag: the disk holding ${file} is full, so the index is read as it is on disk (SQLite immutable: no shared-memory file, no locks); a write waits for free space`,
  );
  return db;
}

/** True when this process may create files in `dir`. */
function canWrite(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens an index file with better-sqlite3. A read-only open of an index in a folder this process
 * cannot write (a mounted backup, a read-only share) cannot make the shared-memory file SQLite's
 * WAL mode keeps beside the index even to read it: such an index is opened `immutable` instead,
 * read as it is on disk with no shared memory and no locks, which `log.info` says (`--verbose`).
 *
 * @example
 * ```ts
 * const db = openDatabase("/mnt/backup/notes/.vault-rag/index.db", { readonly: true }); // immutable when /mnt/backup is read-only
 * ```
 */
export function openDatabase(
  file: string,
  opts: { readonly?: boolean; create?: boolean; log?: Logger },
): Database.Database {
  const db = new Database(file, { readonly: !!opts.readonly, fileMustExist: !opts.create });
  if (!opts.readonly) return db;
  try {
    db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get();
    return db;
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    if (!NO_SHARED_MEMORY.has(code) || canWrite(path.dirname(file))) throw err;
    db.close();
    let fallback: Database.Database;
    try {
      fallback = new Database(immutableUri(file), { readonly: true, fileMustExist: true });
      fallback.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get();
    } catch {
      throw err; // the first error says what is wrong, and how to fix it
    }
    opts.log?.info(
      `vault-rag: ${path.dirname(file)} cannot be written, so the index is read as it is on disk (SQLite immutable: no shared-memory file, no locks; a change made to it while this runs is not seen)`,
    );
    return fallback;
  }
}
