/** Checking an index and copying it to another backend: `vault-rag check` and `vault-rag migrate`. */
import { resolveDb } from "../config.js";
import { VaultRagError } from "../errors.js";
import {
  checkChromaIndex,
  checkIndex,
  migrateIndex,
  type CheckReport,
  type MigrateSummary,
} from "../indexing/index.js";
import type { Logger } from "../log.js";
import { displayLocation, isChromaLocation, storeExists, type OpenStoreOptions } from "../store/index.js";

export type { CheckReport, MigrateSummary };

/**
 * Verifies the index at `db` (manifest, orphans, keyword index, stale notes); with `repair`, fixes
 * what needs no embedding. No index is refused with the fix to build one.
 *
 * @example
 * ```ts
 * (await checkVaultIndex("/home/me/notes", "/home/me/notes/.vault-rag/index.db", {})).ok; // true
 * ```
 */
export async function checkVaultIndex(
  vault: string,
  db: string,
  store: OpenStoreOptions,
  o: { repair?: boolean } = {},
): Promise<CheckReport> {
  if (!(await storeExists(db, store)))
    throw new VaultRagError("no_index", `no index at ${displayLocation(db)}`, { fix: { kind: "index", db } });
  return isChromaLocation(db)
    ? checkChromaIndex(vault, db, { repair: o.repair, store })
    : checkIndex(vault, db, { repair: o.repair });
}

/**
 * Copies the index at `db` to `to` (a file or a Chroma address, resolved as `--db` is) without
 * re-embedding, verifying counts.
 *
 * @example
 * ```ts
 * (await migrateVaultIndex("/home/me/notes", db, "chroma://localhost:8000/notes", {})).chunks; // 2064
 * ```
 */
export async function migrateVaultIndex(
  vault: string,
  db: string,
  to: string,
  store: OpenStoreOptions & { log?: Logger },
): Promise<MigrateSummary> {
  return migrateIndex(db, resolveDb(vault, to, {}), { store, log: store.log });
}
