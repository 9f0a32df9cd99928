import type Database from "better-sqlite3";
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
import {
  pendingVectorPaths,
  readProgress,
  readWarnings,
  setVectors,
  withoutVectors,
  writeProgress,
  writeWarnings,
} from "./vectors.js";
import { KeywordSpellings } from "./spellings.js";
import { hasBacklinks, linkNames, readLinks, relink } from "./backlinks.js";
import { notesNamed } from "./link-names.js";
import { DocumentRows } from "./document-rows.js";
import { openConnection, type SqliteStoreOptions } from "./connection.js";
import { loadLanguageDetector } from "../language.js";
import { deleteNotes, upsertNotes, beginHeld, holdWrite, writeTransaction, type HeldWrite } from "./writes.js";
import type { DenseCache } from "./dense-query.js";
import { knownWhere } from "./where-rows.js";
import { keywordStats, queryKeyword, stemmedLanguages, type KeywordState } from "./keyword-query.js";
import {
  checkIntegrity,
  repairIndex,
  rereadKeywordText,
  type SqliteIntegrity,
  type SqliteRepair,
} from "./maintenance.js";
import { readGeneration, readManifest } from "./meta.js";
import { readCounts, type CountsWanted } from "./counts.js";
import { cachedVectors, getRecords, listFolders, listTags, noteLinks, noteProperties, readNotes } from "./reads.js";

/**
 * The dense index's code (the int8 scan, its WebAssembly kernel, the snapshot file and its reading
 * thread), loaded by the first dense query or load: a keyword search never loads it.
 */
let denseModules: Promise<typeof import("./dense-query.js") & typeof import("./dense-index.js")> | undefined;
const denseCode = () =>
  (denseModules ??= Promise.all([import("./dense-query.js"), import("./dense-index.js")]).then(([q, i]) => ({
    ...q,
    ...i,
  })));

export { refuseLinkedIndexFolder, type SqliteStoreOptions } from "./connection.js";
export { damaged, isCorruption, notAnIndex } from "./errors.js";
export { BM25_WEIGHTS } from "./keyword-query.js";
export type { SqliteIntegrity, SqliteRepair } from "./maintenance.js";
export { blobToVector, vectorToBlob } from "./rows.js";
export type { HeldWrite } from "./writes.js";

/**
 * The embedded store: one SQLite file holding chunks, vectors (float32 blobs, scanned by dense-index.ts), an
 * FTS5 BM25 index and the manifest. WAL mode lets readers work while one process writes. The work
 * is done by functions over the `Database`: connection.ts and ddl.ts open it, writes.ts,
 * dense-query.ts, keyword-query.ts, reads.ts and maintenance.ts use it; this class holds the
 * connection and what its queries keep between calls.
 *
 * @example
 * ```ts
 * const store = SqliteStore.open("/abs/vault/.vault-rag/index.db", { create: true });
 * await store.queryDense(vector, 6, { where: normaliseWhere({ tags: { $contains: "pico" } }) });
 * ```
 */
export class SqliteStore implements Store {
  readonly location: string;
  readonly db: Database.Database;

  private constructor(
    file: string,
    db: Database.Database,
    /** The Chroma sidecar: window vectors are kept when given, as a cache, but not required and never queried. */
    private readonly windowCache: boolean,
  ) {
    this.location = file;
    this.db = db;
    // a whereDocument filter's rows tested ahead, for the one keyword statement running now
    db.function("vr_passing", { deterministic: false }, (rowid: unknown) =>
      this.keyword.passingNow?.(Number(rowid)) ? 1 : 0,
    );
  }

  /** Opens (or creates) the store at an absolute path. */
  static open(file: string, opts: SqliteStoreOptions = {}): SqliteStore {
    const db = openConnection(file, opts);
    return new SqliteStore(file, db, opts.vectors === "cache");
  }

  async upsertNotes(
    batch: { note: NoteEntry; records: StoreRecord[]; links?: NoteLink[] }[],
    options?: UpsertOptions,
  ): Promise<void> {
    await loadLanguageDetector(); // the keyword index stems each passage by its language
    upsertNotes(this.db, this.location, this.windowCache, batch, options);
  }

  async deleteNotes(paths: string[]): Promise<void> {
    await loadLanguageDetector(); // a passage's keyword rows are deleted as they were stemmed
    deleteNotes(this.db, this.location, paths);
  }

  /**
   * Deletes every note and chunk (with their vectors, keyword rows and links), as one write: the
   * Chroma store empties its sidecar so before filling it again from the server.
   *
   * @example
   * ```ts
   * await sidecar.clearNotes();
   * ```
   */
  async clearNotes(): Promise<void> {
    const paths = this.db
      .prepare("SELECT path FROM notes UNION SELECT DISTINCT path FROM chunks")
      .pluck()
      .all() as string[];
    await this.deleteNotes(paths);
  }

