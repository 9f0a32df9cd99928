import { createHash } from "node:crypto";
import { chunkNote, type Chunk, type ChunkOptions } from "../chunk/index.js";
import { resolveDateKeys } from "../config.js";
import { readSettings } from "../settings.js";
import { unreadable, windowOptions, type Embedder } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import {
  beginRebuild,
  discardRebuild,
  removeStaleTemps,
  displayLocation,
  lockTarget,
  openExisting,
  openStore,
  PassageLanguages,
  passagesOf,
  type NoteEntry,
  type NoteLink,
  type OpenStoreOptions,
  type Store,
  type StoreRecord,
  type Manifest,
} from "../store/index.js";
import {
  assertVaultFolder,
  fileTypeOf,
  hashText,
  noteLinkResolver,
  readPropertyTypes,
  readVaultFile,
  walkVault,
  type Note,
  type VaultFile,
  type NoteOptions,
} from "../vault/index.js";
import { densePhase } from "./dense-phase.js";
import { findVectors, planWindows, repoint, type Pending, type VectorMap, type WindowPlan } from "./vectors.js";
import { acquireLock } from "./lock.js";
import { runWarnings, type RunWarnings } from "./warnings.js";
import { addUp } from "./add-up.js";
import { ocrReady, readAttachmentFile, type AttachmentFile } from "./attachments.js";
import { stampOf } from "./stale.js";
import { noAttachments, tagAttachments, tally, type AttachmentCounts } from "./attachment-index.js";
import { chunkerVersionFor, ensureManifest, manifestFor, modelMismatch, modelSpecOf, sameModel } from "./manifest.js";

/** What an indexing run did. */
export interface IndexSummary {
  /** Notes added; `updated`, `deleted` and `unchanged` count notes too (attachments: `attachments`). */
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** PDFs, Canvas boards and Word documents, counted apart from the notes. */
  attachments: AttachmentCounts;
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
  /** Passages (chunks) this run wrote: those of the notes added and updated. */
  passages: number;
  /** Seconds until every changed note was keyword-searchable (the keyword phase, committed). */
  keywordSeconds: number;
  /** Seconds the dense phase took: embedding the windows of the passages without vectors. */
  denseSeconds: number;
  /** Passages still without vectors when the run ended (0 unless it was stopped). */
  pending: number;
  seconds: number;
  dbPath: string;
  model: string;
}

/**
 * What `onProgress` reports, phase by phase. The keyword phase: `scan` (files found), `read` (notes
 * read and chunked, of those to do, every 50 ms or so: ahead of what is stored), `index` (notes
 * stored with their keyword index, of those to do); then `keyword` once
 * (done = total = notes stored: the index is keyword-searchable from here). The dense phase:
 * `embed` (windows given vectors, embedded or found in a cache, of those to do; `estimating` while
 * passages an interrupted run left are still to be read) and `saved` (passages given vectors,
 * committed, of those without).
 */
export type IndexPhase = "scan" | "read" | "index" | "keyword" | "embed" | "saved";

/** Milliseconds of reading notes between two turns of the event loop (progress, Ctrl-C, a stop). */
const READ_SLICE_MS = 50;

/** Options of an indexing run. */
export interface IndexOptions {
  /** Rebuild everything into a new file and swap it in when complete. */
  full?: boolean;
  chunk?: ChunkOptions;
  /** Notes per write transaction of the keyword phase, at most (default 4,096). */
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
  /** One note's windows the dense phase embeds at most (see `resolveNoteWindows`); past it, keyword search only (`note_truncated`). */
  noteWindows?: number;
  /** The frontmatter keys a note's date comes from, first found first (see `resolveDateKeys`); `full` re-reads every note. */
  dateKeys?: readonly string[];
  /** Index PDFs, Canvas boards and Word documents (default: the vault's `attachments` setting, on). */
  attachments?: boolean;
  /** Read scanned PDF pages by OCR with tesseract (default: the vault's `ocr` setting, off); `ocr_unavailable` without it. */
  ocr?: boolean;
  /** Passages a keyword batch is expected to send to the language detector before a second thread tells languages too (default `LANGUAGE_THREAD_PASSAGES`; `Infinity`: never); the index is the same. */
  languageThreadPassages?: number;
}

