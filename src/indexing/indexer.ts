import { createHash } from "node:crypto";
import { CHUNKER_VERSION, chunkNote, type ChunkOptions } from "../chunk/index.js";
import { resolveDateKeys } from "../config.js";
import { passageWindows, unreadable, windowOptions, type Embedder } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import {
  beginRebuild,
  discardRebuild,
  displayLocation,
  lockTarget,
  openExisting,
  openStore,
  type NoteEntry,
  type NoteLink,
  type OpenStoreOptions,
  type Store,
  type StoreRecord,
  type Manifest,
} from "../store/index.js";
import {
  assertVaultFolder,
  hashText,
  noteLinkResolver,
  readVaultFile,
  walkVault,
  type Note,
  type VaultFile,
} from "../vault/index.js";
import { WorkEstimate } from "./estimate.js";
import { sampleRun } from "./run-sample.js";
import { acquireLock } from "./lock.js";
import { manifestFor, modelMismatch, modelSpecOf, sameModel } from "./manifest.js";

/** What an indexing run did. */
export interface IndexSummary {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** Files that could not be read (the run exits 1). */
  failed: number;
  /** Files skipped on purpose: binary, not UTF-8, too big (a warning each). */
  skipped: number;
  /** Chunks in the index when the run ends. */
  chunks: number;
  /** Windows embedded by the model in this run. */
  embedded: number;
  /** Windows (texts the model reads) whose vectors came from the cache. */
  cached: number;
  seconds: number;
  dbPath: string;
  model: string;
}

/**
 * What `onProgress` reports: `scan` (files found), `index` (notes done of those to do), `embed`
 * (windows the model has embedded, of an estimate for the run that firms up as notes are read) and
 * `saved` (chunks committed by this run, of an estimate of those it will write). The estimates
 * come from a sample of the notes to do, read beside the first batch; until it is in they are
 * projected from the few notes read, and `estimating` is true.
 */
export type IndexPhase = "scan" | "index" | "embed" | "saved";

/** Options of an indexing run. */
export interface IndexOptions {
  /** Rebuild everything into a new file and swap it in when complete. */
  full?: boolean;
  chunk?: ChunkOptions;
  /** Notes per write transaction, at most. */
  batchNotes?: number;
  /** A write transaction also closes after about this much embedding time (default 5 s), so an interrupted run keeps most of its work. */
  commitSeconds?: number;
  log?: Logger;
  /** Connection options for a Chroma index (tenant, database, API key, sidecar folder). */
  store?: OpenStoreOptions;
  onProgress?: (phase: IndexPhase, done: number, total: number, estimating?: boolean) => void;
  /**
   * Stops the run once the batch it is storing is stored (within about `commitSeconds`): what was
   * stored stays, and the next run goes on from there (a `full` run's new file is dropped, and the
   * index is as it was). The run then rejects with code `stopped`. `watch` stops its pass so when
   * it is closed.
   */
  signal?: AbortSignal;
  /** The frontmatter keys a note's date comes from, first found first (see `resolveDateKeys`); `full` re-reads every note. */
  dateKeys?: readonly string[];
}

/**
 * Indexes a vault into the SQLite store at `dbPath`, incrementally: unchanged notes (same size and
 * mtime, or same content hash) cost a stat; changed notes are re-chunked and only chunks whose text
 * is new are embedded (vectors are cached by model and text hash); vanished notes are deleted. Work
 * is committed in batches of notes, so an interrupted run resumes where it stopped. A `full` run, or
 * a run with a new model, builds a new file and swaps it in only when complete.
 *
 * @example
 * ```ts
 * const summary = await indexVault("/home/me/notes", "/home/me/notes/.vault-rag/index.db", useLiteEmbedder());
 * summary.added; // 43
 * ```
 */