  async linkTexts(): Promise<Map<string, NoteLink[]>> {
    return hasBacklinks(this.db) ? readLinks(this.db) : new Map();
  }

  async linkNames(paths: readonly string[]): Promise<Map<string, string[]>> {
    return paths.length && hasBacklinks(this.db) ? linkNames(this.db, paths) : new Map();
  }

  async resolveLinks(key: string, resolve: (link: NoteLink, source: string) => string | undefined): Promise<boolean> {
    let changed = false;
    // not a new generation: the chunks are as they were, only the keyword index's backlink text moved
    this.write(() => {
      changed = relink(this.db, key, resolve);
    }, false);
    return changed;
  }

  async touchNote(note: NoteEntry): Promise<void> {
    // the chunks carry the note's mtime too (date filters read it), so a touch moves them as well,
    // and bumps the generation so that readers reload their metadata columns
    this.write(() => {
      this.db.prepare("UPDATE notes SET mtime = ?, size = ? WHERE path = ?").run(note.mtime, note.size, note.path);
      // a note dated by its mtime moves with it
      this.db
        .prepare(
          "UPDATE chunks SET mtime = ?, date = CASE WHEN date_source = 'mtime' THEN ? ELSE date END WHERE path = ?",
        )
        .run(note.mtime, note.mtime, note.path);
    });
  }

  /**
   * Takes this file's write lock for asynchronous work (SQLite's own, so it dies with the process):
   * every write until `commit` joins one transaction, which other connections see whole or not at
   * all, and which a crash rolls back. Waits the busy timeout for another connection's lock, then
   * fails. The Chroma store holds it across a write to the server, so that a reader never takes a
   * write in progress for a crashed one.
   *
   * @example
   * ```ts
   * const held = sidecar.holdWrite();
   * try { await writeServer(); await sidecar.upsertNotes(batch); held.commit(); }
   * finally { held.rollback(); }
   * ```
   */
  holdWrite(): HeldWrite {
    return holdWrite(this.db, this.location);
  }

  /**
   * {@link SqliteStore.holdWrite}, or `undefined` at once when another connection holds the lock.
   *
   * @example
   * ```ts
   * const held = sidecar.tryHoldWrite();
   * if (!held) return; // a writer is at work: read the file as it is
   * ```
   */
  tryHoldWrite(): HeldWrite | undefined {
    return beginHeld(this.db, false);
  }

  /** Runs a write transaction and bumps the generation so readers reload their dense index. */
  private write(fn: () => void, bumpGeneration = true): void {
    writeTransaction(this.db, this.location, fn, bumpGeneration);
  }

  async notes(paths?: readonly string[]): Promise<Map<string, NoteEntry>> {
    return readNotes(this.db, paths);
  }

  async get(query: { ids?: string[]; path?: string; includeVectors?: boolean }): Promise<StoreRecord[]> {
    return getRecords(this.db, this.windowCache, query);
  }

  /** Counts, kept per write generation (counts.ts): search() asks on every query, and counting scans. */
  async count(): Promise<StoreCounts> {
    const { notes, chunks } = this.counts("notes and chunks");
    return { notes: notes!, chunks: chunks! };
  }

  /** Kept per write generation, as {@link count} is: a search during a dense phase asks each time. */
  async vectorCoverage(): Promise<VectorCoverage> {
    const { chunks, withVectors } = this.counts("all");
    return { chunks: chunks!, withVectors: withVectors! };
  }

  /** The counts at the current generation: from memory, else from `meta` or counted (counts.ts). */
  private counts(wanted: CountsWanted) {
    const generation = this.generation();
    const had = this.counted?.generation === generation ? this.counted : undefined;
    if (had && (wanted !== "all" || had.withVectors !== undefined)) return had;
    return (this.counted = readCounts(this.db, wanted));
  }

  private counted?: ReturnType<typeof readCounts>;

  async pendingVectorPaths(limit: number, after?: string): Promise<string[]> {
    return pendingVectorPaths(this.db, limit, after);
  }

  async setVectors(items: { id: string; windows: StoredWindow[] }[], progress?: DenseProgress): Promise<number> {
    return setVectors(this.db, this.location, items, progress);
  }

  async setDenseProgress(progress: DenseProgress | undefined): Promise<void> {
    this.write(() => writeProgress(this.db, progress), false);
  }

  async denseProgress(): Promise<DenseProgress | undefined> {
    return readProgress(this.db);
  }

  async indexWarnings(): Promise<IndexWarning[]> {
    return readWarnings(this.db);
  }

  async setIndexWarnings(warnings: IndexWarning[]): Promise<void> {
    this.write(() => writeWarnings(this.db, warnings), false);
  }

