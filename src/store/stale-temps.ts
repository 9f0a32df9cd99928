import fs from "node:fs";
import path from "node:path";

/**
 * The temporary files of an index's vector snapshot (`index.db.vectors.<pid>.<id>.tmp`, and those of
 * a full rebuild's `index.db.rebuild.vectors.…`): written, then renamed over the snapshot; a crash
 * or a full disk between the two leaves one behind.
 */
function tempsOf(db: string): { name: string; pid: number }[] {
  const base = path.basename(db).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^${base}(?:\\.rebuild)?\\.vectors\\.(\\d+)\\.[0-9a-f-]+\\.tmp$`);
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(db));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const m = pattern.exec(name);
    return m ? [{ name, pid: Number(m[1]) }] : [];
  });
}

/** Whether a process of this id runs on this machine (one of another user's counts: it may not be signalled). */
function running(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The temporary snapshot files beside the index at `db` that no running process is writing: their
 * writer's process id (in the name) is gone.
 *
 * @example
 * ```ts
 * staleTemps("/v/.vault-rag/index.db"); // ["index.db.vectors.4242.1a2b3c4d.tmp"] after a kill -9 of process 4242
 * ```
 */
export function staleTemps(db: string): string[] {
  return tempsOf(db)
    .filter((t) => !running(t.pid))
    .map((t) => t.name);
}

/**
 * Removes the {@link staleTemps} beside the index at `db`; returns the names removed (one that
 * cannot be removed, in a read-only folder, is left and not named).
 *
 * @example
 * ```ts
 * removeStaleTemps("/v/.vault-rag/index.db"); // ["index.db.vectors.4242.1a2b3c4d.tmp"]
 * ```
 */
export function removeStaleTemps(db: string): string[] {
  return staleTemps(db).filter((name) => {
    try {
      fs.unlinkSync(path.join(path.dirname(db), name));
      return true;
    } catch {
      return false;
    }
  });
}