export async function indexVault(
  vault: string,
  dbPath: string,
  embedder: Embedder,
  opts: IndexOptions = {},
): Promise<IndexSummary> {
  const log = opts.log ?? silentLogger;
  const storeOpts = { ...opts.store, log };
  assertVaultFolder(vault); // a mistyped path is refused before the lock creates anything
  const release = acquireLock(lockTarget(dbPath, opts.store?.sidecarDir), log);
  try {
    const existing = await openExisting(dbPath, storeOpts).catch((err) => {
      // a damaged file is what a full rebuild is for: rebuilt from the notes, nothing read from it
      if (!opts.full || (err as VaultRagError).code !== "index_damaged") throw err;
      log.warn("index_damaged", `vault-rag: ${(err as VaultRagError).what} — rebuilding it from the notes`);
      return undefined;
    });
    const manifest = await existing?.manifest();
    if (existing && manifest && !sameModel(manifest, embedder) && !opts.full) {
      await existing.close();
      throw modelMismatch(existing.location, manifest, modelSpecOf({ embedder }));
    }
    if (!opts.full) {
      // what a stopped or killed full rebuild left beside the index is of no use
      if (discardRebuild(dbPath))
        log.info(`vault-rag: removed the files of a full rebuild that was stopped (${dbPath}.rebuild)`);
      // in place, batch by batch (a first build too), so an interrupted run resumes
      const store = existing ?? (await openStore(dbPath, { ...storeOpts, create: true }));
      try {
        const summary = await indexInto(vault, store, embedder, opts, log, undefined);
        await store.warmDense?.();
        return summary;
      } finally {
        await store.close();
      }
    }
    // full rebuild: build beside the old index, swap it in only when complete
    const rebuild = await beginRebuild(dbPath, storeOpts);
    let summary: IndexSummary;
    try {
      const cacheFrom = existing && manifest && sameModel(manifest, embedder) ? existing : undefined;
      summary = await indexInto(vault, rebuild.store, embedder, { ...opts, full: true }, log, cacheFrom);
    } catch (err) {
      await rebuild.abort();
      await existing?.close();
      throw err;
    }
    await existing?.close();
    await rebuild.commit();
    return { ...summary, dbPath: existing?.location ?? displayLocation(dbPath) };
  } finally {
    release();
  }
}

/** The texts the model reads for one chunk (its windows), each with the hash that keys the vector cache. */
type WindowPlan = { hash: string; text: string }[];

/** Gives a renamed note's new chunks the vectors of its old chunks (same content, same cut), each window
 * keeping its vector's text hash, so the next real edit of the note embeds it afresh with the new title. */
async function repoint(
  store: Store,
  oldPath: string,
  records: StoreRecord[],
  plans: WindowPlan[],
  vectors: Map<string, Promise<Float32Array>>,
): Promise<void> {
  const old = await store.get({ path: oldPath, includeVectors: true });
  if (old.length !== records.length) return;
  old.sort((a, b) => a.meta.ordinal - b.meta.ordinal);
  // the same cut into the same number of windows, or nothing is re-pointed
  if (old.some((r, k) => r.windows.length !== plans[k].length)) return;
  records.forEach((r, k) => {
    r.meta = { ...r.meta, hash: old[k].meta.hash };
    old[k].windows.forEach((w, j) => {
      plans[k][j] = { ...plans[k][j], hash: w.hash };
      vectors.set(w.hash, Promise.resolve(w.vector));
    });
  });
}

/** A chunk waiting for its vectors: what the model reads of it, and how an embedding error names it. */
type Pending = { record: StoreRecord; plan: WindowPlan; label: string };

/** One indexing run's state, shared by its steps ({@link startRun} makes it). */
export interface Run {
  vault: string;
  store: Store;
  embedder: Embedder;
  opts: IndexOptions;
  log: Logger;
  /** The old index of a full rebuild by the same model: a second cache of vectors. */
  cacheFrom: Store | undefined;
  files: VaultFile[];
  known: Map<string, NoteEntry>;
  manifest: Manifest | undefined;
  chunkerChanged: boolean | undefined;
  dateKeys: readonly string[];
  summary: IndexSummary;
  /** The notes to read, in the run's order; `cursor` is the next one. */
  todo: VaultFile[];
  cursor: number;
  gone: string[];
  goneByHash: Map<string, string>;
  resolve: (link: NoteLink, source: string) => string | undefined;
  linksOf: (note: Note) => NoteLink[];
  seen: { notes: number; chunks: number; toEmbed: number; embedded: number; saved: number };
  /** The run's work over the notes to do, from a sample of them once it is in. */
  estimate: WorkEstimate;
  chunkOptions: ChunkOptions;
  windowing: ReturnType<typeof windowOptions>;
  cacheModel: string;
  vectors: Map<string, Promise<Float32Array>>;
  unread: string[];
}

/** A batch read and chunked, its vectors found or being made ({@link prepareBatch}). */
interface Batch {
  slice: VaultFile[];
  batch: { note: NoteEntry; records: StoreRecord[]; links: NoteLink[] }[];
  pending: Pending[];
  missing: Map<string, { text: string; label: string }>;
  embedding: Promise<unknown>;
  /** The vector (made, being made or cached) of every window of the batch, by hash. */
  own: Map<string, Promise<Float32Array>>;
}

