import { resolveDb, resolveVault, sidecarDirFor } from "../config.js";
import { createEmbedder, type Embedder, type EmbedderOptions } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import { modelMismatch, modelSpecOf } from "../index/manifest.js";
import type { Logger } from "../log.js";
import { displayLocation, openStore, storeExists, type Manifest, type OpenStoreOptions, type Store } from "../store/index.js";

/** Where a command works: the vault folder and the index location (an absolute path or a Chroma address). */
export interface Location {
  vault: string;
  db: string;
  /** The index as shown to users (a Chroma address without secrets). */
  shown: string;
  /** Options for opening the store (the Chroma sidecar folder inside the vault). */
  store: OpenStoreOptions;
}

/** Resolves vault and index for a command. */
export function locate(opts: { vault?: string; db?: string }): Location {
  const vault = resolveVault(opts.vault);
  const db = resolveDb(vault, opts.db);
  return { vault, db, shown: displayLocation(db), store: { sidecarDir: sidecarDirFor(vault) } };
}

export { modelSpecOf as modelSpec } from "../index/manifest.js";

/**
 * Opens an existing index for reading, with the embedder that built it. A missing or empty index,
 * or a `--model` that differs from the index's, is a clear error.
 */
export async function openForQuery(loc: Location, opts: { model?: string; log: Logger } & EmbedderOptions): Promise<{ store: Store; embedder: Embedder; manifest: Manifest }> {
  const storeOpts = { ...loc.store, log: opts.log };
  if (!(await storeExists(loc.db, storeOpts))) throw new VaultRagError("no_index", `vault-rag: no index at ${loc.shown} — run \`vault-rag index <vault>\` first`);
  const store = await openStore(loc.db, storeOpts);
  const manifest = await store.manifest();
  if (!manifest) {
    await store.close();
    throw new VaultRagError("no_index", `vault-rag: the index at ${loc.shown} was never completed — run \`vault-rag index <vault>\` first`);
  }
  const spec = modelSpecOf(manifest);
  if (opts.model && createEmbedder(opts.model, opts).id !== createEmbedder(spec, opts).id) {
    await store.close();
    throw modelMismatch(loc.shown, manifest, opts.model);
  }
  return { store, embedder: createEmbedder(spec, opts), manifest };
}
