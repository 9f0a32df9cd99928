import { answerContext, askContext, createLlm, DEFAULT_LLM, type Source, type TokenSink } from "./answer/index.js";
import { resolveDb, sidecarDirFor } from "./config.js";
import type { Embedder, EmbedderOptions } from "./embed/index.js";
import {
  embedderForIndex,
  indexVault,
  modelSpecOf,
  openForQuery,
  openIfIndexed,
  readNoteTextOffThread,
  staleHits,
  staleInVaultOffThread,
  watchVault,
  type IndexOptions,
  type IndexSummary,
  type Watcher,
  type WatchOptions,
} from "./indexing/index.js";
import {
  relatedNotes,
  flatHit,
  noResultHints,
  runSearches,
  search,
  searchOptionsOf,
  type RelatedOptions,
  type RelatedResult,
  type FilterOptions,
  type FlatHit,
  type Search,
  type SearchOptions,
  type SearchResult,
  type SearchResults,
} from "./search/index.js";
import { displayLocation, type ChromaConnectOptions, type Manifest, type Store } from "./store/index.js";
import { assertVaultFolder } from "./vault/index.js";

/** Options of {@link openVault}. */
export interface OpenVaultOptions extends EmbedderOptions {
  /** Index file (default `<vault>/.vault-rag/index.db`) or a Chroma address (`chroma://host:port/<collection>`). */
  db?: string;
  /** Tenant, database and API key for a hosted Chroma server (else `CHROMA_TENANT`, `CHROMA_DATABASE`, `CHROMA_API_KEY`). */
  chroma?: ChromaConnectOptions;
  /** Embedding model for a new index (default: the bundled `use-lite`); an existing index keeps its own. */
  model?: string;
  /**
   * Whether `vault` is known to be the folder the index was built from (default true). False (the
   * CLI's `serve` and `mcp` run with `--db` from another folder, and no `--vault`): search names no
   * hits as changed or deleted, for the notes it would look at are not the index's.
   */
  vaultKnown?: boolean;
}

/** What {@link VaultHandle.status} reports. */
export interface VaultStatus {
  vault: string;
  index: string;
  model: string | null;
  dimensions: number;
  notes: number;
  chunks: number;
  lastIndexed: string | null;
  /** Notes changed on disk since they were indexed. */
  stale: number;
}

/** A {@link VaultStatus} that may have been taken without counting changed notes (`stale: null`). */
export type VaultStatusMaybeCounted = Omit<VaultStatus, "stale"> & { stale: number | null };

/**
 * What {@link VaultHandle.search} returns: hits in the one shape the CLI's `--json` and MCP give,
 * and when there are none, why (`reason`) and what may fix it (`hints`, the lines the CLI prints).
 */
export interface VaultSearchResult extends SearchResult {
  hits: FlatHit[];
  /** With no hits: the CLI's hints (a folder that exists in another case, a tag no note has, the closest names). */
  hints?: string[];
  /**
   * The hits' notes that changed (`changed`) or went from disk (`deleted`) since they were
   * indexed, when any did: such a hit shows text the note no longer holds. Absent when none did.
   */
  stale?: { changed: string[]; deleted: string[] };
}

