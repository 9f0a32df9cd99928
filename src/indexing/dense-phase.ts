import { chunkNote, type Chunk } from "../chunk/index.js";
import { resolveNoteWindows } from "../config.js";
import { isSkippedWindow, skippedWindow, type DenseProgress, type StoreRecord } from "../store/index.js";
import { silentLogger } from "../log.js";
import { fileTypeOf, readVaultFile, type VaultFile } from "../vault/index.js";
import { readAttachmentFile } from "./attachments.js";
import { denseOrder, pendingPaths } from "./dense-order.js";
import { throwIfStopped, type Run } from "./indexer.js";
import { findVectors, planWindows, type Pending, type VectorMap } from "./vectors.js";

/** A batch of passages to give vectors: their plans, the windows the model makes for them, and its work. */
interface DenseBatch {
  pending: (Pending & { vectors: Promise<Float32Array>[] })[];
  /** Passages past their note's window budget: stored with {@link skippedWindow}, not embedded. */
  skipped: StoreRecord[];
  /** The windows of this batch the model embeds (not found in a cache nor in an earlier batch). */
  missing: string[];
  embedding: Promise<unknown>;
  windows: number;
}

/** A note's passages without vectors, in order, taken by batches a few at a time. */
interface NoteWork {
  path: string;
  items: { record: StoreRecord; embedText: string; hash: string; label: string }[];
  /** The next item to take. */
  next: number;
  /** The note's windows with vectors or taken so far, against its window budget. */
  used: number;
  /** Whether a passage of it was left past the budget (warned of once). */
  truncated?: boolean;
}

/** Where the dense phase is: the pending notes it reads next, and what it did so far. */
interface DenseState {
  /** The notes with pending passages in the phase's order (see {@link denseOrder}), read once at its start. */
  queue: string[] | undefined;
  /** The next note of `queue` to take. */
  cursor: number;
  /** The note being taken, when a batch filled up before its last passage. */
  note?: NoteWork;
  /** One note's windows embedded at most (see `resolveNoteWindows`). */
  noteWindows: number;
  exhausted: boolean;
  progress: DenseProgress;
  /** Windows read so far (embedded or found), and the passages they are of, for firming up the estimate. */
  read: number;
  chunksRead: number;
  /** Windows embedded by the model so far, as it reports them, and windows read that needed no model. */
  embedded: number;
  found: number;
  /** Reports windows given vectors so far, for the progress line (ahead of what is committed). */
  report: () => void;
  /** Vectors of the batches in flight, by window hash: a later batch waits for them instead of embedding again. */
  inflight: VectorMap;
  /** The vault's notes as the run's walk found them, by path. */
  files: Map<string, VaultFile>;
}

/**
 * The dense phase: embeds the windows of every passage the index holds without vectors (this
 * run's, and any an interrupted run left), batch by batch, reading each note again from disk (the
 * text the model reads is not stored). One batch is embedded while the next is read, so the model's
 * threads never wait on this one; each batch is stored in one transaction, with the phase's
 * progress beside it, so a search or `status` in another process can say how far it is. A note
 * changed since the keyword phase has other passages now: its old ones are left for the next pass
 * (see indexInto), which stores its new text first.
 *
 * @example
 * ```ts
 * await keywordPhase(run);
 * await densePhase(run); // every passage has its vectors
 * ```
 */
