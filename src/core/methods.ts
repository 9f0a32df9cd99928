/** The methods of a vault handle ({@link VaultHandle}), grouped by what they do to the index. */
import { answerContext, askContext, createLlm, DEFAULT_LLM } from "../answer/index.js";
import type { Embedder } from "../embed/index.js";
import { VaultRagError, type Fix } from "../errors.js";
import { lockHolder, releaseHeldLocks } from "../indexing/lock.js";
import { indexModelSpec, modelSpecOf } from "../indexing/manifest.js";
import type { Logger } from "../log.js";
import { coverageNotice } from "../render/coverage.js";
import { hintLines } from "../render/hints.js";
import { closest, didYouMean } from "../closest.js";
import {
  flatHit,
  noResultHints,
  propCounts,
  propValueCounts,
  relatedNotes,
  runSearches,
  search,
  searchOptionsFor,
  type SearchContext,
  type SearchResult,
} from "../search/index.js";
import {
  discardRebuild,
  lockTarget,
  openExisting,
  type Manifest,
  type OpenStoreOptions,
  type Store,
} from "../store/index.js";
import { attachmentNamed, attachmentNote } from "./attachment-note.js";
import { explainSearch } from "./explain.js";
import { fileTypeOf } from "../vault/attachments/types.js";
import { openIfIndexed } from "./open-query.js";
import type { Rerankers } from "./rerank.js";
import { staleHits } from "./stale-hits.js";
import { strongerModel } from "./measured.js";
import { indexStatus, noIndexStatus, staleCount } from "./status.js";
import type { DenseCoverage, OpenVaultOptions, VaultHandle, VaultStatusMaybeCounted } from "./types.js";

// the off-thread walk and note reader load the vault's reading code (the Markdown parser, YAML): only when called
const offThread = () => import("../indexing/off-thread.js");

/**
 * A fix from an inner layer, with the index it is about (the handle's, unless it names another) and
 * that index's vault when it is the handle's and the vault is known to be the index's.
 *
 * @example
 * ```ts
 * placeFix({ kind: "index" }, { vault: "/home/me/notes", db: "/home/me/notes/.vault-rag/index.db" });
 * // { kind: "index", db: "/home/me/notes/.vault-rag/index.db", vault: "/home/me/notes" }
 * ```
 */
export function placeFix(fix: Fix, place: { vault?: string; db: string }): Fix {
  const placed = { ...fix, db: fix.db ?? place.db };
  // the vault only when it is the index's: a fix for another index names no vault of its own
  if (place.vault && placed.db === place.db && placed.vault === undefined) placed.vault = place.vault;
  return placed;
}

/** An opened index: its store, the embedder that built it, and its manifest. */
export type Opened = { store: Store; embedder: Embedder; manifest: Manifest };

/** What a handle's methods share (see `coreOf` in vault.ts). */
export interface Core {
  vault: string;
  /** The index: an absolute path or a Chroma address. */
  db: string;
  /** The index as shown to users (a Chroma address without secrets). */
  shown: string;
  storeOpts: OpenStoreOptions;
  opts: OpenVaultOptions;
  /** The vault when it is known to be the index's, else undefined. */
  known: string | undefined;
  /** The vault a no-result hint may look into (why a folder is not indexed): not for a remote caller. */
  hintVault: string | undefined;
  once(how: typeof openIfIndexed): Promise<Opened | undefined>;
  open(): Promise<Opened>;
  shut(): Promise<void>;
  indexingEmbedder(log?: Logger): Promise<Embedder>;
  /** The configured reranker, and each one a search used, kept loaded. */
  rerankers: Rerankers;
}

/**
 * What a search of this vault runs against, and its request with the reranker chosen (a request
 * that says nothing of it gets the configured one; see {@link rerankersOf}).
 *
 * @example
 * ```ts
 * const { ctx, request } = await searchOf(core, { rerank: true });
 * ```
 */