async function indexInto(
  vault: string,
  store: Store,
  embedder: Embedder,
  opts: IndexOptions,
  log: Logger,
  cacheFrom: Store | undefined,
): Promise<IndexSummary> {
  const t0 = performance.now();
  const run = await startRun(vault, store, embedder, opts, log, cacheFrom);
  await storeBatches(run);
  await endRun(run);
  run.summary.seconds = (performance.now() - t0) / 1000;
  return run.summary;
}

/** Reads what the index holds and what the vault has, and plans the run: the notes to read, in order, and those gone. */
async function startRun(
  vault: string,
  store: Store,
  embedder: Embedder,
  opts: IndexOptions,
  log: Logger,
  cacheFrom: Store | undefined,
): Promise<Run> {
  // an index whose keyword text older rules wrote (before NFKC) is read again first: this run's
  // deletes must find the text as it was inserted
  if (await store.upgradeKeywordText?.())
    log.info("keyword index: read again by this version's text rules (once; nothing is embedded again)");
  const files = walkVault(vault, log);
  const known = await store.notes();
  // an empty index of an empty folder is most often the wrong folder: say so, and go on (a new vault is empty too)
  if (!files.length && !known.size)
    log.warn(
      "vault_empty",
      `vault-rag: no Markdown notes in ${vault} (none ending in .md, outside .vault-ragignore and hidden folders) — check that this is the folder that holds your notes`,
    );
  const manifest = await store.manifest();
  const chunkerChanged = manifest && manifest.chunkerVersion !== CHUNKER_VERSION;
  const summary: IndexSummary = {
    added: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    failed: 0,
    skipped: 0,
    chunks: 0,
    embedded: 0,
    cached: 0,
    seconds: 0,
    dbPath: store.location,
    model: embedder.id,
  };

  const todo: VaultFile[] = [];
  for (const f of files) {
    const entry = known.get(f.path);
    if (entry && !chunkerChanged && entry.mtime === f.mtime && entry.size === f.size) summary.unchanged++;
    else todo.push(f);
  }
  // in an order fixed by each path's hash, not the vault's: the notes read so far are then a fair
  // sample of those left, whose windows progress projects from them (a folder of drawings, large
  // files of few words, read first projects a 1,300-note vault at 12% of its windows and then at
  // 102%; in hash order every projection lies within 92–106%)
  const place = new Map(todo.map((f) => [f.path, createHash("sha1").update(f.path).digest("hex")]));
  todo.sort((a, b) => (place.get(a.path)! < place.get(b.path)! ? -1 : 1));
  const onDisk = new Set(files.map((f) => f.path));
  const gone = [...known.keys()].filter((p) => !onDisk.has(p));
  // links resolve against the notes on disk now (a wikilink names a note, a Markdown link a path);
  // one that fits no single note waits, and is resolved again once the notes change (endRun)
  const fits = noteLinkResolver(files.map((f) => f.path));
  const resolve = (link: NoteLink, source: string) => {
    const found = fits(link.written, source, link.markdown);
    return found.length === 1 ? found[0] : undefined;
  };
  const linksOf = (note: Note): NoteLink[] =>
    note.linkTexts.map((l) => {
      const link: NoteLink = {
        written: l.target,
        text: l.text,
        ...(l.display ? { display: l.display } : {}),
        ...(l.markdown ? { markdown: true as const } : {}),
      };
      const target = resolve(link, note.path);
      return target ? { ...link, target } : link;
    });
  opts.onProgress?.("scan", files.length, files.length);
  // a vanished note whose content turns up under a new path was renamed or moved: its vectors are
  // re-pointed, nothing is embedded (even when the new file name changes the title in the breadcrumb)
  const goneByHash = new Map<string, string>();
  if (!chunkerChanged) for (const p of gone) if (known.get(p)!.hash) goneByHash.set(known.get(p)!.hash, p);
  return {
    vault,
    store,
    embedder,
    opts,
    log,
    cacheFrom,
    files,
    known,
    manifest,
    chunkerChanged,
    dateKeys: resolveDateKeys(opts.dateKeys),
    summary,
    todo,
    cursor: 0,
    gone,
    goneByHash,
    resolve,
    linksOf,
    // estimates for progress: the work seen so far, and over the notes still to read a sample's work
    // per note (by notes, not bytes: a drawing's JSON or a pasted image is many bytes of few words)
    seen: { notes: 0, chunks: 0, toEmbed: 0, embedded: 0, saved: 0 },
    estimate: new WorkEstimate(todo.length),
    chunkOptions: opts.chunk ?? {},
    windowing: windowOptions(embedder),
    cacheModel: `${embedder.provider}:${embedder.model}`,
    // every vector of this run by text hash: found in a cache, re-pointed, or being made by the model
    // for an earlier batch (a later batch then waits for it instead of embedding the text again)
    vectors: new Map(),
    // notes the model cannot read (Japanese to an English model): told once, after the run
    unread: [],
  };
}