/**
 * Indexes a vault into the SQLite store at `dbPath`, incrementally and keyword first: unchanged
 * notes (same size and mtime, or same content hash) cost a stat; changed notes are re-chunked and
 * stored with their keyword index (passages whose windows are all in the vector cache keep their
 * vectors), and vanished notes are deleted, batch by batch, so the index is keyword-searchable
 * within seconds. Then the dense phase embeds the windows of every passage still without vectors
 * (this run's and any an interrupted run left), batch by batch. Both phases commit in batches, so an
 * interrupted run resumes where it stopped. A `full` run, or a run with a new model, builds a new
 * file and swaps it in only when both phases are complete.
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
    const temps = removeStaleTemps(dbPath); // a snapshot's temporary files that a crash left
    if (temps.length) log.info(`vault-rag: removed ${temps.length} temporary file(s) a stopped run left (${temps[0]})`);
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
  /** The chunker version this run's passages are cut by (see `chunkerVersionFor`). */
  chunkerVersion: string;
  /** How notes are read: the date keys, and what the vault's `leaveOut` setting leaves out. */
  reading: Required<NoteOptions>;
  summary: IndexSummary;
  /** The folders whose notes the dense phase embeds first (the vault's `denseFirst` setting). */
  denseFirst: string[];
  /** The notes to read, in the run's order; `cursor` is the next one. */
  todo: VaultFile[];
  cursor: number;
  gone: string[];
  goneByHash: Map<string, string>;
  resolve: (link: NoteLink, source: string) => string | undefined;
  /** What `resolve` resolves against, for `resolveLinks`: its rules (bump "link rules" when they change) and the notes. */
  linkKey: string;
  linksOf: (note: Note) => NoteLink[];
  chunkOptions: ChunkOptions;
  windowing: ReturnType<typeof windowOptions>;
  cacheModel: string;
  /**
   * Vectors the keyword phase found for passages it stored without (some windows of a long passage
   * cached, the rest new, or a renamed note's): the dense phase uses them before the model.
   */
  carry: Map<string, Float32Array>;
  /** Passages the keyword phase stored without vectors, and their windows: the dense phase's work. */
  planned: { chunks: number; windows: number };
  /**
   * Whether a cache may hold vectors of this run's passages: the index holds some, or a full
   * rebuild's old index does. When none can (a first index), the keyword phase does not cut
   * passages into the model's windows (tokenizing is most of its time): the dense phase does.
   */
  mayBeCached: boolean;
  /** notes the model cannot read (Japanese to an English model): told once, after the run */
  unread: string[];
  /** The warnings about files the run keeps in the index (`log` passes them to it). */
  warnings?: RunWarnings;
  /** The passages of the attachments this run read, for its dense phase (a PDF is read once). */
  attachmentChunks: Map<string, Chunk[]>;
  /** The keyword phase's passage languages, told as they are read, on a second thread once it pays; closed with the phase. */
  languages: PassageLanguages;
}

/** Passes over the vault at most: a note changed during the dense phase is indexed by the next. */
const MAX_PASSES = 3;

async function indexInto(
  vault: string,
  store: Store,
  embedder: Embedder,
  opts: IndexOptions,
  log: Logger,
  cacheFrom: Store | undefined,
): Promise<IndexSummary> {
  const t0 = performance.now();
  let total: IndexSummary | undefined;
  let walked: Map<string, string> | undefined;
  // warnings about files are kept in the index as they come, so an interrupted run's stay
  const warnings = await runWarnings(store, log);
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const run = await startRun(vault, store, embedder, opts, warnings.log, cacheFrom, walked);
    run.warnings = warnings;
    warnings.begin(run.files, run.todo, !walked);
    walked = new Map(run.files.map((f) => [f.path, `${f.mtime}:${f.size}`]));
    // a later pass indexes only what changed during the one before (nothing, most often)
    if (total && !run.todo.length && !run.gone.length) break;
    await keywordPhase(run).finally(() => run.languages.close()); // the language thread ends with the phase
    const keywordAt = performance.now();
    await densePhase(run);
    run.summary.chunks = (await store.count()).chunks;
    run.summary.denseSeconds = (performance.now() - keywordAt) / 1000;
    if (!total) {
      total = run.summary;
      total.keywordSeconds = (keywordAt - t0) / 1000;
    } else addUp(total, run.summary);
    // a dense phase of seconds leaves no time for a note to change unseen: no second walk
    if (run.summary.denseSeconds < 1) break;
  }
  await warnings.save();
  total!.seconds = (performance.now() - t0) / 1000;
  return total!;
}

