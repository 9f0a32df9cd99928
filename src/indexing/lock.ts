import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { makeDir } from "../make-dir.js";
import { openOwnFile } from "../safe-file.js";
import { refuseLinkedIndexFolder } from "../store/index.js";

/**
 * The lock files this process holds, each with how to release it (for an exit that cannot unwind:
 * Ctrl-C). Asked before a file is opened again: reading one through a second descriptor would drop
 * its kernel lock (POSIX).
 */
const held = new Map<string, () => void>();

/**
 * Releases every writer lock this process holds, removing their files: for a command that exits
 * at once (Ctrl-C during `index`), so the next run finds no lock to clear and warn about.
 *
 * @example
 * ```ts
 * process.on("SIGINT", () => { releaseHeldLocks(); process.exit(130); });
 * ```
 */
export function releaseHeldLocks(): void {
  for (const release of [...held.values()])
    try {
      release();
    } catch {
      // the process ends next: the kernel frees the lock, and the next run clears its file
    }
}

/**
 * Takes the writer lock of an index: `<db>.lock`, locked by the kernel through SQLite (an exclusive
 * transaction held for the whole run), so two processes can never both hold it, and a lock whose
 * process died is free again at once, whatever pid the system hands out next. The file also says
 * who holds it (pid and process start time) for messages and `status`; a crashed holder's text is
 * cleared with a `lock_stale` warning. Returns the release function.
 *
 * @example
 * ```ts
 * const release = acquireLock("/abs/.vault-rag/index.db", log);
 * try { ... } finally { release(); }
 * ```
 */
export function acquireLock(dbPath: string, log: Logger): () => void {
  const file = `${dbPath}.lock`;
  const dir = path.dirname(dbPath);
  refuseLinkedIndexFolder(dbPath); // before a folder or lock is made through it
  try {
    makeDir(dir);
  } catch (err) {
    throw new VaultRagError(
      "io",
      `vault-rag: cannot create the index folder "${dir}": ${(err as Error).message} — check the path, or give --db a file in a folder you can write to`,
    );
  }
  if (held.has(file)) throw locked(dbPath, process.pid);
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      // never through a symbolic link: a lock planted as a link in a shared vault's .vault-rag/
      // would have the file it points to truncated and overwritten with this process's pid
      fd = openOwnFile(file, fs.constants.O_RDWR | fs.constants.O_CREAT);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP" || code === "ENOTREG")
        throw new VaultRagError(
          "io",
          `vault-rag: the lock file ${file} is ${code === "ELOOP" ? "a symbolic link" : "not a regular file"} — vault-rag never writes through one (it would overwrite what it points to); remove it and run again`,
        );
      throw new VaultRagError(
        "io",
        `vault-rag: cannot create the lock file ${file}: ${(err as Error).message} — check the folder is writable`,
      );
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { timeout: 0 });
      db.pragma("journal_mode = MEMORY"); // no journal file beside the lock
      db.exec("BEGIN EXCLUSIVE");
    } catch (err) {
      db?.close();
      const code = (err as { code?: string }).code;
      const owner = readOwner(fd);
      if (code === "SQLITE_BUSY") {
        fs.closeSync(fd);
        throw locked(dbPath, owner?.pid);
      }
      if (code !== "SQLITE_NOTADB") {
        fs.closeSync(fd);
        throw new VaultRagError("io", `vault-rag: cannot take the lock ${file}: ${(err as Error).message}`);
      }
      // the text of a holder that died: nobody holds the kernel lock, so it is cleared and taken
      log.warn(
        "lock_stale",
        `vault-rag: removed a stale lock left by process ${owner?.pid ?? "unknown"} on ${dbPath}`,
        { path: file },
      );
      fs.ftruncateSync(fd, 0);
      fs.closeSync(fd);
      continue;
    }
    // the file may have been released and removed between our open and our lock: then try again
    if (!sameFile(fd, file)) {
      db.exec("ROLLBACK");
      db.close();
      fs.closeSync(fd);
      continue;
    }
    try {
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, `${process.pid} ${startTime(process.pid) ?? ""}\n`, 0);
    } catch {
      // who holds the lock is only for messages (a full disk must not stop the run here)
    }
    const conn = db;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      held.delete(file);
      // removed while still held, so a process waiting on this file finds it gone and starts over
      if (sameFile(fd, file)) fs.rmSync(file, { force: true });
      conn.exec("ROLLBACK");
      conn.close();
      fs.closeSync(fd);
    };
    held.set(file, release);
    return release;
  }
  throw new VaultRagError("index_locked", `vault-rag: cannot take the lock ${file} — another process keeps taking it`);
}

/**
 * The pid of the process that holds the writer lock of an index, or `undefined` when nobody does
 * (as far as its lock file tells: a process that is gone, or a pid now used by another process,
 * does not count).
 *
 * @example
 * ```ts
 * lockHolder("/abs/.vault-rag/index.db"); // 4242 while an index run holds it
 * ```
 */
export function lockHolder(dbPath: string): number | undefined {
  const file = `${dbPath}.lock`;
  if (held.has(file)) return process.pid;
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const owner = parseOwner(text);
  return owner && alive(owner.pid, owner.start) ? owner.pid : undefined;
}

function locked(dbPath: string, pid: number | undefined): VaultRagError {
  return new VaultRagError(
    "index_locked",
    `vault-rag: another vault-rag process (pid ${pid ?? "unknown"}) is writing to ${dbPath} — wait for it to finish, or stop it`,
  );
}

function readOwner(fd: number): { pid: number; start?: string } | undefined {
  const buf = Buffer.alloc(64);
  try {
    return parseOwner(buf.toString("utf8", 0, fs.readSync(fd, buf, 0, buf.length, 0)));
  } catch {
    return undefined;
  }
}

function parseOwner(text: string): { pid: number; start?: string } | undefined {
  const m = /^(\d+) ?(\d*)\n/.exec(text);
  return m ? { pid: Number(m[1]), start: m[2] || undefined } : undefined;
}

function sameFile(fd: number, file: string): boolean {
  try {
    const a = fs.fstatSync(fd);
    const b = fs.statSync(file);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}

/** A process's start time (clock ticks since boot, from /proc), which tells a reused pid apart. */
function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function alive(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = startTime(pid);
  return !start || !now || now === start;
}