async function searchOf<R extends { rerank?: boolean | string }>(
  c: Core,
  request: R,
): Promise<{ ctx: SearchContext; request: R }> {
  const rerank = c.rerankers.choose(request.rerank);
  const ctx = { ...(await c.open()), reranker: c.rerankers.reranker };
  return { ctx, request: { ...request, rerank } };
}

type Writing = Pick<VaultHandle, "index" | "watch" | "check" | "migrate" | "abandon">;
type Searching = Pick<VaultHandle, "search" | "searches" | "askContext" | "llm" | "answer" | "ask">;
type Reading = Omit<VaultHandle, keyof Writing | keyof Searching | "vault" | "db">;

/**
 * The methods that write the index: index, watch, check (with repair), migrate, abandon.
 *
 * @example
 * ```ts
 * await writingMethods(core).index({ full: true });
 * ```
 */
export function writingMethods(c: Core): Writing {
  return {
    async index(o = {}) {
      await c.shut();
      const { indexVault } = await import("../indexing/indexer.js");
      // a full rebuild builds a new index too; else the run builds one when there was none
      const built = o.full || (await indexModelSpec(c.db, c.storeOpts)) === undefined;
      const shown = o.full ? await manifestShown(c) : undefined;
      const summary = await indexVault(c.vault, c.db, await c.indexingEmbedder(), { ...o, store: c.storeOpts });
      // what the old index had shown, the rebuilt one has shown too
      if (shown?.length) await keepShown(c, shown);
      return { ...summary, built };
    },
    async watch(o = {}) {
      const log = o.log ?? c.opts.log;
      const { watchVault } = await import("../indexing/watch.js");
      return watchVault(c.vault, c.db, await c.indexingEmbedder(log), { ...o, log, store: c.storeOpts });
    },
    async check(o = {}) {
      await c.shut();
      const { checkVaultIndex } = await import("./maintenance.js");
      return checkVaultIndex(c.vault, c.db, c.storeOpts, o);
    },
    async migrate(to) {
      await c.shut();
      const { migrateVaultIndex } = await import("./maintenance.js");
      return migrateVaultIndex(c.vault, c.db, to, c.storeOpts);
    },
    abandon(o = {}) {
      if (o.full) discardRebuild(c.db);
      releaseHeldLocks();
    },
  };
}

/** The notices the index at the handle's place has shown (its manifest's `shown`), if any. */
async function manifestShown(c: Core): Promise<string[] | undefined> {
  const store = await openExisting(c.db, c.storeOpts).catch(() => undefined);
  try {
    return (await store?.manifest().catch(() => undefined))?.shown;
  } finally {
    await store?.close();
  }
}

/** Records `shown` in the manifest of the index at the handle's place, beside what it holds. */
async function keepShown(c: Core, shown: string[]): Promise<void> {
  const store = await openExisting(c.db, c.storeOpts).catch(() => undefined);
  try {
    const m = await store?.manifest();
    if (store && m) await store.setManifest({ ...m, shown: [...new Set([...(m.shown ?? []), ...shown])] });
  } catch {
    // a notice shown once more is no harm
  } finally {
    await store?.close();
  }
}

/** Whether a name ends as a PDF, Canvas board or Word document does. */
const isAttachmentName = (name: string): boolean => (fileTypeOf(name.trim()) ?? "note") !== "note";

/** The process holding the index's writer lock (this one's own included), if any. */
const lockPid = (c: Core): number | undefined => lockHolder(lockTarget(c.db, c.storeOpts.sidecarDir));

/** A result whose fix is placed in this vault and index, as the core's errors are (see {@link placeFix}). */
const placed = <R extends { fix?: Fix }>(c: Core, r: R): R =>
  r.fix ? { ...r, fix: placeFix(r.fix, { vault: c.known, db: c.shown }) } : r;

/**
 * A search result whose dense ranking did not reach every passage, with whether an index run is
 * giving them vectors now, and the notice in a request's words in front of its own.
 *
 * @example
 * ```ts
 * withCoverage(core, await search(ctx, "bread")).notice; // "dense ranking covers 2,140 of 6,321 passages; indexing continues (see status)"
 * ```
 */