/** Reads what the index holds and what the vault has, and plans the run: the notes to read, in order, and those gone. */
async function startRun(
  vault: string,
  store: Store,
  embedder: Embedder,
  opts: IndexOptions,
  log: Logger,
  cacheFrom: Store | undefined,
  walked?: Map<string, string>,
): Promise<Run> {
  // an index whose keyword text older rules wrote (before NFKC) is read again first: this run's
  // deletes must find the text as it was inserted
  if (await store.upgradeKeywordText?.())
    log.info("keyword index: read again by this version's text rules (once; nothing is embedded again)");
  // a later pass (walked: the files the last one found, with their stat) takes only what changed
  // since, and warns of nothing the last one warned of (a binary file is skipped once per run)
  const files = walkVault(vault, walked ? silentLogger : log, { attachments: opts.attachments });
  const known = await store.notes();
  // an empty index of an empty folder is most often the wrong folder: say so, and go on (a new vault is empty too)
  if (!files.length && !known.size)
    log.warn(
      "vault_empty",
      `vault-rag: no Markdown notes in ${vault} (none ending in .md, outside .vault-ragignore and hidden folders) — check that this is the folder that holds your notes`,
    );
  const manifest = await store.manifest();
  const { leaveOut, denseFirst, ocr: ocrSetting } = readSettings(vault);
  const ocr = ocrReady(opts.ocr ?? ocrSetting, walked ? silentLogger : log);
  const propTypes = readPropertyTypes(vault); // read into every note: a change reads all again
  const chunkerVersion = chunkerVersionFor(leaveOut, propTypes);
  const chunkerChanged = manifest && manifest.chunkerVersion !== chunkerVersion;
  const summary: IndexSummary = {
    added: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    attachments: noAttachments(),
    failed: 0,
    skipped: 0,
    chunks: 0,
    embedded: 0,
    cached: 0,
    passages: 0,
    keywordSeconds: 0,
    denseSeconds: 0,
    pending: 0,
    seconds: 0,
    dbPath: store.location,
    model: embedder.id,
  };

  const todo: VaultFile[] = [];
  for (const f of files) {
    if (walked?.get(f.path) === `${f.mtime}:${f.size}`) continue;
    const e = known.get(f.path);
    // the rule of status's stale count: a scanned PDF stored unread is read again by OCR
    if (e && !chunkerChanged && stampOf(e, ocr) === f.mtime && e.size === f.size) tally(summary, f.path, "unchanged");
    else todo.push(f);
  }
  // in an order fixed by each path's hash, not the vault's: an interrupted run leaves a fair sample
  // of the vault searchable, not its first folders
  const place = new Map(todo.map((f) => [f.path, createHash("sha1").update(f.path).digest("hex")]));
  todo.sort((a, b) => (place.get(a.path)! < place.get(b.path)! ? -1 : 1));
  const onDisk = new Set(files.map((f) => f.path));
  const gone = [...known.keys()].filter((p) => !onDisk.has(p));
  // links resolve against the notes on disk now (a wikilink names a note, a Markdown link a path);
  // one that fits no single note waits, and is resolved again once the notes change (endKeyword)
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
    opts: { ...opts, ocr },
    log,
    cacheFrom,
    files,
    known,
    manifest,
    chunkerChanged,
    reading: { dateKeys: resolveDateKeys(opts.dateKeys), leaveOut, propTypes },
    chunkerVersion,
    summary,
    denseFirst,
    todo,
    cursor: 0,
    gone,
    goneByHash,
    resolve,
    linkKey: hashText(["link rules 4", ...files.map((f) => f.path).sort()].join("\n")),
    linksOf,
    chunkOptions: opts.chunk ?? {},
    windowing: windowOptions(embedder),
    cacheModel: `${embedder.provider}:${embedder.model}`,
    carry: new Map(),
    planned: { chunks: 0, windows: 0 },
    mayBeCached: !!cacheFrom || (await store.vectorCoverage()).withVectors > 0,
    unread: [],
    attachmentChunks: new Map(),
    languages: new PassageLanguages(opts.languageThreadPassages),
  };
}

