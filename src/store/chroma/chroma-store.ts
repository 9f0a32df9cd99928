import fs from "node:fs";
import path from "node:path";
import type { ChromaClient, Collection } from "chromadb";
import { checkQueryVector, checkWindows, pooledVector, withVectors } from "../windows.js";
import { VaultRagError } from "../../errors.js";
import { silentLogger, type Logger } from "../../log.js";
import { SqliteStore } from "../sqlite/sqlite-store.js";
import {
  SCHEMA_VERSION,
  type KeywordRanking,
  type KeywordStats,
  type KeywordStatsOptions,
  type Spelling,
  type SpellingQuery,
  type Manifest,
  type NoteEntry,
  type NoteLink,
  type NoteProperties,
  type QueryFilter,
  type ScoredRecord,
  type Store,
  type StoreCounts,
  type StoreRecord,
  type DenseProgress,
  type IndexWarning,
  type StoredWindow,
  type UpsertOptions,
  type VectorCoverage,
} from "../types.js";
import { parseChromaLocation, showLocation, type ChromaConnectOptions, type ChromaLocation } from "./location.js";
import { defaultSidecarDir, guard, loadChroma } from "./client.js";
import { fromChromaMetadata, toChromaFilter, toChromaMetadata, type ChromaMetadata } from "./translate.js";
import { byNote, offersSearchApi, pooledVectors, readRecords, sameChunks } from "./records.js";

/** Options for opening a Chroma collection as a vault-rag store. */
export interface ChromaStoreOptions extends ChromaConnectOptions {
  /** Create the collection when missing. Default false: a missing collection is a `no_index` error. */
  create?: boolean;
  /** Folder for the local keyword sidecar (default `~/.cache/vault-rag/chroma`). */
  sidecarDir?: string;
  log?: Logger;
}

/** How keyword queries are answered; `--verbose` reports it. */
export type KeywordPath =
  "sidecar" | "sidecar (server has a Search API; vault-rag's BM25 sidecar is used for identical ranking)";

export { CHROMA_MISSING, defaultSidecarDir, loadChroma } from "./client.js";

const COLLECTION_MARK = "vault_rag";

/**
 * An index on a Chroma server. Vectors, documents and metadata live in one Chroma
 * collection (cosine space, no embedding function: vault-rag always sends the vectors); the
 * manifest and a write generation live in the collection's metadata. A local Chroma server has no
 * BM25, so keyword search runs on a small SQLite sidecar (chunks, metadata, FTS5; no vectors) kept
 * beside the vault and keyed by the collection's id. Every write bumps the collection's generation
 * before touching the server and records it in the sidecar after; a sidecar whose generation
 * differs (a crash, another machine writing) is rebuilt from the collection on open.
 *
 * @example
 * ```ts
 * const store = await ChromaStore.open("chroma://localhost:8000/notes", { create: true });
 * await store.queryDense(vector, 6, { where: normaliseWhere({ tags: "pico" }) });
 * await store.close();
 * ```
 */