export function withCoverage<T extends SearchResult>(
  c: Core,
  res: T,
): Omit<T, "denseCoverage"> & { denseCoverage?: DenseCoverage } {
  if (!res.denseCoverage) return res as Omit<T, "denseCoverage">;
  const denseCoverage = { ...res.denseCoverage, indexing: lockPid(c) !== undefined };
  const notice = [coverageNotice(denseCoverage, "request"), res.notice].filter(Boolean).join(" — ");
  return { ...res, denseCoverage, notice };
}

/**
 * The methods that rank: search, the Search API, and answers from the notes.
 *
 * @example
 * ```ts
 * (await searchingMethods(core).search("motor wiring")).hits[0].path; // "robots/SMARS.md"
 * ```
 */
export function searchingMethods(c: Core): Searching {
  const m: Searching = {
    async search(question, o = {}) {
      const { explain, ...asked } = o;
      const { ctx, request } = await searchOf(c, asked);
      const found = withCoverage(c, await search(ctx, question, await searchOptionsFor(ctx.store, request)));
      const res = placed(c, found);
      const hits = res.hits.map(flatHit);
      const how = explain ? { explain: await explainSearch(ctx, question, request, res) } : {};
      if (!hits.length) {
        const why = await noResultHints(ctx.store, request, c.hintVault);
        return { ...res, hits, hints: hintLines(why, "request"), why, ...how };
      }
      if (c.known === undefined) return { ...res, hits, ...how };
      // a stat per hit's note: the CLI warns of these, the web app marks them
      const stale = staleHits(c.vault, hits);
      return stale.changed.length || stale.deleted.length ? { ...res, hits, stale, ...how } : { ...res, hits, ...how };
    },
    async searches(s) {
      return runSearches(await c.open(), s);
    },
    async askContext(question, o = {}) {
      const { budgetTokens, ...given } = o;
      const { ctx, request } = await searchOf(c, given);
      const context = placed(c, await askContext(ctx, question, request, budgetTokens));
      if (context.sources.length) return context;
      // nothing found: why, and what may fix it, as a search says (a tag no note has)
      return { ...context, why: await noResultHints(ctx.store, request, c.hintVault) };
    },
    llm(spec) {
      return createLlm(spec ?? DEFAULT_LLM, c.opts);
    },
    async answer(context, o = {}) {
      const { llm = m.llm(), ...rest } = o;
      return answerContext(llm, context, rest);
    },
    async ask(question, o = {}) {
      const { llm: spec, budgetTokens, onToken, onSources, signal, ...request } = o;
      const context = await m.askContext(question, { ...request, budgetTokens });
      onSources?.(context.sources);
      const { answer, sources, cited, invalid, model } = await m.answer(context, {
        llm: m.llm(spec),
        onToken,
        signal,
      });
      if (sources.length) return { answer, sources, cited, invalid, model };
      const why = context.why ?? [];
      return { answer, sources, cited, invalid, model, reason: context.reason, hints: hintLines(why, "request"), why };
    },
  };
  return m;
}

/**
 * The methods that read what the index holds: status, related notes, a note's text, tags, folders.
 *
 * @example
 * ```ts
 * await readingMethods(core).tags(); // [{ tag: "robots", notes: 3 }, …]
 * ```
 */