/** `n` windows (or chunks) of the notes read so far, projected over all the notes to read. */
function projected(run: Run, n: number, kind: "windows" | "chunks" = "windows"): number {
  return run.estimate.project(n, run.seen.notes, kind);
}

/** Reads and chunks a batch of notes, finds cached vectors, and starts embedding the rest. */
async function prepareBatch(run: Run, budget: number): Promise<Batch> {
  const { slice, batch, pending } = await readBatch(run, budget);
  const { missing, embedding, own } = await startVectors(run, pending);
  return { slice, batch, pending, missing, embedding, own };
}

/** Reads and chunks the next notes, up to `budget` windows, and plans what the model reads of them. */
async function readBatch(run: Run, budget: number): Promise<Pick<Batch, "slice" | "batch" | "pending">> {
  const { store, embedder, log, known, chunkerChanged, summary, todo, seen, goneByHash, vectors } = run;
  // the window budget (storeBatches) decides a batch's size; the note cap only bounds a batch of tiny notes
  const batchNotes = run.opts.batchNotes ?? 512;
  const slice: VaultFile[] = [];
  const batch: Batch["batch"] = [];
  const pending: Pending[] = [];
  let windows = 0;
  while (run.cursor < todo.length && slice.length < batchNotes && windows < budget) {
    const f = todo[run.cursor++];
    slice.push(f);
    seen.notes++;
    const { note, skipped, stat } = readVaultFile(f, log, { dateKeys: run.dateKeys });
    if (!note) {
      // a file skipped on purpose (binary, not UTF-8, too big) is a warning, not a failure
      if (skipped) summary.skipped++;
      else summary.failed++;
      continue;
    }
    const entry = known.get(f.path);
    // as read, which may be newer than the walk's listing
    const noteEntry: NoteEntry = { path: f.path, hash: note.hash, mtime: stat!.mtime, size: stat!.size };
    if (entry && entry.hash === note.hash && !chunkerChanged) {
      // touched but not changed: record the new stat, keep the chunks
      await store.touchNote(noteEntry);
      summary.unchanged++;
      continue;
    }
    let chunks;
    try {
      chunks = chunkNote(note, run.chunkOptions);
    } catch (err) {
      log.warn("note_skipped", `vault-rag: cannot chunk "${f.path}": ${(err as Error).message}`, { path: f.path });
      summary.failed++;
      continue;
    }
    if (unreadable(embedder, note.body)) run.unread.push(f.path);
    const records: StoreRecord[] = chunks.map((c) => ({ id: c.id, text: c.text, meta: c.meta, windows: [] }));
    // what the model reads: the chunk whole, or its windows when it is longer than the model's window
    const plans: WindowPlan[] = chunks.map((c) => {
      const texts = run.windowing ? passageWindows(c.embedText, run.windowing) : [c.embedText];
      return texts.length === 1
        ? [{ hash: c.meta.hash, text: texts[0] }]
        : texts.map((text) => ({ hash: hashText(text), text }));
    });
    const from = entry ? undefined : goneByHash.get(note.hash);
    if (from) {
      goneByHash.delete(note.hash);
      await repoint(store, from, records, plans, vectors);
    }
    records.forEach((r, k) =>
      pending.push({ record: r, plan: plans[k], label: `"${f.path}" (${chunks[k].meta.section})` }),
    );
    windows += plans.reduce((n, p) => n + p.length, 0);
    seen.chunks += records.length;
    batch.push({ note: noteEntry, records, links: run.linksOf(note) });
    if (entry) summary.updated++;
    else summary.added++;
  }
  return { slice, batch, pending };
}

/** Finds the vectors of a batch's windows (this run, then the store's cache) and starts the model on the
 * rest. The run's map holds only vectors of batches not yet stored, so its memory stays flat. */