/** An opened vault: index it, search it, ask it. */
export interface VaultHandle {
  readonly vault: string;
  readonly db: string;
  index(opts?: Omit<IndexOptions, "log"> & { log?: IndexOptions["log"] }): Promise<IndexSummary>;
  /**
   * Keeps the index fresh as notes change (an incremental pass now, then one after each burst of
   * changes), while the handle goes on searching. Close the watcher before the handle.
   *
   * @example
   * ```ts
   * const w = await notes.watch({ onBatch: (s) => console.log(batchLine(s)) });
   * await w.close();
   * ```
   */
  watch(opts?: Omit<WatchOptions, "store">): Promise<Watcher>;
  /**
   * Searches the vault with the CLI's defaults. Each hit is flat, as the CLI's `--json` prints it
   * (`hit.start_line`, `hit.tags`); `hit.meta` still holds the record's full metadata.
   *
   * @example
   * ```ts
   * const { hits, hints } = await notes.search("how do I save power", { tags: ["pico"], topK: 5 });
   * hits.map((h) => `${h.path}:${h.start_line}`); // ["electronics/Pico W.md:11", …]
   * JSON.stringify(hits[0]); // {"id":"…","path":"electronics/Pico W.md",…,"mtime":1767225600}, as the CLI's --json
   * ```
   */
  search(question: string, opts?: SearchOptions & FilterOptions): Promise<VaultSearchResult>;
  ask(
    question: string,
    opts?: SearchOptions &
      FilterOptions & {
        llm?: string;
        budgetTokens?: number;
        onToken?: TokenSink;
        /** Called with the sources once they are found, before the model is asked. */
        onSources?: (sources: Source[]) => void;
        /** Aborting it stops the model (its request is closed) and rejects. */
        signal?: AbortSignal;
      },
  ): Promise<{
    answer: string;
    sources: Source[];
    cited: number[];
    invalid: number[];
    model: string;
    /** With no sources (the model not asked): why the search found none, and the hints that may fix it, as `search` gives them. */
    reason?: string;
    hints?: string[];
  }>;
  /**
   * Runs searches built with the Search API (`Search`, `K`, `Knn`, `Rrf`), as Chroma's cloud
   * service does, on this vault's index.
   *
   * @example
   * ```ts
   * const s = new Search().where(K("tags").contains("robots")).rank(Knn({ query: "motor driver heat" })).limit(5).select(K.DOCUMENT, K.SCORE, "title");
   * (await notes.searches(s)).rows()[0]; // [{ id: "…", document: "…", score: 0.21, metadata: { title: "SMARS Robot" } }, …]
   * ```
   */
  searches(s: Search | Search[]): Promise<SearchResults>;
  /**
   * The index's model, size and age, and how many notes changed since (a walk of the vault: pass
   * `countStale: false` to skip it, as `serve` does while it is indexing).
   *
   * @example
   * ```ts
   * (await notes.status()).stale; // 3
   * ```
   */
  status(opts?: { countStale?: true }): Promise<VaultStatus>;
  status(opts: { countStale?: boolean }): Promise<VaultStatusMaybeCounted>;
  /**
   * The notes nearest in meaning to a note (a path or a name, as a wikilink finds it), from the
   * vectors already in the index, each with its best-matching pair of passages.
   *
   * @example
   * ```ts
   * const { related } = await notes.related("robots/SMARS.md", { k: 5, unlinkedOnly: true });
   * related[0].path; // "electronics/Pico W pinout.md"
   * ```
   */
  related(note: string, opts?: RelatedOptions): Promise<RelatedResult>;
  /**
   * A note's text (or one section of it) under the rules of the MCP `get_note` tool: only notes the
   * index would hold, found as a wikilink finds them, cut at 40,000 characters with a mark.
   *
   * @example
   * ```ts
   * (await notes.note("SMARS", { heading: "Motors" })).text; // "## Motors\n…"
   * ```
   */
  note(name: string, opts?: { heading?: string }): Promise<{ path: string; text: string }>;
  /** Tags in the index, with how many notes carry each. */
  tags(): Promise<{ tag: string; notes: number }[]>;
  /** Folders in the index, with how many notes each holds. */
  folders(): Promise<{ folder: string; notes: number }[]>;
  close(): Promise<void>;
}

