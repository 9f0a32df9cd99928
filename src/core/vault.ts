/**
 * The one core under every interface: {@link openVault}. The CLI, MCP, the HTTP API and the library
 * read their input, call a method of the handle it returns, and render the result.
 */
import path from "node:path";
import { resolveDb, sidecarDirFor } from "../config.js";
import { readSettings, SETTINGS_FILE } from "../settings.js";
import { VaultRagError } from "../errors.js";
// the lock and manifest modules alone: the indexer, the watcher and the vault walk are loaded by
// the methods that use them, so a search starts without them
import { checkIndexModel, embedderForIndex } from "../indexing/manifest.js";
import { libraryFix, rewordedError } from "../render/fix.js";
import { displayLocation, isCorruption } from "../store/index.js";
import { assertVaultFolder } from "../vault/walk.js";
import { placeFix, readingMethods, searchingMethods, writingMethods, type Core, type Opened } from "./methods.js";
import { openForQuery, openIfIndexed } from "./open-query.js";
import { rerankersOf } from "./rerank.js";
import type { OpenVaultOptions, VaultHandle } from "./types.js";

/** The handle's methods that return at once, never throw an index's error, and are not wrapped. */
const PLAIN = new Set(["writer", "llm", "abandon"]);

/**
 * Opens a vault: the same index, defaults and rules for every interface. Errors carry a structured
 * `fix` ({@link VaultRagError.fix}) naming this index and vault; their message names the handle's
 * method to call.
 *
 * @example
 * ```ts
 * import { openVault } from "vault-rag";
 * const v = await openVault("/home/me/notes");
 * await v.index();
 * const { hits } = await v.search("how do I save power", { tags: ["pico"] });
 * await v.close();
 * ```
 */
export async function openVault(vaultDir: string, opts: OpenVaultOptions = {}): Promise<VaultHandle> {
  const c = coreOf(assertVaultFolder(vaultDir), opts);
  // an index whose own model sends text over the network, named by nothing on this machine: refused now
  if (opts.checkModel !== false)
    await checkIndexModel(c.db, { ...opts, store: c.storeOpts }).catch((e: unknown) => {
      throw e instanceof VaultRagError && e.fix ? rewordedError(e, libraryFix) : e;
    });
  const handle: VaultHandle = {
    vault: c.vault,
    db: c.shown,
    ...writingMethods(c),
    ...searchingMethods(c),
    ...readingMethods(c),
  };
  const guard = errorsOf({ vault: c.known, db: c.shown, guessed: opts.vaultGuessed });
  for (const [name, method] of Object.entries(handle))
    if (typeof method === "function" && !PLAIN.has(name))
      (handle as unknown as Record<string, unknown>)[name] = guard(method as (...a: unknown[]) => Promise<unknown>);
  return handle;
}

/** What a handle's methods share: the vault, its index, and the index opened once. */
function coreOf(vault: string, opts: OpenVaultOptions): Core {
  const db = resolveDb(vault, opts.db);
  const storeOpts = { ...opts.chroma, sidecarDir: sidecarDirFor(vault), ...(opts.log ? { log: opts.log } : {}) };
  // the open index, opened once however many first calls arrive together (the web app asks for
  // tags and folders at once); forgotten when there is no index yet, or opening failed
  let opening: Promise<Opened | undefined> | undefined;
  let filed: { file: string; spec?: string } | undefined;
  const once = (how: typeof openIfIndexed) =>
    (opening ??= how(db, { ...opts, store: storeOpts }).then(
      (o) => {
        if (!o) opening = undefined;
        return o;
      },
      (err) => {
        opening = undefined;
        throw err;
      },
    ));
  return {
    vault,
    db,
    shown: displayLocation(db),
    storeOpts,
    opts,
    // the vault whose folders a hint may look into: not one the index is not known to be of
    known: opts.vaultKnown === false ? undefined : vault,
    hintVault: opts.vaultKnown === false || opts.remote ? undefined : vault,
    once,
    // no index yet: openForQuery refuses in the same words as everywhere else
    open: async () => ((await once(openIfIndexed)) ?? (await once(openForQuery)))!,
    async shut() {
      const was = opening;
      opening = undefined;
      await (await was?.catch(() => undefined))?.store.close();
    },
    // the question thread is for searching: an indexing embedder never starts it
    rerankers: rerankersOf(
      opts,
      process.env,
      () =>
        // read once a handle first needs it, not again at every search
        (filed ??=
          opts.vaultKnown === false
            ? { file: "" }
            : { file: path.join(vault, SETTINGS_FILE), spec: readSettings(vault).rerank }),
    ),
    indexingEmbedder: (log = opts.log) => embedderForIndex(db, { ...opts, queryThread: false, store: storeOpts, log }),
  };
}

/**
 * Wraps a handle's method so that what it throws names this index and vault: damage SQLite finds
 * during a query becomes the refusal that names the rebuild, and a fix from an inner layer gets the
 * index and vault it is about, worded as the method to call.
 */
function errorsOf(place: { vault?: string; db: string; guessed?: boolean }) {
  const placed = (e: unknown): unknown => {
    if (isCorruption(e))
      return new VaultRagError("index_damaged", `the index at ${place.db} is damaged (${(e as Error).message})`, {
        fix: { kind: "rebuild", db: place.db, ...(place.vault ? { vault: place.vault } : {}) },
        cause: e,
      });
    if (!(e instanceof VaultRagError) || !e.fix) return e;
    const fix = placeFix(e.fix, place);
    if (place.guessed && fix.vault === place.vault) fix.guessed = true;
    return rewordedError(new VaultRagError(e.code, e.what, { fix, cause: e.cause }), libraryFix);
  };
  return <A extends unknown[], R>(method: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await method(...a);
      } catch (e) {
        throw placed(e);
      }
    };
}
