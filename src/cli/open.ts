import fs from "node:fs";
import { resolveDb, resolveVault } from "../config.js";
import { createEmbedder, type Embedder, type EmbedderOptions } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import { modelMismatch, modelSpecOf } from "../index/manifest.js";
import type { Logger } from "../log.js";
import { SqliteStore, type Manifest } from "../store/index.js";

/** Where a command works: the vault folder and the index location, both absolute. */
export interface Location {
  vault: string;
  db: string;
}

/** Resolves vault and index for a command. */
export function locate(opts: { vault?: string; db?: string }): Location {
  const vault = resolveVault(opts.vault);
  return { vault, db: resolveDb(vault, opts.db) };
}

export { modelSpecOf as modelSpec } from "../index/manifest.js";

/**
 * Opens an existing index for reading, with the embedder that built it. A missing or empty index,
 * or a `--model` that differs from the index's, is a clear error.
 */
export function openForQuery(loc: Location, opts: { model?: string; log: Logger } & EmbedderOptions): { store: SqliteStore; embedder: Embedder; manifest: Manifest } {
  if (/^[a-z]+:\/\//i.test(loc.db)) throw new VaultRagError("usage", `vault-rag: ${loc.db} is a server address; the Chroma backend is not available in this version — use a file path`);
  if (!fs.existsSync(loc.db)) throw new VaultRagError("no_index", `vault-rag: no index at ${loc.db} — run \`vault-rag index <vault>\` first`);
  const store = SqliteStore.open(loc.db);
  const manifest = store.manifest();
  if (!manifest) {
    store.close();
    throw new VaultRagError("no_index", `vault-rag: the index at ${loc.db} was never completed — run \`vault-rag index <vault>\` first`);
  }
  const spec = modelSpecOf(manifest);
  if (opts.model && createEmbedder(opts.model, opts).id !== createEmbedder(spec, opts).id) {
    store.close();
    throw modelMismatch(loc.db, manifest, opts.model);
  }
  return { store, embedder: createEmbedder(spec, opts), manifest };
}
