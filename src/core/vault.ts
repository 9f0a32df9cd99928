/**
 * The one core under every interface: {@link openVault}. The CLI, MCP, the HTTP API and the library
 * read their input, call a method of the handle it returns, and render the result.
 */
import { answerContext, askContext, createLlm, DEFAULT_LLM } from "../answer/index.js";
import { resolveDb, sidecarDirFor } from "../config.js";
import type { Embedder } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
// the lock and manifest modules alone: the indexer, the watcher and the vault walk are loaded by
// the methods that use them, so a search starts without them
import { lockHolder, releaseHeldLocks } from "../indexing/lock.js";
import { embedderForIndex } from "../indexing/manifest.js";
import { libraryFix, rewordedError } from "../render/fix.js";
import { hintLines } from "../render/hints.js";
import { flatHit, noResultHints, relatedNotes, runSearches, search, searchOptionsOf } from "../search/index.js";
import {
  discardRebuild,
  displayLocation,
  isCorruption,
  lockTarget,
  type Manifest,
  type Store,
} from "../store/index.js";
import { assertVaultFolder, readNoteText, whyNoteMissing } from "../vault/index.js";
import { explainSearch } from "./explain.js";
import { openForQuery, openIfIndexed } from "./open-query.js";
import { staleHits } from "./stale-hits.js";
import { indexStatus, noIndexStatus } from "./status.js";
import type { OpenVaultOptions, VaultHandle, VaultStatusMaybeCounted } from "./types.js";

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
  const vault = assertVaultFolder(vaultDir);
  const db = resolveDb(vault, opts.db);
  const shown = displayLocation(db);
  const storeOpts = { ...opts.chroma, sidecarDir: sidecarDirFor(vault), ...(opts.log ? { log: opts.log } : {}) };
  type Opened = { store: Store; embedder: Embedder; manifest: Manifest };
  // the open index, opened once however many first calls arrive together (the web app asks for
  // tags and folders at once); forgotten when there is no index yet, or opening failed
  let opening: Promise<Opened | undefined> | undefined;
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
  // no index yet: openForQuery refuses in the same words as everywhere else
  const open = async (): Promise<Opened> => ((await once(openIfIndexed)) ?? (await once(openForQuery)))!;
  // the question thread is for searching: an indexing embedder never starts it
  const indexingEmbedder = (log = opts.log) =>
    embedderForIndex(db, { ...opts, queryThread: false, store: storeOpts, log });
  const shut = async () => {
    const was = opening;
    opening = undefined;
    await (await was?.catch(() => undefined))?.store.close();
  };
  // the vault whose folders a hint may look into: not one the index is not known to be of
  const known = opts.vaultKnown === false ? undefined : vault;
  const guard = errorsOf({ vault: known, db: shown, guessed: opts.vaultGuessed });
  const handle: VaultHandle = {
    vault,
    db: shown,
    async index(o = {}) {
      await shut();
      const { indexVault } = await import("../indexing/indexer.js");
      return indexVault(vault, db, await indexingEmbedder(), { ...o, store: storeOpts });
    },
    async watch(o = {}) {
      const log = o.log ?? opts.log;
      const { watchVault } = await import("../indexing/watch.js");
      return watchVault(vault, db, await indexingEmbedder(log), { ...o, log, store: storeOpts });
    },
    async search(question, o = {}) {
      const { explain, ...request } = o;
      const ctx = await open();
      const res = await search(ctx, question, searchOptionsOf(request));
      const hits = res.hits.map(flatHit);
      const how = explain ? { explain: await explainSearch(ctx, question, request, res) } : {};
      if (!hits.length) {
        const why = await noResultHints(ctx.store, request, known);
        return { ...res, hits, hints: hintLines(why, "request"), why, ...how };
      }
      if (known === undefined) return { ...res, hits, ...how };
      // a stat per hit's note: the CLI warns of these, the web app marks them
      const stale = staleHits(vault, hits);
      return stale.changed.length || stale.deleted.length ? { ...res, hits, stale, ...how } : { ...res, hits, ...how };
    },
    async searches(s) {
      return runSearches(await open(), s);
    },
    async askContext(question, o = {}) {
      const { budgetTokens, ...request } = o;
      const ctx = await open();
      const c = await askContext(ctx, question, request, budgetTokens);
      if (c.sources.length) return c;
      // nothing found: why, and what may fix it, as a search says (a tag no note has)
      return { ...c, why: await noResultHints(ctx.store, request, known) };
    },
    llm(spec) {
      return createLlm(spec ?? DEFAULT_LLM, opts);
    },
    async answer(c, o = {}) {
      const { llm = handle.llm(), ...rest } = o;
      return answerContext(llm, c, rest);
    },
    async ask(question, o = {}) {
      const { llm: spec, budgetTokens, onToken, onSources, signal, ...request } = o;
      const c = await handle.askContext(question, { ...request, budgetTokens });
      onSources?.(c.sources);
      const { answer, sources, cited, invalid, model } = await handle.answer(c, {
        llm: handle.llm(spec),
        onToken,
        signal,
      });
      if (sources.length) return { answer, sources, cited, invalid, model };
      const why = c.why ?? [];
      return { answer, sources, cited, invalid, model, reason: c.reason, hints: hintLines(why, "request"), why };
    },
    status: (async (o: { countStale?: boolean } = {}): Promise<VaultStatusMaybeCounted> => {
      const count = o.countStale ?? true;
      const opened = await once(openIfIndexed);
      // an index deleted under an open handle, and not yet built again (a vault replaced under
      // `serve --watch`), has no manifest: it reports as no index, as before the first one
      const manifest = await opened?.store.manifest();
      if (!opened || !manifest) return noIndexStatus(vault, shown, count);
      return indexStatus(vault, opened.store, manifest, { countStale: count });
    }) as VaultHandle["status"],
    async ready() {
      await open();
    },
    async check(o = {}) {
      await shut();
      const { checkVaultIndex } = await import("./maintenance.js");
      return checkVaultIndex(vault, db, storeOpts, o);
    },
    async migrate(to) {
      await shut();
      const { migrateVaultIndex } = await import("./maintenance.js");
      return migrateVaultIndex(vault, db, to, storeOpts);
    },
    abandon(o = {}) {
      if (o.full) discardRebuild(db);
      releaseHeldLocks();
    },
    async warm() {
      await (await open()).embedder.embedQuery("warm up");
    },
    async changed() {
      const { staleInVault } = await import("../indexing/stale.js");
      return staleInVault(vault, await (await open()).store.notes());
    },
    writer() {
      const pid = lockHolder(lockTarget(db, storeOpts.sidecarDir));
      return pid !== undefined && pid !== process.pid ? pid : undefined;
    },
    async related(note, o = {}) {
      const { explainMissing, ...rest } = o;
      const { store } = await open();
      // a file of the vault the index does not hold: why (left out, or not indexed yet), not the closest note
      const unmatched = () => {
        const file = whyNoteMissing(vault, note);
        if (file)
          throw new VaultRagError(
            "usage",
            `"${note}" is not indexed: ${file.why ?? "it is not in the index yet"}`,
            file.why ? {} : { fix: { kind: "reindex" } },
          );
      };
      const r = await relatedNotes(store, note, { ...rest, ...(explainMissing ? { unmatched } : {}) });
      if (known === undefined) return r;
      // the note asked about, or one found for it, edited or deleted since the last index: its
      // passages are the ones indexed, as a search says of its hits
      const indexed = await store.notes();
      const mtime = (p: string) => indexed.get(p)?.mtime ?? 0;
      const asked = staleHits(vault, [{ path: r.note, mtime: mtime(r.note) }]);
      const found = staleHits(
        vault,
        r.related.map((n) => ({ path: n.path, mtime: mtime(n.path) })),
      );
      const state = asked.deleted.length ? "deleted" : asked.changed.length ? "changed" : undefined;
      if (!state && !found.changed.length && !found.deleted.length) return r;
      return { ...r, stale: { ...(state ? { asked: state } : {}), ...found } } as const;
    },
    async note(name, o = {}) {
      return readNoteText(vault, name, o.heading);
    },
    async tags() {
      return (await open()).store.listTags();
    },
    async folders() {
      return (await open()).store.listFolders();
    },
    async close() {
      await shut();
    },
  };
  for (const [name, method] of Object.entries(handle))
    if (typeof method === "function" && !["writer", "llm", "abandon"].includes(name))
      (handle as unknown as Record<string, unknown>)[name] = guard(method as (...a: unknown[]) => Promise<unknown>);
  return handle;
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
    const fix = { ...e.fix, db: e.fix.db ?? place.db };
    // the vault only when it is the index's: a fix for another index names no vault of its own
    if (place.vault && fix.db === place.db && fix.vault === undefined) fix.vault = place.vault;
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
