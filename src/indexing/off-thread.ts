import path from "node:path";
import { Worker } from "node:worker_threads";
import { VaultRagError, type VaultRagErrorCode } from "../errors.js";
import { workerUrl } from "../worker-url.js";
import type { NoteEntry } from "../store/index.js";
import { exactNotePath, linkTargets, readNoteText, walkVault } from "../vault/index.js";
import { readSettings } from "../settings.js";
import { stampOf, staleInVault } from "./stale.js";

/**
 * What the thread does, on a walk of `root` begun after `since` (ms since the epoch, when the job
 * was sent): find the notes that any of `names` can mean by the wikilink rules (with none, every
 * note's path, for the closest names an error gives), or count the notes changed since they were
 * indexed.
 */
export type OffThreadJob =
  | { kind: "find"; root: string; since: number; names: string[] }
  | { kind: "stale"; root: string; since: number; known: KnownNotes };

/** The notes an index holds, as the thread takes them: their paths, and each one's mtime and size in turn. */
export interface KnownNotes {
  paths: string[];
  stats: Float64Array;
}

/**
 * The notes an index holds, by path, from {@link KnownNotes}.
 *
 * @example
 * ```ts
 * knownMap({ paths: ["a.md"], stats: Float64Array.of(1767225600, 120) }).get("a.md"); // { mtime: 1767225600, size: 120 }
 * ```
 */
export function knownMap(known: KnownNotes): Map<string, Pick<NoteEntry, "mtime" | "size">> {
  return new Map(known.paths.map((p, i) => [p, { mtime: known.stats[2 * i], size: known.stats[2 * i + 1] }]));
}

interface Pending {
  job: OffThreadJob;
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
}

/** The one thread of the process for these jobs, started at the first; idle, it does not keep the process alive. */
let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

/** Runs a job on this thread instead (no worker could start, or it stopped): the same answer, with the event loop held. */
function runHere({ job, resolve, reject }: Pending): void {
  try {
    if (job.kind === "stale") return resolve(staleInVault(job.root, knownMap(job.known)));
    const all = walkVault(job.root).map((f) => f.path);
    const fits = [...new Set(job.names.flatMap((n) => linkTargets(all, n)))];
    resolve(fits.length ? { fits } : { fits, all });
  } catch (err) {
    reject(err as Error);
  }
}

function startWorker(): Worker {
  const w = new Worker(workerUrl(import.meta.url, "off-thread-worker"));
  w.on("message", (m: { id: number; result?: unknown; error?: { message: string; code?: VaultRagErrorCode } }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (!pending.size) w.unref();
    if (!m.error) return p.resolve(m.result);
    p.reject(m.error.code ? new VaultRagError(m.error.code, m.error.message) : new Error(m.error.message));
  });
  w.on("error", () => {}); // its jobs are run here when it exits
  w.on("exit", () => {
    if (worker === w) worker = undefined;
    const left = [...pending.values()];
    pending.clear();
    left.forEach(runHere);
  });
  w.unref();
  return w;
}

/** Sends a job to the thread (started at the first job), in the order of sending. */
function post<T>(job: OffThreadJob): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const p: Pending = { job, resolve: resolve as (r: unknown) => void, reject };
    try {
      worker ??= startWorker();
    } catch {
      return runHere(p);
    }
    const id = nextId++;
    pending.set(id, p);
    worker.ref(); // a caller awaits it: the process must not end first
    worker.postMessage({ id, job }, job.kind === "stale" ? [job.known.stats.buffer as ArrayBuffer] : []);
  });
}

/**
 * Whether the thread has work: a count of changed notes asked now would wait for it to end first.
 *
 * @example
 * ```ts
 * offThreadBusy(); // false
 * ```
 */
export function offThreadBusy(): boolean {
  return pending.size > 0;
}

/**
 * `staleInVault` (how many notes changed since they were indexed) on a thread of its own, so that
 * the event loop goes on answering while a large vault is walked (20,000 notes take a second or
 * more), and the files the index does not hold are read. Jobs run one at a time; one that waited
 * while the vault was walked for another shares the next walk. `known` may be a promise (the
 * store's notes, read meanwhile). Where no worker thread can run, it runs on the calling thread.
 *
 * @example
 * ```ts
 * await staleInVaultOffThread("/home/me/notes", store.notes()); // 3
 * ```
 */
export async function staleInVaultOffThread(
  root: string,
  known: Map<string, NoteEntry> | Promise<Map<string, NoteEntry>>,
): Promise<number> {
  const since = Date.now();
  const notes = await known;
  // a scanned PDF stored unread waits for the next index while the vault's settings ask for OCR
  const ocr = readSettings(root).ocr;
  // a list and numbers, which cross to the thread at a small part of a map's cost
  const paths = [...notes.keys()];
  const stats = new Float64Array(paths.length * 2);
  let i = 0;
  for (const e of notes.values()) {
    stats[i++] = stampOf(e, ocr);
    stats[i++] = e.size;
  }
  return post<number>({ kind: "stale", root: path.resolve(root), since, known: { paths, stats } });
}

/**
 * `readNoteText` without holding the event loop on a large vault: a note named by its exact path
 * is read without listing the vault (`exactNotePath`); any other name is looked up on the thread of
 * {@link staleInVaultOffThread}, in a walk begun after the call. The same note, text and errors as
 * `readNoteText`.
 *
 * @example
 * ```ts
 * (await readNoteTextOffThread("/home/me/notes", "SMARS", "Motors")).text; // "## Motors\n…"
 * ```
 */
export async function readNoteTextOffThread(
  vault: string,
  name: string,
  heading?: string,
): Promise<{ path: string; text: string }> {
  const exact = exactNotePath(vault, name);
  if (exact !== undefined) return readNoteText(vault, name, heading, [exact]);
  // the notes the name can mean, as written and as its path normalises: among them the rules find
  // what they find among all notes (a note that fits a weaker rule fits no stronger one); with none,
  // all notes, for the closest names the error gives
  const { fits, all } = await post<{ fits: string[]; all?: string[] }>({
    kind: "find",
    root: path.resolve(vault),
    since: Date.now(),
    names: [name, path.posix.normalize(name.trim().replace(/\\/g, "/"))],
  });
  return readNoteText(vault, name, heading, all ?? fits);
}
