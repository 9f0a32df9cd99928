/** Which process writes an index now: what `status` names, seen from a process that may be the writer itself. */
import { sidecarDirFor } from "../config.js";
import { lockHolder } from "../indexing/lock.js";
import { lockTarget } from "../store/index.js";

/**
 * The process holding an index's writer lock, this one included (a handle's `writer()` leaves this
 * one out), or undefined. A resident process (`watch`, `serve --watch`) answers `status` for the
 * CLI with it: run alone, the CLI would see that process as the writer.
 *
 * @example
 * ```ts
 * indexWriter("/home/me/notes", "/home/me/notes/.vault-rag/index.db"); // 4242 while a pass runs
 * ```
 */
export function indexWriter(vault: string, db: string): number | undefined {
  return lockHolder(lockTarget(db, sidecarDirFor(vault)));
}
