import cliProgress from "cli-progress";

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

/** What the indexing bar shows, as the indexer reports it. */
export interface IndexWork {
  notesDone: number;
  notesTotal: number;
  embedded: number;
  toEmbed: number;
  saved: number;
  toSave: number;
  /** The totals are first guesses, from a few notes: the indexer's sample of the notes is not in yet. */
  estimating?: boolean;
}

const num = (n: number) => n.toLocaleString("en-US");
/** A duration as an ETA shows it, rounded before it is split (119.6 s is "2m00s", not "1m60s"). */
export const secs = (x: number): string => {
  const s = Math.max(1, Math.round(x));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
};

/**
 * One line of indexing progress, measured in the work that takes the time: windows embedded (the
 * texts the model reads), with the rate and an ETA from the embedding rate, and chunks saved.
 *
 * @example
 * ```ts
 * indexLine({ notesDone: 10, notesTotal: 43, embedded: 40, toEmbed: 113, saved: 30, toSave: 76 }, 4, 30);
 * // "indexing ██████████░░░░░░░░░░░░░░░░░░░░  40/~113 windows · 10.0/s · ETA 8s · 30 chunks saved"
 * indexLine({ notesDone: 2, notesTotal: 43, embedded: 40, toEmbed: 900, saved: 0, toSave: 0, estimating: true }, 4, 30);
 * // "indexing ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░  40/… windows · 10.0/s · estimating… · 0 chunks saved"
 * ```
 */
export function indexLine(w: IndexWork, seconds: number, columns = 100): string {
  if (!w.toEmbed && !w.notesDone)
    return w.notesTotal ? `indexing: reading ${num(w.notesTotal)} notes…` : "indexing: finding notes…";
  if (!w.toEmbed)
    return `indexing: ${num(w.notesDone)}/${num(w.notesTotal)} notes · ${num(w.saved)} chunks saved (nothing to embed)`;
  const rate = w.embedded / Math.max(0.001, seconds);
  // no total nor ETA from the first few notes alone: one long note among them can double it
  if (w.estimating && w.notesDone < w.notesTotal) {
    const text = `${num(w.embedded)}/… windows · ${rate.toFixed(1)}/s · ${w.embedded ? "estimating…" : "loading the model…"} · ${num(w.saved)} chunks saved`;
    const width = Math.max(5, Math.min(30, columns - text.length - 12));
    return `indexing ${"░".repeat(width)}  ${text}`;
  }
  const eta = w.embedded ? `ETA ${secs((w.toEmbed - w.embedded) / Math.max(rate, 0.001))}` : "loading the model…";
  const about = w.notesDone < w.notesTotal ? "~" : "";
  const text = `${num(w.embedded)}/${about}${num(w.toEmbed)} windows · ${rate.toFixed(1)}/s · ${eta} · ${num(w.saved)} chunks saved`;
  const width = Math.max(5, Math.min(30, columns - text.length - 12));
  const fill = Math.round(Math.min(1, w.embedded / w.toEmbed) * width);
  return `indexing ${"█".repeat(fill)}${"░".repeat(width - fill)}  ${text}`;
}

/**
 * The indexing bar: on a terminal one line redrawn in place four times a second from the start (the
 * cursor hidden until {@link IndexBar.stop}); elsewhere a plain line every 5 s. Nothing else may
 * write to the stream while it runs: warnings are collected and printed after it stops.
 */
export interface IndexBar {
  set(phase: "scan" | "index" | "embed" | "saved", done: number, total: number, estimating?: boolean): void;
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
  let embedStart = 0;
  const set = (phase: string, done: number, total: number, estimating?: boolean) => {
    if (phase === "scan") work.notesTotal = total;
    else if (phase === "index") [work.notesDone, work.notesTotal] = [done, total];
    else if (phase === "embed") {
      if (!embedStart && total) embedStart = Date.now();
      [work.embedded, work.toEmbed, work.estimating] = [done, total, estimating];
      if (!first && done) first = { at: Date.now(), embedded: done };
    } else if (phase === "saved") [work.saved, work.toSave] = [done, total];
  };
  // the rate runs from the first windows done (model loading is not embedding), once that is a second old
  let first: { at: number; embedded: number } | undefined;
  const rateNow = () => {
    const now = Date.now();
    if (first && now - first.at > 1000 && work.embedded > first.embedded)
      return (work.embedded - first.embedded) / ((now - first.at) / 1000);
    return work.embedded / Math.max(0.001, (now - (embedStart || t0)) / 1000);
  };
  // indexLine divides by seconds: the time that gives the rate above
  const seconds = () => work.embedded / Math.max(1e-9, rateNow());
  if (!enabled) return { set, stop() {}, work };
  let stopped = false;
  if (stream.isTTY) {
    const draw = () => {
      const cols = stream.columns || 100;
      stream.write(`\r\x1b[2K${indexLine(work, seconds(), cols).slice(0, cols - 1)}`);
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
  // off a terminal (a pipe, a log file): a whole line every 5 s, from finding notes and loading the
  // model to the last window, so a long run is never silent for longer and lines never mix
  t0 = Date.now();
  const timer = setInterval(
    () => stream.write(indexLine(work, seconds()).replace(/^indexing [█░]+ {2}/, "indexing: ") + "\n"),
    5000,
  );
  timer.unref();
  return {
    set,
    work,
    stop() {
      clearInterval(timer);
    },
  };
}