async function startVectors(run: Run, pending: Pending[]): Promise<Pick<Batch, "missing" | "embedding" | "own">> {
  const { store, cacheFrom, cacheModel, vectors, seen, opts } = run;
  // vectors: this run, then the store's cache, then the model
  const own = new Map<string, Promise<Float32Array>>();
  for (const p of pending) for (const w of p.plan) if (vectors.has(w.hash)) own.set(w.hash, vectors.get(w.hash)!);
  const hashes = [...new Set(pending.flatMap((p) => p.plan.map((w) => w.hash)).filter((h) => !own.has(h)))];
  for (const source of [store, cacheFrom]) {
    if (!source || !hashes.length) continue;
    const found = await source.cachedVectors(cacheModel, hashes);
    for (const [h, v] of found) own.set(h, Promise.resolve(v));
  }
  // a passage of several windows, not cached, whose pooled vector is: a Chroma collection holds
  // each chunk's pooled vector, and a rebuilt sidecar (another machine, a lost file) none of its
  // windows, so that vector stands as the passage's one window instead of embedding them all again
  // (a sidecar rebuilt on a 434-note vault re-embedded its 31,654 windows)
  const partial = pending.filter((p) => p.plan.length > 1 && p.plan.some((w) => !own.has(w.hash)));
  for (const source of [store, cacheFrom]) {
    const want = [...new Set(partial.map((p) => p.record.meta.hash))].filter((h) => !own.has(h));
    if (!source || !want.length) continue;
    for (const [h, v] of await source.cachedVectors(cacheModel, want)) own.set(h, Promise.resolve(v));
  }
  for (const p of partial) if (own.has(p.record.meta.hash)) p.plan = [{ hash: p.record.meta.hash, text: "" }];
  const missing = new Map<string, { text: string; label: string }>();
  for (const p of pending)
    for (const w of p.plan) if (!own.has(w.hash)) missing.set(w.hash, { text: w.text, label: p.label });
  let embedding: Promise<unknown> = Promise.resolve();
  if (missing.size) {
    const entries = [...missing];
    let reported = 0;
    const onEmbed = (d: number) => {
      seen.embedded += d - reported;
      reported = d;
      opts.onProgress?.("embed", seen.embedded, projected(run, seen.toEmbed), run.estimate.estimating);
    };
    seen.toEmbed += entries.length;
    const made = run.embedder.embedDocuments(
      entries.map(([, m]) => m.text),
      opts.onProgress && onEmbed,
      entries.map(([, m]) => m.label),
    );
    embedding = made;
    made.catch(() => {}); // awaited (and thrown) when this batch is stored
    entries.forEach(([h], k) => {
      const one = made.then((v) => v[k]);
      one.catch(() => {}); // a failure is reported once, by the batch that embeds it
      own.set(h, one);
      vectors.set(h, one); // for a later batch with the same text, read before this one is stored
    });
    run.summary.embedded += entries.length;
  }
  return { missing, embedding, own };
}

/**
 * Stores the run's notes batch by batch. One batch is embedded while the next is read and chunked,
 * and its texts queue behind, so the model's threads never wait on the writing thread. Batches are
 * stored in order, each in one transaction once its vectors are all made, so an interrupted run
 * still resumes where it stopped.
 */