/** A batch of notes read and chunked, and what the model would read of their passages. */
interface Batch {
  slice: VaultFile[];
  batch: { note: NoteEntry; records: StoreRecord[]; links: NoteLink[] }[];
  pending: Pending[];
}

/** Reads and chunks the next notes, at most `batchNotes`, and plans what the model reads of them. */
async function readBatch(run: Run, batchNotes: number): Promise<Batch | undefined> {
  const { store, embedder, log, known, chunkerChanged, summary, todo, goneByHash } = run;
  const slice: VaultFile[] = [];
  const batch: Batch["batch"] = [];
  const pending: Pending[] = [];
  let turn = performance.now();
  while (run.cursor < todo.length && slice.length < batchNotes) {
    if (performance.now() - turn > READ_SLICE_MS) {
      // the event loop takes its turn: the progress line, a signal, a stop (this batch is dropped)
      run.opts.onProgress?.("read", run.cursor, todo.length);
      await new Promise((r) => setImmediate(r));
      if (run.opts.signal?.aborted) return undefined;
      turn = performance.now();
    }
    const f = todo[run.cursor++];
    slice.push(f);
    const att: AttachmentFile | undefined =
      fileTypeOf(f.path) === "note" ? undefined : await readAttachmentFile(f, log, { ...run.opts, ...run.reading });
    const { note, skipped, stat } = att ?? readVaultFile(f, log, run.reading);
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
      tally(summary, f.path, "unchanged");
      continue;
    }
    let chunks: Chunk[];
    try {
      chunks = att?.chunks ?? chunkNote(note, run.chunkOptions);
    } catch (err) {
      log.warn("note_skipped", `vault-rag: cannot chunk "${f.path}": ${(err as Error).message}`, { path: f.path });
      summary.failed++;
      continue;
    }
    if (unreadable(embedder, note.body)) run.unread.push(f.path);
    const records: StoreRecord[] = chunks.map((c) => ({ id: c.id, text: c.text, meta: c.meta, windows: [] }));
    // what the model reads: the chunk whole, or its windows when it is longer than the model's window
    const from = entry ? undefined : goneByHash.get(note.hash);
    // (none when no cache can hold their vectors: the dense phase cuts them)
    const plans: WindowPlan[] =
      run.mayBeCached || from ? chunks.map((c) => planWindows(run, c.embedText, c.meta.hash)) : chunks.map(() => []);
    if (from) {
      goneByHash.delete(note.hash);
      await repoint(store, from, records, plans, run.carry);
    }
    records.forEach((r, k) =>
      pending.push({ record: r, plan: plans[k], label: `"${f.path}" (${chunks[k].meta.section})` }),
    );
    run.languages.add(passagesOf(records)); // told on a second thread while the rest are read (once it pays)
    batch.push({ note: noteEntry, records, links: run.linksOf(note) });
    run.warnings?.rewritten(f.path);
    if (att?.chunks?.length) run.attachmentChunks.set(f.path, att.chunks);
    tally(summary, f.path, att?.unreadable ? "unreadable" : entry ? "updated" : "added");
  }
  return { slice, batch, pending };
}

/**
 * The keyword phase: reads, chunks and stores every note to do with its keyword index, batch by
 * batch, each batch one transaction (about every `commitSeconds`, at most `batchNotes` notes). A
 * passage whose windows are all cached (unchanged text, a renamed note) is stored with its vectors;
 * any other without, for the dense phase. Then deletes the notes gone and resolves links.
 */