export async function densePhase(run: Run): Promise<void> {
  const { store, opts, summary } = run;
  const coverage = await store.vectorCoverage();
  const pendingChunks = coverage.chunks - coverage.withVectors;
  if (!pendingChunks) {
    if (await store.denseProgress()) await store.setDenseProgress(undefined);
    return;
  }
  // the keyword phase cut some passages into windows (those a cache might have held); the rest are
  // cut as the phase reads them, estimated until then at the windows per passage seen so far
  const ratio = run.planned.chunks ? run.planned.windows / run.planned.chunks : 1;
  const estimate = Math.round(run.planned.windows + Math.max(0, pendingChunks - run.planned.chunks) * ratio);
  const now = new Date().toISOString();
  const state: DenseState = {
    queue: undefined,
    cursor: 0,
    exhausted: false,
    progress: {
      phase: "dense",
      windows: Math.max(1, estimate),
      done: 0,
      started: now,
      updated: now,
      ...(run.denseFirst.length ? { first: run.denseFirst } : {}),
    },
    read: 0,
    chunksRead: 0,
    embedded: 0,
    found: 0,
    report: () =>
      opts.onProgress?.(
        "embed",
        Math.min(state.found + state.embedded, state.progress.windows),
        state.progress.windows,
        estimating(),
      ),
    inflight: new Map(),
    files: new Map(run.files.map((f) => [f.path, f])),
    noteWindows: resolveNoteWindows(opts.noteWindows),
  };
  const estimating = (): boolean => !state.exhausted && pendingChunks > run.planned.chunks;
  // the estimate firms up as passages are read: windows read, and the rest at the rate seen so far
  const reestimate = () => {
    if (!estimating() || !state.chunksRead) return;
    const left = Math.max(0, pendingChunks - state.chunksRead);
    state.progress.windows = Math.max(
      state.progress.done + 1,
      Math.round(state.read + (left * state.read) / state.chunksRead),
    );
  };
  state.progress.estimated = estimating();
  await store.setDenseProgress(state.progress);
  opts.onProgress?.("embed", 0, state.progress.windows, estimating());
  // passages with vectors of all passages: the figures `status` gives, from the same counts
  opts.onProgress?.("saved", coverage.withVectors, coverage.chunks);
  const commitSeconds = opts.commitSeconds ?? 5;
  // at least 64 windows: the bundled model runs such batches on its worker threads, which leaves
  // this thread free to report progress and to take Ctrl-C
  const minBudget = 64;
  let budget = minBudget;
  let saved = 0;
  let next: Promise<DenseBatch> | undefined = readDenseBatch(run, state, budget);
  let lastCommit = performance.now();
  for (let i = 0; next; i++) {
    const cur = await next;
    if (!cur.pending.length && !cur.skipped.length) break;
    // the first batch is embedded alone: a model that cannot run fails before more notes are read
    if (i === 0) await cur.embedding;
    throwIfStopped(
      run,
      `indexing stopped: the keyword index is complete, and ${state.progress.done} of ${state.progress.windows} windows have vectors`,
    );
    next = readDenseBatch(run, state, budget);
    next.catch(() => {}); // awaited (and thrown) on the next turn
    await cur.embedding;
    const items = await Promise.all(
      cur.pending.map(async (p) => ({
        id: p.record.id,
        windows: await Promise.all(p.plan.map(async (w, k) => ({ hash: w.hash, vector: await p.vectors[k] }))),
      })),
    );
    for (const r of cur.skipped) items.push({ id: r.id, windows: [skippedWindow()] });
    state.progress = {
      ...state.progress,
      done: state.progress.done + cur.windows,
      updated: new Date().toISOString(),
    };
    const after = await next;
    if (state.exhausted && !after.pending.length && !after.skipped.length)
      state.progress = { ...state.progress, windows: state.progress.done, finished: true };
    else {
      reestimate();
      state.progress.windows = Math.max(state.progress.windows, state.progress.done + 1);
      state.progress.estimated = estimating();
    }
    saved += await store.setVectors(items, state.progress);
    await run.warnings?.save();
    // the batch's vectors are in the store's cache now
    for (const h of cur.missing) state.inflight.delete(h);
    state.report();
    opts.onProgress?.("saved", coverage.withVectors + saved, coverage.chunks);
    const nowMs = performance.now();
    const took = Math.max(0.05, (nowMs - lastCommit) / 1000);
    lastCommit = nowMs;
    if (cur.windows)
      budget = Math.max(minBudget, Math.min(4096, Math.round((cur.windows * commitSeconds) / took), budget * 4));
  }
  const left = await store.vectorCoverage();
  summary.pending = left.chunks - left.withVectors;
  // every passage has its vectors: the record of a phase in progress goes
  if (!summary.pending) await store.setDenseProgress(undefined);
}

/**
 * The next note with pending passages: the phase reads them all from the store once and takes them
 * in {@link denseOrder}, so the notes people are most likely to search get vectors first.
 */
async function nextPath(run: Run, state: DenseState): Promise<string | undefined> {
  if (!state.queue) {
    const mtime = (p: string) => state.files.get(p)?.mtime;
    state.queue = denseOrder(await pendingPaths(run.store), mtime, run.denseFirst);
  }
  const path = state.queue[state.cursor++];
  if (path === undefined) state.exhausted = true;
  return path;
}

/** The next note with passages to take, read and cut: the one a batch left half taken, else the next pending. */
async function nextNote(run: Run, state: DenseState): Promise<NoteWork | undefined> {
  while (!state.note || state.note.next >= state.note.items.length) {
    const path = await nextPath(run, state);
    if (path === undefined) return undefined;
    state.note = await noteWork(run, state.files.get(path));
  }
  return state.note;
}

/**
 * Reads the notes of the next pending passages, up to `budget` windows, plans their windows, finds
 * those a cache or an earlier batch has, and starts the model on the rest. A note's passages are
 * taken a few at a time, so a note of any size fills batches of about `budget` windows; those past
 * the note's window budget are given {@link skippedWindow} (searched by keyword only).
 */
