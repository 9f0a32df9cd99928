import type { Logger, WarningCode, WarningDetail } from "../log.js";
import type { IndexWarning, Store } from "../store/index.js";
import type { VaultFile } from "../vault/index.js";

/** The warning of the dense phase: it stands while the note's passages are those it was given for. */
const DENSE_CODES = new Set<string>(["note_truncated"]);

/**
 * The warnings an indexing run records in the index about files, so that `status --verbose` and
 * `check` show them after the run, an interrupted one too. A file's warnings are those the last run
 * that read it gave (a file read again drops its old ones); a dense-phase warning (`note_truncated`)
 * stands until the note's passages are written again; a file gone takes its warnings with it.
 */
export interface RunWarnings {
  /** The run's logger: passes every warning on, and keeps those about a file. */
  log: Logger;
  /**
   * Drops what a pass reads again: call after its walk with the files it found and the notes it
   * reads. A walk that warned (`walked`: the first pass's) also drops the warnings of files gone.
   */
  begin(files: readonly VaultFile[], todo: readonly VaultFile[], walked: boolean): void;
  /** A note's passages were written again: its dense-phase warning goes. */
  rewritten(path: string): void;
  /** Writes the warnings kept to the index (when they changed). */
  save(): Promise<void>;
}

/**
 * Keeps a run's warnings about files, starting from those the index holds.
 *
 * @example
 * ```ts
 * const warnings = await runWarnings(store, log);
 * walkVault(vault, warnings.log);
 * await warnings.save();
 * ```
 */
export async function runWarnings(store: Store, log: Logger): Promise<RunWarnings> {
  const key = (w: { code: string; path: string }) => `${w.code}\0${w.path}`;
  const kept = new Map((await store.indexWarnings()).map((w) => [key(w), w]));
  let changed = false;
  /** Keys warned of since the last `begin` (by this pass's walk). */
  let fresh = new Set<string>();
  const drop = (keep: (w: IndexWarning) => boolean) => {
    for (const [k, w] of kept)
      if (!keep(w)) {
        kept.delete(k);
        changed = true;
      }
  };
  return {
    log: {
      ...log,
      warn(code: WarningCode, message: string, detail?: WarningDetail) {
        log.warn(code, message, detail);
        if (typeof detail?.path !== "string") return;
        kept.set(key({ code, path: detail.path }), { code, path: detail.path, message });
        fresh.add(key({ code, path: detail.path }));
        changed = true;
      },
    },
    begin(files, todo, walked) {
      const onDisk = new Set(files.map((f) => f.path));
      const again = new Set(todo.map((f) => f.path));
      const walkedNow = fresh;
      fresh = new Set();
      drop(
        (w) =>
          walkedNow.has(key(w)) || ((onDisk.has(w.path) || !walked) && (!again.has(w.path) || DENSE_CODES.has(w.code))),
      );
    },
    rewritten(path) {
      drop((w) => w.path !== path || !DENSE_CODES.has(w.code));
    },
    async save() {
      if (!changed) return;
      changed = false;
      await store.setIndexWarnings([...kept.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
    },
  };
}
