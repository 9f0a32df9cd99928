import cliProgress from "cli-progress";
import { num } from "../render/numbers.js";

/** Hides the terminal cursor. */
export const HIDE_CURSOR = "\x1b[?25l";
/** Shows the terminal cursor again. */
export const SHOW_CURSOR = "\x1b[?25h";

/** A progress reporter: a bar with count, rate and ETA on a terminal; plain periodic lines otherwise. */
export function progressReporter(stream: NodeJS.WriteStream, enabled: boolean) {
  if (!enabled) return { update() {}, stop() {} };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: "indexing |{bar}| {value}/{total} notes  {rate}/s  ETA {eta_formatted}",
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const t0 = Date.now();
    return {
      update(done: number, total: number) {
        if (!started) {
          bar.start(total, 0, { rate: "0" });
          started = true;
        }
        bar.update(done, { rate: (done / Math.max(0.001, (Date.now() - t0) / 1000)).toFixed(1) });
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  const t0 = Date.now();
  return {
    update(done: number, total: number) {
      const now = Date.now();
      if (done === total || now - last > 2000) {
        last = now;
        const rate = done / Math.max(0.001, (now - t0) / 1000);
        stream.write(`indexing: ${done}/${total} notes (${rate.toFixed(1)}/s)\n`);
      }
    },
    stop() {},
  };
}

/** What the indexing bar shows, as the indexer reports it: notes in the keyword phase, then windows in the dense phase. */
export interface IndexWork {
  /** Notes stored with their keyword index (committed), of those to do. */
  notesDone: number;
  /** Notes read and chunked, of those to do: ahead of those stored. */
  notesRead?: number;
  notesTotal: number;
  /** Seconds from the start until the keyword phase was committed (every note searchable by keyword). */
  keywordReady?: number;
  /** Windows given vectors (embedded or found in a cache), of those to do, in the dense phase. */
  embedded: number;
  toEmbed: number;
  /** Passages with vectors (committed), of all passages: the index's own counts, as `status` gives them. */
  saved: number;
  toSave: number;
  /** Passages with vectors when the dense phase began. */
  savedAtStart?: number;
  /** The window total is a first guess: passages an interrupted run left are still to be read. */
  estimating?: boolean;
}

/** A duration as an ETA shows it, rounded before it is split (119.6 s is "2m00s", not "1m60s"). */
export const secs = (x: number): string => {
  const s = Math.max(1, Math.round(x));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
};

/**
 * One line of indexing progress. The keyword phase counts notes read, with their rate and an ETA;
 * the dense phase counts passages with vectors of all passages (as `status` does), with the rate
 * this run stores them at and an ETA, and says that keyword search is ready meanwhile.
 * `seconds` is the time that gives the dense rate (passages stored this run over it).
 *
 * @example
 * ```ts
 * indexLine({ notesDone: 400, notesTotal: 1871, embedded: 0, toEmbed: 0, saved: 0, toSave: 0 }, 1, 0.5);
 * // "indexing: reading notes 400/1,871 · 800/s · ETA 2s"
 * indexLine({ notesDone: 43, notesTotal: 43, keywordReady: 0.4, embedded: 40, toEmbed: 113, saved: 30, toSave: 74, savedAtStart: 0 }, 4, 4, 30);
 * // "indexing ████████░░░░░░░░░░  keyword ready · dense 30/74 passages · 7.5/s · ETA 6s"
 * ```
 */
export function indexLine(w: IndexWork, seconds: number, notesSeconds = seconds, columns = 100): string {
  if (w.keywordReady === undefined) {
    const read = Math.max(w.notesDone, w.notesRead ?? 0);
    if (!read) return w.notesTotal ? `indexing: reading notes 0/${num(w.notesTotal)}…` : "indexing: finding notes…";
    const rate = read / Math.max(0.001, notesSeconds);
    const eta = secs((w.notesTotal - read) / Math.max(rate, 0.001));
    return `indexing: reading notes ${num(read)}/${num(w.notesTotal)} · ${Math.round(rate)}/s · ETA ${eta}`;
  }
  if (!w.toEmbed) return `indexing: keyword ready · ${num(w.notesTotal)} notes (nothing to embed)`;
  const stored = w.saved - (w.savedAtStart ?? 0);
  const rate = stored / Math.max(0.001, seconds);
  // the model is at work once it reports windows, before the first passages are stored
  const eta = stored
    ? `ETA ${secs((w.toSave - w.saved) / Math.max(rate, 0.001))}`
    : w.embedded
      ? "embedding…"
      : "loading the model…";
  const text = `keyword ready · dense ${num(w.saved)}/${num(w.toSave)} passages · ${rate.toFixed(1)}/s · ${eta}`;
  const width = Math.max(5, Math.min(30, columns - text.length - 12));
  const fill = Math.round(Math.min(1, w.saved / Math.max(1, w.toSave)) * width);
  return `indexing ${"█".repeat(fill)}${"░".repeat(width - fill)}  ${text}`;
}

/** The figures of {@link summaryLine}, as an indexing run's summary gives them. */
export interface IndexFigures {
  /** Notes added and updated. */
  added: number;
  updated: number;
  /** Attachments (PDFs, Canvas boards, Word documents) added and updated, counted apart. */
  attachments?: { added: number; updated: number; unreadable?: number };
  passages: number;
  keywordSeconds: number;
  embedded: number;
  denseSeconds: number;
  pending: number;
}

/**
 * The one line that ends an indexing run's progress: what it indexed (notes, and attachments
 * apart when it read any), when keyword search was ready, and what the dense phase embedded in
 * how long.
 *
 * @example
 * ```ts
 * summaryLine({ added: 1871, updated: 0, passages: 2064, keywordSeconds: 4.1, embedded: 6321, denseSeconds: 97, pending: 0 });
 * // "indexed 1,871 notes (2,064 passages) · keyword ready in 4.1 s · dense 6,321 windows in 97 s"
 * summaryLine({ added: 43, updated: 0, attachments: { added: 3, updated: 0 }, passages: 83, keywordSeconds: 1.1, embedded: 119, denseSeconds: 20, pending: 0 });
 * // "indexed 43 notes, 3 attachments (83 passages) · keyword ready in 1.1 s · dense 119 windows in 20 s"
 * ```
 */
export function summaryLine(s: IndexFigures): string {
  const took = (x: number) => (x < 10 ? x.toFixed(1) : String(Math.round(x)));
  const notes = s.added + s.updated;
  const a = s.attachments;
  const files = a ? a.added + a.updated + (a.unreadable ?? 0) : 0;
  return (
    `indexed ${num(notes)} note${notes === 1 ? "" : "s"}${files ? `, ${num(files)} attachment${files === 1 ? "" : "s"}` : ""} (${num(s.passages)} passage${s.passages === 1 ? "" : "s"}) · keyword ready in ${took(s.keywordSeconds)} s · ` +
    (s.embedded
      ? `dense ${num(s.embedded)} window${s.embedded === 1 ? "" : "s"} in ${took(s.denseSeconds)} s`
      : "nothing to embed") +
    (s.pending ? ` · ${num(s.pending)} passages still without vectors` : "")
  );
}

/** The phases the indexer reports (its `IndexPhase`). */
export type IndexPhaseName = "scan" | "read" | "index" | "keyword" | "embed" | "saved";

/**
 * The indexing bar: on a terminal one line redrawn in place four times a second from the start (the
 * cursor hidden until {@link IndexBar.stop}); elsewhere a plain line every 5 s. Nothing else may
 * write to the stream while it runs: warnings are collected and printed after it stops.
 */
export interface IndexBar {
  set(phase: IndexPhaseName, done: number, total: number, estimating?: boolean): void;
  /** Clears the bar and shows the cursor again (safe to call twice). */
  stop(): void;
  readonly work: IndexWork;
}

/**
 * Starts the indexing bar at once, so a user sees progress within the first second.
 *
 * @example
 * ```ts
 * const bar = indexBar(process.stderr, true);
 * await indexVault(vault, db, embedder, { onProgress: bar.set });
 * bar.stop();
 * ```
 */
export function indexBar(stream: NodeJS.WriteStream, enabled: boolean): IndexBar {
  const work: IndexWork = { notesDone: 0, notesTotal: 0, embedded: 0, toEmbed: 0, saved: 0, toSave: 0 };
  let t0 = Date.now();
  let notesStart = 0;
  let embedStart = 0;
  const set = (phase: IndexPhaseName, done: number, total: number, estimating?: boolean) => {
    if (phase === "scan") [work.notesTotal, notesStart] = [total, Date.now()];
    else if (phase === "read") [work.notesRead, work.notesTotal] = [done, total];
    else if (phase === "index") [work.notesDone, work.notesTotal] = [done, total];
    else if (phase === "keyword") work.keywordReady = (Date.now() - t0) / 1000;
    else if (phase === "embed") {
      if (!embedStart) embedStart = Date.now();
      [work.embedded, work.toEmbed, work.estimating] = [done, total, estimating];
      if (!first && done) first = { at: Date.now(), saved: work.saved };
    } else if (phase === "saved") {
      work.savedAtStart ??= done;
      [work.saved, work.toSave] = [done, total];
    }
  };
  // the rate runs from the first windows done (model loading is not embedding), once that is a second old
  let first: { at: number; saved: number } | undefined;
  const stored = () => work.saved - (work.savedAtStart ?? 0);
  const rateNow = () => {
    const now = Date.now();
    if (first && now - first.at > 1000 && work.saved > first.saved)
      return (work.saved - first.saved) / ((now - first.at) / 1000);
    return stored() / Math.max(0.001, (now - (embedStart || t0)) / 1000);
  };
  // indexLine divides by seconds: the time that gives the rate above
  const seconds = () => stored() / Math.max(1e-9, rateNow());
  const notesSeconds = () => (Date.now() - (notesStart || t0)) / 1000;
  const line = (cols?: number) => indexLine(work, seconds(), notesSeconds(), cols);
  if (!enabled) return { set, stop() {}, work };
  let stopped = false;
  if (stream.isTTY) {
    const draw = () => {
      const cols = stream.columns || 100;
      stream.write(`\r\x1b[2K${line(cols).slice(0, cols - 1)}`);
    };
    stream.write(HIDE_CURSOR);
    draw();
    const timer = setInterval(draw, 250);
    timer.unref();
    const restore = () => stopped || stream.write(SHOW_CURSOR);
    process.once("exit", restore);
    return {
      set,
      work,
      stop() {
        if (stopped) return;
        clearInterval(timer);
        stream.write(`\r\x1b[2K${SHOW_CURSOR}`);
        stopped = true;
        process.off("exit", restore);
      },
    };
  }
  // off a terminal (a pipe, a log file): a whole line after 1 s, then every 5 s, from finding notes
  // to the last window, so a long run is never silent for longer and lines never mix
  t0 = Date.now();
  const print = () => stream.write(line().replace(/^indexing [█░]+ {2}/, "indexing: ") + "\n");
  let timer: NodeJS.Timeout = setTimeout(() => {
    print();
    timer = setInterval(print, 5000);
    timer.unref();
  }, 1000);
  timer.unref();
  return {
    set,
    work,
    stop() {
      clearTimeout(timer);
      clearInterval(timer);
    },
  };
}
