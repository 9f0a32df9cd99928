import path from "node:path";
import { watch as chokidarWatch, type FSWatcher } from "chokidar";
import type { Embedder } from "../embed/index.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { fileTypeOf, IGNORE_FILE, SKIPPED_FOLDERS } from "../vault/index.js";
import { indexVault, type IndexOptions, type IndexSummary } from "./indexer.js";

/** Watch options; defaults in {@link WATCH_DEFAULTS}. */
export interface WatchOptions {
  /** Quiet time after the last change before a batch is indexed, in ms. */
  debounceMs?: number;
  log?: Logger;
  /** Connection options for a Chroma index. */
  store?: IndexOptions["store"];
  /** Called after each batch (and after the first full pass), with how many paths (notes, `.vault-ragignore`, removed folders) the file events named since the last one, each once. */
  onBatch?: (summary: IndexSummary, changedPaths: number) => void;
  onError?: (err: unknown) => void;
  /** Progress of each pass, as {@link IndexOptions.onProgress} reports it. */
  onProgress?: IndexOptions["onProgress"];
  /** Read scanned PDF pages by OCR, as {@link IndexOptions.ocr}. */
  ocr?: boolean;
}

export const WATCH_DEFAULTS = { debounceMs: 300 };

/**
 * One line for a watch batch (notes, and attachments apart when it changed any), as `vault-rag watch` and `serve --watch` print it (after a time).
 *
 * @example
 * ```ts
 * batchLine(summary); // "1 added, 0 updated, 0 deleted (2 windows embedded, 0 from cache) in 0.41 s"
 * // a PDF replaced: "0 added, 0 updated, 0 deleted; attachments: 0 added, 1 updated, 0 deleted (…) in 1.20 s"
 * ```
 */
export function batchLine(s: IndexSummary): string {
  const a = s.attachments;
  // attachments apart, when the batch changed any
  const files =
    a && (a.added || a.updated || a.deleted || a.unreadable)
      ? `; attachments: ${a.added} added, ${a.updated} updated, ${a.deleted} deleted${a.unreadable ? `, ${a.unreadable} unreadable` : ""}`
      : "";
  return `${s.added} added, ${s.updated} updated, ${s.deleted} deleted${files} (${s.embedded} window${s.embedded === 1 ? "" : "s"} embedded, ${s.cached} from cache) in ${s.seconds.toFixed(2)} s`;
}

/** A running watcher. */
export interface Watcher {
  /** Resolves when the index has caught up with every change seen so far. */
  idle(): Promise<void>;
  /** Stops watching; a pass under way stops after the batch it is storing (what is stored stays). */
  close(): Promise<void>;
}

/**
 * Keeps an index fresh as notes change: an incremental pass first, then a debounced incremental
 * pass after each burst of changes. Each pass diffs the vault against the index by content hash,
 * so edits re-embed only changed chunks, deletions are removed, renames re-use their vectors, and
 * editors that save through a temp file and rename converge like any other change.
 *
 * @example
 * ```ts
 * const w = await watchVault("/home/me/notes", db, useLiteEmbedder(), { onBatch: (s) => console.log(s) });
 * // ... later
 * await w.close();
 * ```
 */