async function readDenseBatch(run: Run, state: DenseState, budget: number): Promise<DenseBatch> {
  const pending: Pending[] = [];
  const skipped: StoreRecord[] = [];
  let windows = 0;
  for (let work = await nextNote(run, state); work && windows < budget; work = await nextNote(run, state)) {
    const item = work.items[work.next++];
    const plan = work.used < state.noteWindows ? planWindows(run, item.embedText, item.hash) : [];
    if (!plan.length || work.used + plan.length > state.noteWindows) {
      if (!work.truncated) truncated(run, work, state.noteWindows);
      work.truncated = true;
      work.used = state.noteWindows;
      skipped.push(item.record);
      continue;
    }
    work.used += plan.length;
    pending.push({ record: item.record, plan, label: item.label });
    windows += plan.length;
  }
  const known: VectorMap = new Map(state.inflight);
  for (const p of pending) for (const w of p.plan) if (run.carry.has(w.hash)) known.set(w.hash, run.carry.get(w.hash)!);
  const missing = await findVectors(run, pending, known);
  windows = pending.reduce((n, p) => n + p.plan.length, 0);
  state.read += windows;
  state.chunksRead += pending.length + skipped.length;
  let embedding: Promise<unknown> = Promise.resolve();
  if (missing.size) {
    const entries = [...missing];
    let reported = 0;
    const made = run.embedder.embedDocuments(
      entries.map(([, m]) => m.text),
      (d) => {
        state.embedded += d - reported;
        reported = d;
        state.report();
      },
      entries.map(([, m]) => m.label),
    );
    embedding = made;
    made.catch(() => {}); // awaited (and thrown) when this batch is stored
    entries.forEach(([h], k) => {
      const one = made.then((v) => v[k]);
      one.catch(() => {}); // a failure is reported once, by the batch that embeds it
      known.set(h, one);
      state.inflight.set(h, one);
    });
    run.summary.embedded += entries.length;
  }
  run.summary.cached += windows - missing.size;
  state.found += windows - missing.size;
  const withVectors = pending.map((p) => ({
    ...p,
    vectors: p.plan.map((w) => Promise.resolve(known.get(w.hash)!)),
  }));
  for (const p of pending) for (const w of p.plan) run.carry.delete(w.hash);
  return { pending: withVectors, skipped, missing: [...missing.keys()], embedding, windows };
}

/** Warns that a note has more windows than the budget: the model reads it up to there. */
function truncated(run: Run, work: NoteWork, noteWindows: number): void {
  const shown = work.path.length > 200 ? `${work.path.slice(0, 200)}…` : work.path;
  run.log.warn(
    "note_truncated",
    `vault-rag: "${shown}" has more windows for the model than one note's budget (${noteWindows}): its first ${noteWindows} are embedded, and its other passages are found by keyword search only`,
    { path: work.path, windows: noteWindows },
  );
}

/**
 * A note's passages that have no vectors, as the note on disk cuts them now, in order: a passage of
 * the same id reads the same text (the id holds its text's hash). A note that is gone, unreadable or
 * cut otherwise now gives none: the next pass indexes it again. Their windows are cut as a batch
 * takes them (cutting tokenizes: a 20 MB note's take 20 s).
 */
async function noteWork(run: Run, file: VaultFile | undefined): Promise<NoteWork | undefined> {
  if (!file) return undefined;
  const path = file.path;
  const stored = await run.store.get({ path });
  const without = await run.store.withoutVectors(stored.map((r) => r.id));
  if (!without.size) return undefined;
  let chunks: Chunk[] | undefined;
  try {
    chunks = await passagesNow(run, file);
  } catch {
    return undefined;
  }
  if (!chunks) return undefined;
  // the windows its passages with vectors hold count against the note's budget (a stopped run's)
  let used = 0;
  if (without.size < stored.length)
    for (const r of await run.store.get({ path, includeVectors: true }))
      used += r.windows.filter((w) => !isSkippedWindow(w)).length;
  const byId = new Map<string, StoreRecord>(stored.map((r) => [r.id, r]));
  const items = chunks
    .filter((c) => without.has(c.id) && byId.has(c.id))
    .map((c) => ({
      record: byId.get(c.id)!,
      embedText: c.embedText,
      hash: c.meta.hash,
      label: `"${path}" (${c.meta.section})`,
    }));
  return { path, items, next: 0, used };
}

/**
 * A file's passages as it cuts them now: a note read again, an attachment as the keyword phase cut it
 * (read again only when that was another run's: a PDF is not read twice in one run).
 */
async function passagesNow(run: Run, file: VaultFile): Promise<Chunk[] | undefined> {
  if (fileTypeOf(file.path) !== "note") {
    const kept = run.attachmentChunks.get(file.path);
    run.attachmentChunks.delete(file.path);
    return kept ?? (await readAttachmentFile(file, silentLogger, { ...run.opts, ...run.reading })).chunks;
  }
  const { note } = readVaultFile(file, silentLogger, run.reading); // warned of by the keyword phase
  return note ? chunkNote(note, run.chunkOptions) : undefined;
}