async function keywordPhase(run: Run): Promise<void> {
  const { opts, todo, store } = run;
  // large batches: each rewrites the index pages its notes land on, all over the file; at 100,000
  // generated notes 512 notes a batch took 73 s of CPU, 4,096 took 60 s (see decisions/scale.md)
  const batchNotes = opts.batchNotes ?? 4096;
  const commitSeconds = opts.commitSeconds ?? 5;
  let done = 0;
  let size = Math.min(batchNotes, 64); // the first batch is small: searchable at once
  // `status` in another process tells this phase from the next by this record (dropped when the run ends)
  const now = new Date().toISOString();
  if (todo.length) await store.setDenseProgress({ phase: "keyword", windows: 0, done: 0, started: now, updated: now });
  const stopped = () => `indexing stopped after ${done} of ${todo.length} notes`;
  while (run.cursor < todo.length) {
    throwIfStopped(run, stopped());
    const started = performance.now();
    const cur = await readBatch(run, size);
    if (!cur) return throwIfStopped(run, stopped()); // stopped while reading: the batch is dropped
    await keepCached(run, cur.pending);
    await ensureManifest(run);
    await run.languages.prime(); // the batch's passage languages, for its write
    // the backlink text of the notes linked to is rebuilt once, by endKeyword's resolveLinks
    if (cur.batch.length) await store.upsertNotes(cur.batch, { backlinksLater: true, linksResolvedBy: run.linkKey });
    await run.warnings?.save();
    done += cur.slice.length;
    run.summary.passages += cur.pending.length;
    opts.onProgress?.("index", done, todo.length);
    // size the next batch so that one closes about every commitSeconds
    const took = Math.max(0.01, (performance.now() - started) / 1000);
    size = Math.max(16, Math.min(batchNotes, Math.round((cur.slice.length * commitSeconds) / took), size * 4));
  }
  await endKeyword(run);
  opts.onProgress?.("keyword", done, todo.length);
}

/**
 * Gives each pending passage the vectors of its windows when all are known without the model
 * (a cache, a renamed note), or none: it is then stored without, and the dense phase embeds it
 * (with the vectors found here, carried over).
 */
async function keepCached(run: Run, pending: Pending[]): Promise<void> {
  const known: VectorMap = run.carry;
  await findVectors(run, pending, known);
  for (const p of pending) {
    if (p.plan.length && p.plan.every((w) => known.has(w.hash))) {
      p.record.windows = p.plan.map((w) => ({ hash: w.hash, vector: known.get(w.hash) as Float32Array }));
      run.summary.cached += p.plan.length;
    } else {
      p.record.windows = [];
      // a passage not cut into windows (no cache) is counted by the dense phase as it reads it
      if (p.plan.length) {
        run.planned.chunks++;
        run.planned.windows += p.plan.length;
      }
    }
  }
  // what a stored passage used is no longer needed; a passage stored without keeps what it found
  const keep = new Set(pending.filter((p) => !p.record.windows.length).flatMap((p) => p.plan.map((w) => w.hash)));
  for (const p of pending) for (const w of p.record.windows) if (!keep.has(w.hash)) run.carry.delete(w.hash);
}

/**
 * Stops the run when its signal says so, between batches: what was stored stays (a full run's new
 * file is dropped by the caller).
 *
 * @example
 * ```ts
 * throwIfStopped(run, `indexing stopped after 40 of 100 notes`);
 * ```
 */
export function throwIfStopped(run: Pick<Run, "opts">, what: string): void {
  if (!run.opts.signal?.aborted) return;
  throw new VaultRagError(
    "stopped",
    run.opts.full
      ? "vault-rag: the rebuild was stopped and abandoned — the index is as it was"
      : `vault-rag: ${what} — what was stored stays; the next run goes on from there`,
  );
}

/** Ends the keyword phase: names the notes the model cannot read, deletes the notes gone, resolves links and records the manifest. */
async function endKeyword(run: Run): Promise<void> {
  const { store, embedder, log, unread, gone, summary } = run;
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
  for (const p of gone) tally(summary, p, "deleted");
  // links written since the last relink against other notes (an interrupted run's) are resolved again
  await store.resolveLinks(run.linkKey, run.resolve);
  await tagAttachments(run); // an attachment carries the tags of the notes that link to it
  await ensureManifest(run);
  // every note is chunked by this chunker now: an upgrade is complete
  const manifest = run.chunkerChanged ? manifestFor(embedder, run.manifest, run.chunkerVersion) : run.manifest!;
  run.manifest = { ...manifest, updatedAt: new Date().toISOString() };
  await store.setManifest(run.manifest);
}