/**
 * Opens a vault for use as a library: the same index, defaults and rules as the CLI.
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
  const storeOpts = { ...opts.chroma, sidecarDir: sidecarDirFor(vault) };
  const fix = { missing: `run \`vault-rag index ${vault}\` first`, unfinished: "call index() first" };
  type Opened = { store: Store; embedder: Embedder; manifest: Manifest };
  // the open index, opened once however many first calls arrive together (the web app asks for
  // tags and folders at once); forgotten when there is no index yet, or opening failed
  let opening: Promise<Opened | undefined> | undefined;
  const once = (how: typeof openIfIndexed) =>
    (opening ??= how(db, { ...opts, store: storeOpts, fix }).then(
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
  return {
    vault,
    db: shown,
    async index(o = {}) {
      await shut();
      return indexVault(vault, db, await indexingEmbedder(), { ...o, store: storeOpts });
    },
    async watch(o = {}) {
      const log = o.log ?? opts.log;
      return watchVault(vault, db, await indexingEmbedder(log), { ...o, log, store: storeOpts });
    },
    async search(question, o = {}) {
      const ctx = await open();
      const res = await search(ctx, question, searchOptionsOf(o));
      const hits = res.hits.map(flatHit);
      if (!hits.length) return { ...res, hits, hints: await noResultHints(ctx.store, o, "request", known) };
      if (known === undefined) return { ...res, hits };
      // a stat per hit's note: the CLI warns of these, the web app marks them
      const stale = staleHits(vault, hits);
      return stale.changed.length || stale.deleted.length ? { ...res, hits, stale } : { ...res, hits };
    },
    async searches(s) {
      return runSearches(await open(), s);
    },
    async ask(question, o = {}) {
      const { llm: spec, budgetTokens, onToken, onSources, signal, ...request } = o;
      const ctx = await open();
      const c = await askContext(ctx, question, request, budgetTokens);
      onSources?.(c.sources);
      const { answer, sources, cited, invalid, model } = await answerContext(createLlm(spec ?? DEFAULT_LLM, opts), c, {
        onToken,
        signal,
      });
      if (sources.length) return { answer, sources, cited, invalid, model };
      // nothing found: why, and what may fix it, as a search says (a tag no note has)
      const hints = await noResultHints(ctx.store, request, "request", known);
      return { answer, sources, cited, invalid, model, reason: c.reason, hints };
    },
    status: (async (o: { countStale?: boolean } = {}): Promise<VaultStatusMaybeCounted> => {
      const count = o.countStale ?? true;
      const opened = await once(openIfIndexed);
      // an index deleted under an open handle, and not yet built again (a vault replaced under
      // `serve --watch`), has no manifest: it reports as no index, as before the first one
      const manifest = await opened?.store.manifest();
      if (!opened || !manifest)
        return {
          vault,
          index: shown,
          model: null,
          dimensions: 0,
          notes: 0,
          chunks: 0,
          lastIndexed: null,
          stale: count ? await staleInVaultOffThread(vault, new Map()) : null,
        };
      return indexStatus(vault, opened.store, manifest, { countStale: count });
    }) as VaultHandle["status"],
    async related(note, o = {}) {
      return relatedNotes((await open()).store, note, o);
    },
    async note(name, o = {}) {
      return readNoteTextOffThread(vault, name, o.heading);
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
}

/**
 * What `status` reports for an opened index (the CLI's `status` and {@link VaultHandle.status}).
 *
 * @example
 * ```ts
 * const { store, manifest } = await openForQuery(db);
 * (await indexStatus("/home/me/notes", store, manifest)).stale; // 3
 * ```
 */
export async function indexStatus(vault: string, store: Store, manifest: Manifest): Promise<VaultStatus>;
export async function indexStatus(
  vault: string,
  store: Store,
  manifest: Manifest,
  opts: { countStale?: boolean },
): Promise<VaultStatusMaybeCounted>;
export async function indexStatus(
  vault: string,
  store: Store,
  manifest: Manifest,
  { countStale = true }: { countStale?: boolean } = {},
): Promise<VaultStatusMaybeCounted> {
  const c = await store.count();
  return {
    vault,
    index: store.location,
    model: modelSpecOf(manifest),
    dimensions: manifest.embedder.dimensions,
    notes: c.notes,
    chunks: c.chunks,
    lastIndexed: manifest.updatedAt,
    stale: countStale ? await staleCount(vault, store) : null,
  };
}

/**
 * How many notes changed on disk since they were indexed (added, edited, touched or removed): the
 * rule that `check` uses too, counted on another thread. A vault that cannot be read counts as
 * unchanged.
 *
 * @example
 * ```ts
 * staleCount("/home/me/notes", store); // 3
 * ```
 */
export async function staleCount(vault: string, store: Store): Promise<number> {
  return staleInVaultOffThread(vault, store.notes());
}
