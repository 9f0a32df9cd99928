import { createEmbedder, type EmbedderOptions } from "../embed/registry.js";
import { rememberQueries } from "../embed/remember.js";
import type { Embedder } from "../embed/types.js";
import { indexModelOptions, indexModelRefusal, refusingEmbedder } from "../embed/remote.js";
// the lock and manifest modules alone: the indexing room's index brings the indexer and the watcher
import { lockHolder } from "../indexing/lock.js";
import { modelMismatch, modelSpecOf, sameModel } from "../indexing/manifest.js";
import { VaultRagError } from "../errors.js";
import {
  displayLocation,
  lockTarget,
  openFollowingSwaps,
  type Manifest,
  type OpenStoreOptions,
  type Store,
} from "../store/index.js";

/**
 * Opens an existing index for reading, with the embedder that built it. A missing or unfinished
 * index, or a `model` other than the index's, is a clear error. Every interface opens through the core (src/core/vault.ts), which opens through this.
 *
 * @example
 * ```ts
 * const { store, embedder } = await openForQuery("/home/me/notes/.vault-rag/index.db");
 * ```
 */
export async function openForQuery(
  db: string,
  opts: { model?: string; store?: OpenStoreOptions } & EmbedderOptions = {},
): Promise<{ store: Store; embedder: Embedder; manifest: Manifest }> {
  const opened = await openIfIndexed(db, opts);
  if (!opened)
    throw new VaultRagError("no_index", `no index at ${displayLocation(db)}`, { fix: { kind: "index", db } });
  return opened;
}

/**
 * {@link openForQuery}, but `undefined` when there is no index at all (one connection either way:
 * a status report tells "not indexed yet" from an index it can read).
 *
 * @example
 * ```ts
 * const opened = await openIfIndexed(db); // undefined before the first index
 * ```
 */
export async function openIfIndexed(
  db: string,
  opts: { model?: string; store?: OpenStoreOptions } & EmbedderOptions = {},
): Promise<{ store: Store; embedder: Embedder; manifest: Manifest } | undefined> {
  const shown = displayLocation(db);
  // a long-lived reader (MCP server, library handle, chat) follows an `index --full` swap
  const store = await openFollowingSwaps(db, opts.store);
  const building = () => {
    const pid = lockHolder(lockTarget(db, opts.store?.sidecarDir));
    if (pid)
      throw new VaultRagError(
        "index_locked",
        `vault-rag: indexing is in progress (pid ${pid}): the index at ${shown} is being built — wait for it to finish, then try again`,
      );
  };
  if (!store) {
    building();
    return undefined;
  }
  const manifest = await store.manifest();
  if (!manifest) {
    await store.close();
    building();
    throw new VaultRagError("no_index", `the index at ${shown} was never completed`, { fix: { kind: "index", db } });
  }
  if (opts.model && !sameModel(manifest, createEmbedder(opts.model, opts))) {
    await store.close();
    throw modelMismatch(shown, manifest, opts.model);
  }
  // the index's own model, unless it sends text over the network and nothing on this machine names
  // it: then every embedding is refused, and nothing is sent (status and related notes still work)
  const own = createEmbedder(modelSpecOf(manifest), opts.model ? opts : indexModelOptions(modelSpecOf(manifest), opts));
  const refusal = opts.model ? undefined : indexModelRefusal(shown, modelSpecOf(manifest), opts);
  // a process that searches (library, MCP, serve, chat) embeds a question asked again only once
  return { store, embedder: rememberQueries(refusal ? refusingEmbedder(own, refusal) : own), manifest };
}
