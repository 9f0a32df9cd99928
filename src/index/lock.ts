import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";

/**
 * Takes the writer lock of an index (`<db>.lock`, holding the owner's pid). A lock whose process
 * is gone is stale and is taken over with a `lock_stale` warning. Returns the release function.
 *
 * @example
 * ```ts
 * const release = acquireLock("/abs/.vault-rag/index.db", log);
 * try { ... } finally { release(); }
 * ```
 */
export function acquireLock(dbPath: string, log: Logger): () => void {
  const file = `${dbPath}.lock`;
  try {
    fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  } catch (err) {
    throw new VaultRagError("io", `vault-rag: cannot create the index folder ${path.dirname(dbPath)}: ${(err as Error).message} — check the folder is writable`);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      return () => {
        try {
          if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.rmSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new VaultRagError("io", `vault-rag: cannot create the lock file ${file}: ${(err as Error).message} — check the folder is writable`);
      }
      const pid = Number(fs.readFileSync(file, "utf8").trim());
      if (pid && pid !== process.pid && alive(pid)) {
        throw new VaultRagError("index_locked", `vault-rag: another vault-rag process (pid ${pid}) is writing to ${dbPath} — wait for it to finish, or stop it`);
      }
      log.warn("lock_stale", `vault-rag: removed a stale lock left by process ${pid || "unknown"} on ${dbPath}`, { path: file });
      fs.rmSync(file, { force: true });
    }
  }
  throw new VaultRagError("index_locked", `vault-rag: cannot take the lock ${file} — another process keeps taking it`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