export async function watchVault(
  vault: string,
  dbPath: string,
  embedder: Embedder,
  opts: WatchOptions = {},
): Promise<Watcher> {
  const o = { ...opts, debounceMs: opts.debounceMs ?? WATCH_DEFAULTS.debounceMs };
  const log = o.log ?? silentLogger;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // the paths the file events named since the last pass: an editor's save can give one file several
  const pending = new Set<string>();
  const removedDirs = new Set<string>();
  let dirty = false;
  const waiters: (() => void)[] = [];
  // close() stops a pass under way after the batch it is storing, instead of waiting out the vault
  const closing = new AbortController();

  const settle = () => {
    if (!dirty && !timer) while (waiters.length) waiters.shift()!();
  };
  // every pass reads the whole vault: a warning the last pass gave (a skipped binary file, a symlink
  // out of the vault) is not given again for each saved file, only what is new
  let warnedBefore = new Set<string>();
  const pass = async () => {
    dirty = false;
    // a folder removed with its notes is counted by theirs (in whichever order the events came);
    // one that held none counts once
    const named = [...pending];
    const emptyDirs = [...removedDirs].filter((d) => !named.some((q) => q.startsWith(d + path.sep)));
    const changed = pending.size + emptyDirs.length;
    pending.clear();
    removedDirs.clear();
    const warnedNow = new Set<string>();
    const passLog: Logger = {
      info: (m) => log.info(m),
      debug: (m) => log.debug(m),
      warn: (code, message, detail) => {
        const key = `${code}\u0000${message}`;
        warnedNow.add(key);
        if (!warnedBefore.has(key)) log.warn(code, message, detail);
      },
    };
    try {
      const summary = await indexVault(vault, dbPath, embedder, {
        log: passLog,
        store: o.store,
        onProgress: o.onProgress,
        signal: closing.signal,
        ...(o.ocr !== undefined ? { ocr: o.ocr } : {}),
      });
      warnedBefore = warnedNow;
      o.onBatch?.(summary, changed);
    } catch (err) {
      // closed during a pass: it stopped after the batch it was storing, as asked
      if (!closing.signal.aborted) o.onError?.(err);
    }
    if (dirty && !timer) schedule();
    settle();
  };
  const schedule = () => {
    if (closing.signal.aborted) return; // closed: no pass after the last
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(pass);
    }, o.debounceMs);
  };

  /** A change was seen: a pass follows, once changes stop for the debounce time. */
  const ask = () => {
    dirty = true;
    schedule();
  };
  const ignored = ignoredIn(vault);
  const watcher: FSWatcher = chokidarWatch(vault, { ignored, ignoreInitial: true, followSymlinks: false });
  const onEvent = (kind: string, p: string) => {
    if (!passesFor(p)) return;
    // `--verbose` shows each change as it is seen (and a test waits for it, not for a time)
    log.debug(`vault-rag watch: ${kind} ${path.relative(vault, p).split(path.sep).join("/")}`);
    pending.add(p);
    ask();
  };
  watcher
    .on("add", (p) => onEvent("add", p))
    .on("change", (p) => onEvent("change", p))
    .on("unlink", (p) => onEvent("unlink", p))
    .on("unlinkDir", (p) => {
      removedDirs.add(p);
      ask();
    });
  // a raw event that names a note asks for a pass too (see rawNamesNote)
  watcher.on("raw", (_event, name, details) => {
    if (rawNamesNote(ignored, name, details)) ask();
  });
  watcher.on("error", (e) => o.onError?.(e));
  await new Promise<void>((r) => watcher.once("ready", () => r()));
  // catch up only once the watcher is listening: a change made while (or right after) the catch-up
  // pass runs is then seen and indexed by the next pass, never lost between the two
  running = running.then(pass);
  return {
    idle: () =>
      new Promise<void>((resolve) => {
        waiters.push(resolve);
        void running.then(settle);
      }),
    async close() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      closing.abort();
      await watcher.close();
      await running;
      // changes seen but never passed over (closed first): nothing is left to wait for
      dirty = false;
      settle();
    },
  };
}

/** Whether a path under `vault` is left out of watching: hidden files and folders, and skipped folders. */
function ignoredIn(vault: string): (p: string) => boolean {
  return (p) => {
    const rel = path.relative(vault, p);
    if (!rel || rel.startsWith("..")) return false;
    return rel.split(path.sep).some((part) => part.startsWith(".") || SKIPPED_FOLDERS.includes(part));
  };
}

/**
 * Whether a raw file-system event (the entry's name, and the watched path it came from) names a
 * watched note or ignore file. chokidar reads a folder again when the system says it changed and
 * reports what that read shows, so a note made and removed before the read is never reported; a
 * pass (or another process) may have indexed it in between. A pass after such an event finds what
 * the vault holds.
 */
function rawNamesNote(ignored: (p: string) => boolean, name: unknown, details: unknown): boolean {
  const named = typeof name === "string" ? name : "";
  if (!passesFor(named)) return false;
  const dir = (details as { watchedPath?: string } | undefined)?.watchedPath;
  return !dir || !ignored(path.join(dir, named));
}

/** Whether a change to this file asks for a pass: a note, an attachment (PDF, Canvas, Word), or the ignore file. */
function passesFor(file: string): boolean {
  return fileTypeOf(file) !== undefined || file.endsWith(IGNORE_FILE);
}