export class ChromaStore implements Store {
  readonly location: string;
  keywordPath: KeywordPath = "sidecar";
  private meta: ChromaMetadata;
  /**
   * This store's writes, one after another. A write holds the sidecar's one SQLite transaction
   * across calls to the server, and the indexer calls the store from two tasks at once (the next
   * batch's `touchNote` while this batch's `upsertNotes` is stored): a second `BEGIN` on the same
   * connection failed with "cannot start a transaction within a transaction", and a sidecar-only
   * write would have joined (and been rolled back with) the other task's transaction.
   */
  private writes: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly loc: ChromaLocation,
    private readonly client: ChromaClient,
    private collection: Collection,
    private sidecar: SqliteStore,
    private readonly sidecarFile: string,
    private readonly maxBatch: number,
    private readonly log: Logger,
  ) {
    this.location = showLocation(loc);
    this.meta = { ...((collection.metadata ?? {}) as ChromaMetadata) };
  }

  /** Connects, opens (or creates) the collection and brings the keyword sidecar up to date. */
  static async open(db: string, opts: ChromaStoreOptions = {}): Promise<ChromaStore> {
    const loc = parseChromaLocation(db, opts);
    const shown = showLocation(loc);
    const chroma = await loadChroma();
    const client = new chroma.ChromaClient({
      host: loc.host,
      port: loc.port,
      ssl: loc.ssl,
      ...(loc.tenant ? { tenant: loc.tenant } : {}),
      ...(loc.database ? { database: loc.database } : {}),
      ...(loc.apiKey ? { headers: { "x-chroma-token": loc.apiKey } } : {}),
    });
    const collection = await guard(loc, "open the collection", async () => {
      try {
        return await client.getCollection({ name: loc.collection });
      } catch (err) {
        if ((err as Error).name !== "ChromaNotFoundError") throw err;
        if (!opts.create)
          throw new VaultRagError(
            "no_index",
            `no collection "${loc.collection}" on the Chroma server at ${loc.server}`,
            {
              fix: { kind: "index", db: shown },
            },
          );
        return client.createCollection({
          name: loc.collection,
          embeddingFunction: null,
          // HNSW is approximate: a hybrid search fuses the dense list 300 deep, which Chroma's
          // default ef_search of 100 reaches only roughly (5 of 19 hybrid queries on a 434-note
          // vault ranked otherwise than the file index); 600 searches past that depth
          configuration: { hnsw: { space: "cosine", ef_search: 600 } },
          metadata: { [COLLECTION_MARK]: 1, generation: 0 },
        });
      }
    });
    const space = (collection.configuration as { hnsw?: { space?: string } | null } | undefined)?.hnsw?.space;
    if (space && space !== "cosine")
      throw new VaultRagError(
        "usage",
        `vault-rag: the Chroma collection "${loc.collection}" uses the "${space}" space; vault-rag needs "cosine" — choose another collection name`,
      );
    if (!(collection.metadata ?? {})[COLLECTION_MARK]) {
      // another tool's collection: never mix vault-rag's chunks into it
      const held = await guard(loc, "count the collection", () => collection.count());
      if (held > 0)
        throw new VaultRagError(
          "usage",
          `vault-rag: the Chroma collection "${loc.collection}" holds ${held} records that vault-rag did not write — choose another collection name`,
        );
      await guard(loc, "mark the collection", () =>
        collection.modify({ metadata: { ...(collection.metadata ?? {}), [COLLECTION_MARK]: 1, generation: 0 } }),
      );
    }
    const maxBatch = await client.getMaxBatchSize().catch(() => 1000);
    const dir = opts.sidecarDir ?? defaultSidecarDir();
    const file = path.join(dir, `${collection.id}.db`);
    const sidecar = SqliteStore.open(file, { create: true, vectors: "cache" });
    const store = new ChromaStore(
      loc,
      client,
      collection,
      sidecar,
      file,
      Math.max(1, maxBatch),
      opts.log ?? silentLogger,
    );
    await store.syncSidecar();
    return store;
  }

  /** The collection's write generation, as recorded in its metadata. */
  private generation(): number {
    return typeof this.meta.generation === "number" ? this.meta.generation : 0;
  }

  private syncToken(): string {
    return `${this.collection.id}:${this.generation()}`;
  }

  /** The keyword sidecar's text read again by today's rules, if older ones wrote it (see {@link SqliteStore.upgradeKeywordText}). */
  async upgradeKeywordText(): Promise<boolean> {
    return this.serial(() => this.sidecar.upgradeKeywordText());
  }

  /** Rebuilds the keyword sidecar from the collection now (`vault-rag check --repair`). */
  async rebuildSidecar(): Promise<void> {
    await this.serial(() => this.syncSidecar(true));
  }

  /**
   * Rebuilds the sidecar from the collection when it does not match the collection's generation.
   * The generation moves only under the sidecar's write lock ({@link ChromaStore.write}): a
   * mismatch while a writer holds it is a write in progress, and the sidecar as it was before it is
   * read as is (the writer's commit makes it current); a mismatch with the lock free is a write that
   * crashed or another machine's. The rebuild is made in place, under that lock: a writer with the
   * file open (`watch`) writes on into the same file, and a second reader rebuilds nothing.
   */
  private async syncSidecar(force = false): Promise<void> {
    if (!force && (await this.sidecar.syncMark()) === this.syncToken()) return;
    const held = force ? this.sidecar.holdWrite() : this.sidecar.tryHoldWrite();
    if (!held) return;
    try {
      await this.reloadMeta();
      const mine = await this.sidecar.syncMark();
      if (!force && mine === this.syncToken()) return held.commit();
      const n = await this.rebuildFromServer();
      await this.markSynced();
      held.commit();
      if (mine !== undefined || n > 0)
        this.log.warn(
          "sidecar_rebuilt",
          `vault-rag: rebuilt the local keyword index for ${this.location} from the server (${n} chunks)`,
          { path: this.sidecarFile },
        );
    } finally {
      held.rollback();
    }
  }

  /** The collection's metadata as the server has it now (another process may have written). */
  private async reloadMeta(): Promise<void> {
    const now = await guard(this.loc, "open the collection", () =>
      this.client.getCollection({ name: this.loc.collection }),
    );
    this.meta = { ...((now.metadata ?? {}) as ChromaMetadata) };
  }

  /**
   * Replaces the sidecar's notes and chunks with the collection's, returning how many chunks it
   * read. The note's own hash and size are not on the server: a note whose chunks are exactly those
   * the sidecar had keeps its record, any other gets an empty hash, so that the next index run
   * re-checks it (its vectors come back from the collection, nothing is embedded again).
   */
  private async rebuildFromServer(): Promise<number> {
    // with its vector, kept in the sidecar as the passage's one window: the sidecar's windows say
    // which passages the collection holds (a passage without is one whose vectors are to come)
    const { byPath, n } = await byNote(this.records({}, true, "read the collection"));
    const known = await this.sidecar.notes();
    // the links out of a note live in the sidecar alone: a note that keeps its record is not read
    // again by the next index run, so it keeps its links too (else its backlink text would be lost for good)
    const links = await this.sidecar.linkTexts();
    const batch = [];
    for (const [p, records] of byPath) {
      const mtime = Math.max(...records.map((r) => r.meta.mtime));
      const had = known.get(p);
      const same = had?.mtime === mtime && sameChunks(await this.sidecar.get({ path: p }), records);
      batch.push(
        same && had
          ? { note: had, records, links: links.get(p) }
          : { note: { path: p, hash: "", mtime, size: -1 }, records },
      );
    }
    await this.sidecar.clearNotes();
    await this.sidecar.upsertNotes(batch);
    return n;
  }

  private async markSynced(): Promise<void> {
    await this.sidecar.setSyncMark(this.syncToken());
  }

  /** Writes the collection's metadata (Chroma replaces it whole). */
  private async writeMeta(next: ChromaMetadata): Promise<void> {
    await guard(this.loc, "update the collection's metadata", () => this.collection.modify({ metadata: next }));
    this.meta = next;
  }

  /**
   * One write, under the sidecar's write lock: bump the generation on the server first, then
   * change the collection and the sidecar, then record the generation in the sidecar, and commit.
   * A crash in between rolls the sidecar back and frees the lock, with its generation behind the
   * server's, so the next open rebuilds it; a reader meanwhile sees the lock held and waits for
   * nothing.
   */
  private async write(fn: () => Promise<void>): Promise<void> {
    return this.serial(async () => {
      const held = this.sidecar.holdWrite();
      try {
        await this.writeMeta({ ...this.meta, generation: this.generation() + 1 });
        await fn();
        await this.markSynced();
        held.commit();
      } finally {
        held.rollback();
      }
    });
  }

  /** Runs `fn` after this store's earlier writes have ended (see {@link ChromaStore.writes}). */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => {});
    return run;
  }

  async upsertNotes(
    batch: { note: NoteEntry; records: StoreRecord[]; links?: NoteLink[] }[],
    options?: UpsertOptions,
  ): Promise<void> {
    const dims = this.readManifest()?.embedder.dimensions;
    for (const { records } of batch) {
      for (const r of records) {
        checkWindows(r, dims);
      }
    }
    // a passage without windows is kept in the sidecar alone (keyword-searchable) until its
    // vectors come (setVectors); one the collection held under the same id leaves it meanwhile
    const all = batch.flatMap((b) => b.records);
    const records = all.filter((r) => r.windows.length);
    const fresh = new Set(records.map((r) => r.id));
    await this.write(async () => {
      const stale = new Set([
        ...(await Promise.all(batch.map((b) => this.sidecar.get({ path: b.note.path }))))
          .flat()
          .map((r) => r.id)
          .filter((id) => !fresh.has(id)),
        ...all.filter((r) => !r.windows.length).map((r) => r.id), // (each once: the server refuses twice)
      ]);
      await this.upsertRecords(records, "write chunks");
      await this.deleteIds([...stale]);
      await this.sidecar.upsertNotes(batch, options);
    });
  }

  async vectorCoverage(): Promise<VectorCoverage> {
    return this.sidecar.vectorCoverage();
  }

  async pendingVectorPaths(limit: number, after?: string): Promise<string[]> {
    return this.sidecar.pendingVectorPaths(limit, after);
  }

  async withoutVectors(ids: string[]): Promise<Set<string>> {
    return this.sidecar.withoutVectors(ids);
  }

  async denseProgress(): Promise<DenseProgress | undefined> {
    return this.sidecar.denseProgress();
  }

  async setDenseProgress(progress: DenseProgress | undefined): Promise<void> {
    await this.serial(() => this.sidecar.setDenseProgress(progress));
  }
  async indexWarnings(): Promise<IndexWarning[]> {
    return this.sidecar.indexWarnings();
  }
  async setIndexWarnings(warnings: IndexWarning[]): Promise<void> {
    await this.serial(() => this.sidecar.setIndexWarnings(warnings));
  }

  /** Sends the passages' vectors to the collection, then records them in the sidecar, as one write. */
  async setVectors(items: { id: string; windows: StoredWindow[] }[], progress?: DenseProgress): Promise<number> {
    const dims = this.readManifest()?.embedder.dimensions;
    const byId = new Map(items.filter((i) => i.windows.length).map((i) => [i.id, i.windows]));
    let n = 0;
    await this.write(async () => {
      const want = await this.sidecar.withoutVectors([...byId.keys()]);
      const records = (await this.sidecar.get({ ids: [...want] })).map((r) => ({ ...r, windows: byId.get(r.id)! }));
      for (const r of records) checkWindows(r, dims);
      await this.upsertRecords(records, "write vectors");
      n = await this.sidecar.setVectors(
        records.map((r) => ({ id: r.id, windows: r.windows })),
        progress,
      );
    });
    return n;
  }

  /** Sends records (each with its pooled vector) to the collection, the server's batch size a request. */
  private async upsertRecords(all: StoreRecord[], what: string): Promise<void> {
    const records = withVectors(all); // a passage past its note's window budget stays in the sidecar alone
    for (let i = 0; i < records.length; i += this.maxBatch) {
      const slice = records.slice(i, i + this.maxBatch);
      await guard(this.loc, what, () =>
        this.collection.upsert({
          ids: slice.map((r) => r.id),
          embeddings: slice.map((r) => Array.from(pooledVector(r.windows))),
          metadatas: slice.map((r) => toChromaMetadata(r.meta)),
          documents: slice.map((r) => r.text),
        }),
      );
    }
  }

  private async deleteIds(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += this.maxBatch) {
      const slice = ids.slice(i, i + this.maxBatch);
      await guard(this.loc, "delete chunks", () => this.collection.delete({ ids: slice }));
    }
  }

  async deleteNotes(paths: string[]): Promise<void> {
    if (!paths.length) return;
    await this.write(async () => {
      await this.deleteIds(
        (await Promise.all(paths.map((p) => this.sidecar.get({ path: p })))).flat().map((r) => r.id),
      );
      // chunks the sidecar may not know (written by a run that crashed before recording them)
      for (let i = 0; i < paths.length; i += 100) {
        const slice = paths.slice(i, i + 100);
        await guard(this.loc, "delete chunks", () => this.collection.delete({ where: { path: { $in: slice } } }));
      }
      await this.sidecar.deleteNotes(paths);
    });
  }

  async touchNote(note: NoteEntry): Promise<void> {
    // the chunks carry the note's mtime (date filters read it): moved on the server and in the sidecar
    const moved = (await this.sidecar.get({ path: note.path })).filter((r) => r.meta.mtime !== note.mtime);
    if (!moved.length) return this.serial(() => this.sidecar.touchNote(note));
    await this.write(async () => {
      for (let i = 0; i < moved.length; i += this.maxBatch) {
        const slice = moved.slice(i, i + this.maxBatch);
        await guard(this.loc, "update the dates of chunks", () =>
          this.collection.update({
            ids: slice.map((r) => r.id),
            metadatas: slice.map((r) =>
              toChromaMetadata({
                ...r.meta,
                mtime: note.mtime,
                // a note dated by its mtime moves with it
                date: r.meta.date_source === "mtime" ? note.mtime : r.meta.date,
              }),
            ),
          }),
        );
      }
      await this.sidecar.touchNote(note);
    });
  }

  async notes(paths?: readonly string[]): Promise<Map<string, NoteEntry>> {
    return this.sidecar.notes(paths);
  }

  /** The collection's records, read in pages of the server's batch size (see {@link readRecords}). */
  private records(
    query: { ids?: string[]; where?: Record<string, unknown> },
    vectors: boolean,
    what = "read chunks",
  ): AsyncGenerator<StoreRecord> {
    return readRecords({ loc: this.loc, collection: this.collection, maxBatch: this.maxBatch }, query, vectors, what);
  }

  async get(query: { ids?: string[]; path?: string; includeVectors?: boolean }): Promise<StoreRecord[]> {
    if (!query.includeVectors) return this.sidecar.get(query);
    const out: StoreRecord[] = [];
    const where = query.path !== undefined ? { path: { $eq: query.path } } : undefined;
    for await (const r of this.records(query.ids ? { ids: query.ids } : { where }, true)) out.push(r);
    if (query.ids) {
      const pos = new Map(query.ids.map((id, i) => [id, i]));
      return out.sort((a, b) => pos.get(a.id)! - pos.get(b.id)!);
    }
    return out.sort((a, b) =>
      a.meta.path < b.meta.path ? -1 : a.meta.path > b.meta.path ? 1 : a.meta.ordinal - b.meta.ordinal,
    );
  }

  async count(): Promise<StoreCounts> {
    return this.sidecar.count();
  }

  /** Chunks the server itself holds (the sidecar's count should equal it). */
  async serverCount(): Promise<number> {
    return guard(this.loc, "count chunks", () => this.collection.count());
  }

  // what the sidecar reads alone: the notes, their properties and links
  async listTags(): Promise<{ tag: string; notes: number }[]> {
    return this.sidecar.listTags();
  }
  async noteProperties(): Promise<NoteProperties[]> {
    return this.sidecar.noteProperties();
  }
  async listFolders(): Promise<{ folder: string; notes: number }[]> {
    return this.sidecar.listFolders();
  }
  async noteLinks(about?: { path: string; name: string }): Promise<{ path: string; links: string[] }[]> {
    return this.sidecar.noteLinks(about);
  }
  async notesNamed(names: readonly string[]): Promise<string[]> {
    return this.sidecar.notesNamed(names);
  }

  // backlink text lives in the sidecar alone: a rebuilt sidecar has none until the next index run,
  // which re-reads every note (the rebuilt notes have no hash) and sends their links again
  async linkTexts(): Promise<Map<string, NoteLink[]>> {
    return this.sidecar.linkTexts();
  }

  async linkNames(paths: readonly string[]): Promise<Map<string, string[]>> {
    return this.sidecar.linkNames(paths);
  }

  async resolveLinks(key: string, resolve: (link: NoteLink, source: string) => string | undefined): Promise<boolean> {
    return this.serial(() => this.sidecar.resolveLinks(key, resolve));
  }

  async queryDense(vector: Float32Array, k: number, filter: QueryFilter = {}): Promise<ScoredRecord[]> {
    checkQueryVector(vector, this.readManifest()?.embedder.dimensions, this.location);
    const total = (await this.count()).chunks;
    if (!total) return [];
    const { where, whereDocument } = toChromaFilter(filter);
    const res = await guard(this.loc, "query", () =>
      this.collection.query({
        queryEmbeddings: [Array.from(vector)],
        nResults: Math.max(1, Math.min(Math.floor(k), total)),
        ...(where ? { where: where as never } : {}),
        ...(whereDocument ? { whereDocument: whereDocument as never } : {}),
        include: ["documents", "metadatas", "distances"] as never,
      }),
    );
    const ids = res.ids[0] ?? [];
    return ids.map((id, i) => ({
      id,
      text: res.documents[0]?.[i] ?? "",
      meta: fromChromaMetadata(res.metadatas[0]?.[i] as Record<string, unknown>),
      distance: res.distances[0]?.[i] ?? 1,
    }));
  }

  async queryKeyword(
    text: string,
    k: number,
    filter: QueryFilter = {},
    ranking?: KeywordRanking,
  ): Promise<ScoredRecord[]> {
    return this.sidecar.queryKeyword(text, k, filter, ranking);
  }

  async keywordSpellings(word: string, maxEdits: number, opts?: SpellingQuery): Promise<Spelling[]> {
    return this.sidecar.keywordSpellings(word, maxEdits, opts);
  }
  keywordLanguages = (): Promise<string[]> => this.sidecar.keywordLanguages();

  async keywordStats(phrases: string[], opts?: KeywordStatsOptions): Promise<KeywordStats> {
    return this.sidecar.keywordStats(phrases, opts);
  }

  async manifest(): Promise<Manifest | undefined> {
    return this.readManifest();
  }

  private readManifest(): Manifest | undefined {
    const raw = this.meta.manifest;
    return typeof raw === "string" ? (JSON.parse(raw) as Manifest) : undefined;
  }

  async setManifest(m: Manifest): Promise<void> {
    await this.serial(() =>
      this.writeMeta({ ...this.meta, manifest: JSON.stringify({ ...m, schemaVersion: SCHEMA_VERSION }) }),
    );
  }

  async cachedVectors(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const m = this.readManifest();
    if (!m || `${m.embedder.provider}:${m.embedder.model}` !== model || !hashes.length) return out;
    // window vectors this machine wrote, kept in the sidecar (the server holds each chunk's pooled vector)
    for (const [h, v] of await this.sidecar.cachedVectors(model, hashes)) out.set(h, v);
    const src = { loc: this.loc, collection: this.collection, maxBatch: this.maxBatch };
    return pooledVectors(src, hashes, out);
  }

  /** Checks once whether the server offers Chroma's Search API (see `offersSearchApi`). */
  async detectSearchApi(): Promise<boolean> {
    const offered = await offersSearchApi(this.collection, this.log, this.loc.server);
    if (offered)
      this.keywordPath = "sidecar (server has a Search API; vault-rag's BM25 sidecar is used for identical ranking)";
    return offered;
  }

  /** The id of the collection this store reads. */
  get collectionId(): string {
    return this.collection.id;
  }

  /** The id of the collection now under this store's name (another after a rebuild is swapped in), or undefined while none is. */
  async liveCollectionId(): Promise<string | undefined> {
    try {
      return (await this.client.getCollection({ name: this.loc.collection })).id;
    } catch {
      return undefined;
    }
  }

  /** Renames the collection (used to swap in a rebuilt index). */
  async rename(name: string): Promise<void> {
    await guard(this.loc, "rename the collection", () => this.collection.modify({ name }));
  }

  /** Deletes the collection and its sidecar. */
  async drop(): Promise<void> {
    await guard(this.loc, "delete the collection", () => this.client.deleteCollection({ name: this.collection.name }));
    await this.sidecar.close();
    for (const suffix of ["", "-wal", "-shm", ".vectors"]) fs.rmSync(this.sidecarFile + suffix, { force: true });
  }

  async close(): Promise<void> {
    // a write under way (a task that failed left its sibling's write running) ends before the
    // sidecar closes, and so before the caller lets go of the index lock: none lands after it
    await this.writes;
    await this.sidecar.close();
  }
}