export function readingMethods(c: Core): Reading {
  return {
    status: (async (o: { countStale?: boolean } = {}): Promise<VaultStatusMaybeCounted> => {
      const count = o.countStale ?? true;
      const opened = await c.once(openIfIndexed);
      // an index deleted under an open handle, and not yet built again (a vault replaced under
      // `serve --watch`), has no manifest: it reports as no index, as before the first one
      const manifest = await opened?.store.manifest();
      if (!opened || !manifest) return noIndexStatus(c.vault, c.shown, count);
      return indexStatus(c.vault, opened.store, manifest, { countStale: count, indexing: lockPid(c) !== undefined });
    }) as VaultHandle["status"],
    async ready() {
      await c.open();
    },
    async modelHint(o = {}) {
      const opened = await c.once(openIfIndexed);
      const manifest = await opened?.store.manifest();
      const hint = manifest && strongerModel(modelSpecOf(manifest));
      if (!opened || !manifest || !hint) return undefined;
      const key = `model-hint:${hint.model}`;
      const shown = manifest.shown?.includes(key) ?? false;
      const { pull: known, ...rest } = hint;
      const { isModelCached } = await import("../embed/hub-cache.js");
      // a Transformers.js model not on this machine yet is pulled first
      const repo = hint.model.startsWith("transformers:") ? hint.model.slice("transformers:".length) : undefined;
      const pull = repo && !isModelCached(repo) ? { repo, dtype: known?.dtype ?? ("q8" as const) } : undefined;
      // marked only while no index run writes the manifest (a run's own write would be overwritten)
      if (o.markShown && !shown && lockPid(c) === undefined)
        await opened.store.setManifest({ ...manifest, shown: [...(manifest.shown ?? []), key] }).catch(() => undefined);
      return { ...rest, ...(pull ? { pull } : {}), shown };
    },
    async warm() {
      const o = await c.open();
      await Promise.all([o.embedder.embedQuery("warm up"), o.store.warmDense?.()]);
    },
    async changed() {
      return staleCount(c.vault, (await c.open()).store);
    },
    writer() {
      const pid = lockPid(c);
      return pid !== undefined && pid !== process.pid ? pid : undefined;
    },
    async related(note, o = {}) {
      const { explainMissing, ...rest } = o;
      const { store } = await c.open();
      // the vault's reading code (the Markdown parser, YAML) only when a missing note is explained
      const missing = explainMissing ? (await import("../vault/note-text.js")).whyNoteMissing : undefined;
      // a file of the vault the index does not hold: why (left out, or not indexed yet), not the closest note
      const unmatched = () => {
        const file = missing?.(c.vault, note);
        if (file)
          throw new VaultRagError(
            "usage",
            `"${note}" is not indexed: ${file.why ?? "it is not in the index yet"}`,
            file.why ? {} : { fix: { kind: "reindex" } },
          );
      };
      const r = await relatedNotes(store, note, { ...rest, ...(missing ? { unmatched } : {}) });
      if (c.known === undefined) return r;
      // the note asked about, or one found for it, edited or deleted since the last index: its
      // passages are the ones indexed, as a search says of its hits
      const indexed = await store.notes([r.note, ...r.related.map((n) => n.path)]);
      const mtime = (p: string) => indexed.get(p)?.mtime ?? 0;
      const asked = staleHits(c.vault, [{ path: r.note, mtime: mtime(r.note) }]);
      const found = staleHits(
        c.vault,
        r.related.map((n) => ({ path: n.path, mtime: mtime(n.path) })),
      );
      const state = asked.deleted.length ? "deleted" : asked.changed.length ? "changed" : undefined;
      if (!state && !found.changed.length && !found.deleted.length) return r;
      return { ...r, stale: { ...(state ? { asked: state } : {}), ...found } } as const;
    },
    async note(name, o = {}) {
      // a PDF, Canvas board or Word document the index holds: its passages, with their pages
      const store = isAttachmentName(name) ? (await c.open()).store : undefined;
      const attachment = store && (await attachmentNamed(store, name));
      if (store && attachment) return attachmentNote(store, attachment, o.heading);
      // on another thread unless the name is a note's exact path: a large vault's walk holds no one up
      return (await offThread()).readNoteTextOffThread(c.vault, name, o.heading);
    },
    async tags() {
      return (await c.open()).store.listTags();
    },
    async folders() {
      return (await c.open()).store.listFolders();
    },
    props: (async (name?: string) => {
      const notes = await (await c.open()).store.noteProperties();
      if (name === undefined) return propCounts(notes);
      const values = propValueCounts(notes, name);
      if (values) return values;
      const near = closest(
        name,
        propCounts(notes).map((p) => p.name),
      );
      throw new VaultRagError(
        "usage",
        `vault-rag: no note has the property "${name}"${near.length ? ` — ${didYouMean(near)}` : ""}`,
      );
    }) as VaultHandle["props"],
    async close() {
      await c.shut();
    },
  };
}