  async withoutVectors(ids: string[]): Promise<Set<string>> {
    return withoutVectors(this.db, ids);
  }

  /** The write generation, bumped by every write transaction that changes chunks or notes. */
  private generation(): string {
    return readGeneration(this.db);
  }

  async listTags(): Promise<{ tag: string; notes: number }[]> {
    return listTags(this.db);
  }

  async noteProperties(): Promise<NoteProperties[]> {
    const generation = this.generation();
    if (this.propsRead?.generation !== generation) this.propsRead = { generation, notes: noteProperties(this.db) };
    return this.propsRead.notes;
  }

  private propsRead?: { generation: string; notes: NoteProperties[] };

  async noteLinks(about?: { path: string; name: string }): Promise<{ path: string; links: string[] }[]> {
    return noteLinks(this.db, about);
  }

  async notesNamed(names: readonly string[]): Promise<string[]> {
    return notesNamed(this.db, names);
  }

  async listFolders(): Promise<{ folder: string; notes: number }[]> {
    return listFolders(this.db);
  }

  async queryDense(vector: Float32Array, k: number, filter: QueryFilter = {}): Promise<ScoredRecord[]> {
    // a query under way ends before the store closes: it awaits its filter, the dense index's load
    // and the dense code's import, any of which a close() may come between
    const query = this.denseQuery(vector, k, filter);
    this.querying.add(query);
    try {
      return await query;
    } finally {
      this.querying.delete(query);
    }
  }

  /** Dense queries under way, which {@link close} waits for. */
  private readonly querying = new Set<Promise<unknown>>();

  private async denseQuery(vector: Float32Array, k: number, filter: QueryFilter): Promise<ScoredRecord[]> {
    if (this.windowCache) throw new Error(`vault-rag: the store at ${this.location} was opened without vectors`);
    // the whereDocument filter's passing rows first, tested in slices (see warmFilter); then one
    // read transaction: the filters, the vectors and the rows come from one snapshot
    if (filter.whereDocument) await this.warmFilter(filter);
    await this.denseLoad; // a load under way (warmDense) ends first: the snapshot is read once
    const { denseRows, DamagedSnapshotError } = await denseCode();
    try {
      return denseRows(this.db, this.location, this.dense, this.documentRows, vector, k, filter);
    } catch (e) {
      if (!(e instanceof DamagedSnapshotError)) throw e;
      // the snapshot held damaged rows (and is gone): the index is built again from SQLite, once
      this.dense.dense = undefined;
      return denseRows(this.db, this.location, this.dense, this.documentRows, vector, k, filter);
    }
  }

  /** The in-memory dense index and metadata columns, kept between dense queries. */
  private readonly dense: DenseCache = {};

  /**
   * Loads the dense index of the current generation, reading its snapshot on a thread of its own:
   * a search starts it before its keyword query and awaits it before its dense one. Calls while
   * one load runs share it; it never rejects.
   */
  async warmDense(): Promise<void> {
    // never rejected: what failed here fails again, and is reported, where the query reads the index
    this.denseLoad ??= denseCode()
      .then((d) => d.loadDenseIndex(this.db, this.location, this.dense))
      .catch(() => undefined)
      .finally(() => (this.denseLoad = undefined));
    return this.denseLoad;
  }

  private denseLoad?: Promise<void>;

  /** The dense code loaded: by then a load {@link warmDense} started has begun reading the snapshot. */
  async denseStarted(): Promise<void> {
    await denseCode();
  }

  async queryKeyword(
    text: string,
    k: number,
    filter: QueryFilter = {},
    ranking: KeywordRanking = {},
  ): Promise<ScoredRecord[]> {
    return queryKeyword(this.db, this.keyword, this.documentRows, text, k, filter, ranking, (where) =>
      knownWhere(this.db, this.dense, where),
    );
  }

  /** What keyword queries keep: the rows `vr_passing` answers for, and whether backlinks were seen. */
  private readonly keyword: KeywordState = { backlinkTables: false };

  /**
   * Tests a `whereDocument` filter over every passage ahead of the queries that use it, in slices
   * of about 20 ms with the process free between them, and keeps the passing rows for the index's
   * write generation ({@link DocumentRows}): a search's dense and keyword lists, and searches asked
   * at the same time with the same filter, then test each passage once. A search calls it before
   * its keyword queries when it also ranks densely (a dense query tests every passage anyway); a
   * keyword-only search leaves it, testing only the passages that hold its words. The slices' turn
   * is the one place a query of this store waits: `close` waits for them (a long-lived reader
   * closes an index swapped under it while its searches go on).
   */
  async warmFilter(filter: QueryFilter): Promise<void> {
    if (!filter.whereDocument) return;
    const run = (this.documentRows ??= new DocumentRows(this.db, () => this.generation())).test(filter.whereDocument);
    this.testing.add(run);
    try {
      await run;
    } finally {
      this.testing.delete(run);
    }
  }