async function storeBatches(run: Run): Promise<void> {
  const { opts, todo, seen } = run;
  // a batch closes on a budget of windows, sized from the time batches take, so that one is
  // committed about every commitSeconds (the first, small, comes quickly)
  const commitSeconds = opts.commitSeconds ?? 5;
  // (at least 64 windows: the bundled model runs such batches on its worker threads, which leaves
  // this thread free to report progress and to take Ctrl-C; a smaller batch, such as the last one,
  // goes to those threads too once they are up, and runs on this thread only when they are not)
  const minBudget = 64;
  let windowBudget = minBudget;
  let done = 0;
  let next = todo.length ? prepareBatch(run, windowBudget) : undefined;
  const sampled = new AbortController();
  const sampling = sampleRun(run, sampled.signal);
  let lastCommit = performance.now();
  try {
    for (let i = 0; next; i++) {
      if (opts.signal?.aborted) {
        // the next batch's reads of the store finish before it closes (its embedding is left to the
        // model's threads, unstored); the stored batches stay, or a full run's new file is dropped
        await next.then(
          () => {},
          () => {},
        );
        throw new VaultRagError(
          "stopped",
          opts.full
            ? "vault-rag: the rebuild was stopped and abandoned — the index is as it was"
            : `vault-rag: indexing stopped after ${done} of ${todo.length} notes — what was stored stays; the next run goes on from there`,
        );
      }
      const cur = await next;
      opts.onProgress?.("embed", seen.embedded, projected(run, seen.toEmbed), run.estimate.estimating);
      // the first batch is embedded alone: a model that cannot run fails before more notes are read
      if (i === 0) await cur.embedding;
      next = run.cursor < todo.length ? prepareBatch(run, windowBudget) : undefined;
      next?.catch(() => {}); // awaited (and thrown) on the next turn
      await saveBatch(run, cur);
      done += cur.slice.length;
      opts.onProgress?.("index", done, todo.length);
      seen.saved += cur.pending.length;
      opts.onProgress?.("saved", seen.saved, projected(run, seen.chunks, "chunks"), run.estimate.estimating);
      // size the next batches so that one closes about every commitSeconds
      const now = performance.now();
      const took = Math.max(0.05, (now - lastCommit) / 1000);
      lastCommit = now;
      const windows = cur.pending.reduce((n, p) => n + p.plan.length, 0);
      if (windows)
        windowBudget = Math.max(
          minBudget,
          Math.min(4096, Math.round((windows * commitSeconds) / took), windowBudget * 4),
        );
    }
  } finally {
    sampled.abort();
    await sampling;
  }
}

/** Waits for a batch's vectors and stores it, in one transaction (with the manifest, before the first). */
async function saveBatch(run: Run, cur: Batch): Promise<void> {
  const { store, embedder, vectors, summary } = run;
  await cur.embedding;
  for (const p of cur.pending) {
    p.record.windows = await Promise.all(
      p.plan.map(async (w) => ({ hash: w.hash, vector: await cur.own.get(w.hash)! })),
    );
    for (const w of p.plan) if (!cur.missing.has(w.hash)) summary.cached++;
  }
  const manifest = run.manifest;
  if (!manifest || manifest.embedder.dimensions !== embedder.dimensions) {
    if (embedder.dimensions > 0) {
      // an upgrade in progress keeps the old chunker version until the run completes, so an
      // interrupted upgrade still re-chunks the notes it did not reach
      run.manifest = {
        ...manifestFor(embedder, manifest),
        ...(run.chunkerChanged ? { chunkerVersion: manifest!.chunkerVersion } : {}),
      };
      await store.setManifest(run.manifest);
    }
  }
  if (cur.batch.length) await store.upsertNotes(cur.batch);
  for (const h of cur.own.keys()) vectors.delete(h); // in the store's cache now
}

/** Ends a run: names the notes the model cannot read, deletes the notes gone, resolves links and records the manifest. */
async function endRun(run: Run): Promise<void> {
  const { store, embedder, log, unread, gone, summary, files } = run;
  unread.sort(); // named in path order, not in the order the notes were read
  if (unread.length)
    log.warn(
      "script_unread",
      `vault-rag: ${unread.length === 1 ? "1 note is" : `${unread.length} notes are`} mostly in characters the model ${embedder.id} has no tokens for (${unread
        .slice(0, 2)
        .map((p) => `"${p}"`)
        .join(
          ", ",
        )}${unread.length > 2 ? ", …" : ""}): the dense ranking cannot tell ${unread.length === 1 ? "it" : "them"} apart, so searches find ${unread.length === 1 ? "it" : "them"} by ${unread.length === 1 ? "its" : "their"} words — a multilingual model (such as ollama:bge-m3) reads them: rebuild the index with it`,
      { notes: unread.length },
    );
  if (gone.length) await store.deleteNotes(gone);
  summary.deleted = gone.length;
  // after the notes are stored; any links written since the last relink (by this run, or by one
  // that was interrupted) make it resolve them all again. The key names the rules too (bump its
  // first line when noteLinkResolver reads links another way)
  const linkKey = hashText(["link rules 4", ...files.map((f) => f.path).sort()].join("\n"));
  await store.resolveLinks(linkKey, run.resolve);
  let manifest = run.manifest;
  if (!manifest || run.chunkerChanged) {
    // nothing was embedded (empty vault or all cached): still record what built the index
    if (!manifest && embedder.dimensions === 0) await embedder.embedQuery("dimension probe");
    manifest = manifestFor(embedder, manifest);
    await store.setManifest(manifest);
  } else {
    await store.setManifest({ ...manifest, updatedAt: new Date().toISOString() });
  }
  run.manifest = manifest;
  summary.chunks = (await store.count()).chunks;
}
