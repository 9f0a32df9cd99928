import { VaultRagError } from "../errors.js";
import { silentLogger, type Logger } from "../log.js";
import {
  ChromaStore,
  displayLocation,
  lockTarget,
  openExisting,
  openStore,
  type NoteEntry,
  type OpenStoreOptions,
  type StoreRecord,
} from "../store/index.js";
import { acquireLock } from "./lock.js";

/** What a migration copied. */
export interface MigrateSummary {
  from: string;
  to: string;
  notes: number;
  chunks: number;
  seconds: number;
}

/**
 * Copies an index to another backend (SQLite file ⇄ Chroma collection) without embedding anything:
 * vectors, texts, metadata, note hashes, links with their backlink text and the manifest. The target must be new or empty. Counts
 * are verified at the end (on a Chroma target, against the server's own count).
 *
 * @example
 * ```ts
 * await migrateIndex("/home/me/notes/.vault-rag/index.db", "chroma://localhost:8000/notes");
 * ```
 */
export async function migrateIndex(
  from: string,
  to: string,
  opts: {
    store?: OpenStoreOptions;
    log?: Logger;
    batchNotes?: number;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<MigrateSummary> {
  const t0 = performance.now();
  const log = opts.log ?? silentLogger;
  const storeOpts = { ...opts.store, log };
  if (displayLocation(from) === displayLocation(to))
    throw new VaultRagError(
      "usage",
      `vault-rag: cannot migrate ${displayLocation(from)} onto itself — give --to another file or collection`,
    );
  const source = await openExisting(from, storeOpts);
  if (!source)
    throw new VaultRagError("no_index", `no index at ${displayLocation(from)} to migrate`, {
      fix: { kind: "index", db: displayLocation(from) },
    });
  let release = () => {};
  try {
    release = acquireLock(lockTarget(to, opts.store?.sidecarDir), log);
    const manifest = await source.manifest();
    if (!manifest)
      throw new VaultRagError("no_index", `the index at ${source.location} was never completed`, {
        fix: { kind: "index", db: source.location },
      });
    const target = await openStore(to, { ...storeOpts, create: true });
    try {
      const held = (await target.count()).chunks;
      if (held > 0)
        throw new VaultRagError(
          "usage",
          `vault-rag: ${target.location} already holds an index (${held} chunks) — migrate into a new file or collection, or delete it first`,
        );
      await target.setManifest(manifest);
      const notes = [...(await source.notes()).values()];
      // one pass over the source's records (a Chroma source pages through its collection)
      const byPath = new Map<string, StoreRecord[]>();
      for (const r of await source.get({ includeVectors: true })) {
        let list = byPath.get(r.meta.path);
        if (!list) byPath.set(r.meta.path, (list = []));
        list.push(r);
      }
      const links = await source.linkTexts();
      const batchNotes = opts.batchNotes ?? 256;
      for (let i = 0; i < notes.length; i += batchNotes) {
        const batch = notes.slice(i, i + batchNotes).map((note: NoteEntry) => ({
          note,
          records: (byPath.get(note.path) ?? []).sort((a, b) => a.meta.ordinal - b.meta.ordinal),
          links: links.get(note.path),
        }));
        await target.upsertNotes(batch);
        opts.onProgress?.(Math.min(i + batchNotes, notes.length), notes.length);
      }
      await target.setManifest(manifest);
      const want = await source.count();
      const got = await target.count();
      const server = target instanceof ChromaStore ? await target.serverCount() : got.chunks;
      if (got.notes !== want.notes || got.chunks !== want.chunks || server !== want.chunks)
        throw new VaultRagError(
          "store_failed",
          `vault-rag: migration to ${target.location} is incomplete: ${got.notes}/${want.notes} notes, ${server}/${want.chunks} chunks — run the migration again into an empty target`,
        );
      await target.warmDense?.();
      return {
        from: source.location,
        to: target.location,
        notes: got.notes,
        chunks: got.chunks,
        seconds: (performance.now() - t0) / 1000,
      };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
    release();
  }
}