  private readonly testing = new Set<Promise<unknown>>();

  private documentRows?: DocumentRows;

  async keywordSpellings(word: string, maxEdits: number, opts?: SpellingQuery): Promise<Spelling[]> {
    return (this.spellings ??= new KeywordSpellings(this.db, () => this.generation())).near(word, maxEdits, opts);
  }

  private spellings?: KeywordSpellings;

  async keywordLanguages(): Promise<string[]> {
    return stemmedLanguages(this.db);
  }

  async keywordStats(phrases: string[], opts: KeywordStatsOptions = {}): Promise<KeywordStats> {
    // the count of chunks cached per write generation ({@link count}): a search asks twice (its
    // spelling, then its synonyms), and count(*) reads the whole table
    const { chunks } = await this.count();
    return keywordStats(this.db, chunks, phrases, opts);
  }

  async manifest(): Promise<Manifest | undefined> {
    return readManifest(this.db);
  }

  async setManifest(m: Manifest): Promise<void> {
    this.write(() => {
      this.db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('manifest', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(JSON.stringify({ ...m, schemaVersion: SCHEMA_VERSION }));
    }, false);
  }

  /**
   * Vectors already stored for these window-text hashes. The index holds one model's vectors, so
   * its own windows are the embedding cache: a moved or unchanged text is never embedded again.
   * Returns nothing when `model` is not the model that built this index.
   */
  async cachedVectors(model: string, hashes: string[]): Promise<Map<string, Float32Array>> {
    return cachedVectors(this.db, this.windowCache, model, hashes);
  }

  /**
   * Counts what `vault-rag check` verifies, from one snapshot: rows per table, vectors without a
   * chunk, chunks without a vector or a note, the keyword index against the chunks, and vectors of
   * the wrong length for the manifest's dimensions.
   *
   * @example
   * ```ts
   * const found = await SqliteStore.open(db).integrity();
   * found.orphanVectors; // 0 on a healthy index
   * ```
   */
  async integrity(): Promise<SqliteIntegrity> {
    return checkIntegrity(this.db);
  }

  /**
   * Reads the keyword index's text again when it was read by other rules than today's (an index
   * built before NFKC, or under another Unicode version): FTS5 and backlink text only, in one
   * transaction, no embedding. Run by `index` before it writes, as the FTS5 'delete' command must
   * be given the text as it was inserted. Returns whether it rebuilt.
   *
   * @example
   * ```ts
   * if (await store.upgradeKeywordText()) log.info("keyword index read again");
   * ```
   */
  async upgradeKeywordText(): Promise<boolean> {
    await loadLanguageDetector();
    return rereadKeywordText(this.db, this.location);
  }

  /**
   * Repairs what needs no embedding, in one transaction: removes vectors without a chunk, drops the
   * notes that have a chunk with a vector of the wrong length or without a note (a chunk without
   * vectors is pending: the next index embeds it),
   * and the notes named in `drop` (so the next indexing run redoes them), and rebuilds the keyword
   * index from the chunks.
   *
   * @example
   * ```ts
   * const fixed = await store.repair({ drop: ["notes/lost its chunks.md"] });
   * fixed.droppedNotes; // notes the next index re-indexes
   * ```
   */
  async repair(opts: { drop?: string[] } = {}): Promise<SqliteRepair> {
    await loadLanguageDetector();
    return repairIndex(this.db, this.location, opts);
  }

  /**
   * The Chroma store's mark for its keyword sidecar: which collection generation the sidecar
   * mirrors (`<collection id>:<generation>`), or undefined when none was recorded.
   *
   * @example
   * ```ts
   * if ((await sidecar.syncMark()) !== `${collection.id}:${generation}`) rebuild();
   * ```
   */
  async syncMark(): Promise<string | undefined> {
    return this.db.prepare("SELECT value FROM meta WHERE key = 'chroma_sync'").pluck().get() as string | undefined;
  }

  /**
   * Records the mark {@link SqliteStore.syncMark} returns (the write generation is not bumped: the
   * chunks did not change).
   *
   * @example
   * ```ts
   * await sidecar.setSyncMark(`${collection.id}:${generation}`);
   * ```
   */
  async setSyncMark(mark: string): Promise<void> {
    this.write(() => {
      this.db
        .prepare(
          "INSERT INTO meta (key, value) VALUES ('chroma_sync', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .run(mark);
    }, false);
  }

  async close(): Promise<void> {
    // a query between its filter's slices ends first, with its rows read (see warmFilter)
    await Promise.allSettled([...this.testing, ...this.querying]);
    await this.denseLoad; // and a snapshot being read, so that its file is closed with the rest
    this.dense.dense?.index.close();
    if (this.db.open) this.db.close();
  }
}
