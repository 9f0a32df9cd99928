import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { workerUrl } from "../../worker-url.js";
import { loadLanguageDetector, STEMMED_LANGUAGES } from "../language.js";
import type { StoreRecord } from "../types.js";
import { detectorPassageCount, passageLanguage, primePassageLanguages, type ToldLanguage } from "./fts-text.js";

/** A passage as {@link passageLanguage} reads it. */
export interface LanguagePassage {
  title: string;
  section: string;
  text: string;
}

/** What the thread is sent for a batch: its passages, and where it claims them and writes their languages. */
export interface LanguageJob {
  /** Each passage's title, section and text in turn, joined (one string crosses to the thread at a small part of many's cost). */
  joined: string;
  /** Where each of them begins in `joined`, and its end. */
  starts: Int32Array;
  /** Int32 at 0: the next passage to claim; then a byte a passage, {@link encodeLanguage}'s (0: not told yet). */
  shared: SharedArrayBuffer;
}

/** Passages the threads claim at a time: few enough that the last one claimed ends soon after the other thread's. */
export const CLAIM = 16;

/** A language as the thread writes it: 1 none, 2 + its place in {@link STEMMED_LANGUAGES}, 255 one not listed there. */
export function encodeLanguage(lang: string | undefined): number {
  if (lang === undefined) return 1;
  const i = STEMMED_LANGUAGES.indexOf(lang);
  return i < 0 ? 255 : 2 + i;
}

/**
 * Passages a batch is expected to give to the language detector before its passages' languages
 * are told on a thread of its own: fewer take less time than the thread takes to start (about a
 * third of a second, most of it loading the detector).
 */
export const LANGUAGE_THREAD_PASSAGES = 400;

/** Language threads started in this process, and those still running: a run ends its own (tests count them). */
export const languageThreads = { started: 0, running: 0 };

/**
 * The passages of records, as {@link PassageLanguages} takes them.
 *
 * @example
 * ```ts
 * languages.add(passagesOf(records));
 * ```
 */
export function passagesOf(records: readonly Pick<StoreRecord, "meta" | "text">[]): LanguagePassage[] {
  return records.map((r) => ({ title: r.meta.title, section: r.meta.section, text: r.text }));
}

/** Passages of a batch sent to the thread at a time as they are read: it tells them while the rest are read. */
const SEND = 256;

/** Passages sent to the thread, with the counter and bytes both threads share ({@link LanguageJob}). */
interface Part {
  passages: readonly LanguagePassage[];
  next: Int32Array;
  told: Uint8Array;
  langs: (string | undefined)[];
  mine: Uint8Array;
}

function partOf(passages: readonly LanguagePassage[]): Part {
  const n = passages.length;
  const shared = new SharedArrayBuffer(4 + n);
  return {
    passages,
    next: new Int32Array(shared, 0, 1),
    told: new Uint8Array(shared, 4, n),
    langs: new Array<string | undefined>(n),
    mine: new Uint8Array(n),
  };
}

/**
 * Tells the languages of a run's batches of passages ahead of their writes, the keyword index's
 * language of each as {@link passageLanguage} gives it. Once a batch is expected to send at least
 * `minPassages` to the detector, a second thread tells them: its passages are sent to it as they
 * are read ({@link add}), and {@link prime}, before the write, tells on the calling thread those
 * the thread has not reached (both claim passages in turn). The answers are the same function's on
 * the same detector, so the keyword index is the same. The run calls {@link close} when it ends,
 * however it ends: the thread is then stopped.
 *
 * @example
 * ```ts
 * const languages = new PassageLanguages();
 * try {
 *   languages.add(passages); // as they are read
 *   await languages.prime(passages);
 *   store.write(batch);
 * } finally {
 *   await languages.close();
 * }
 * ```
 */
export class PassageLanguages {
  private worker: Worker | undefined;
  /** No thread could start, or it stopped: this run tells every language on the calling thread. */
  private failed = false;
  private ready = false;
  private readyWaiters: ((ok: boolean) => void)[] = [];
  /** Passages this thread read, and how many went to the detector: the share a batch is expected to send. */
  private read = 0;
  private detected = 0;
  /** The batch's passages sent to the thread, those not sent, and how many were added. */
  private sent: Part[] = [];
  private unsent: LanguagePassage[] = [];
  private added = 0;
  /** Passages of the last {@link prime} told by the second thread (tests read it). */
  offThread = 0;

  constructor(private readonly minPassages = LANGUAGE_THREAD_PASSAGES) {}

  /**
   * Passages of the batch being read, in the order it will write them: sent to the thread a few
   * hundred at a time once the batch is expected to send `minPassages` to the detector.
   */
  add(passages: readonly LanguagePassage[]): void {
    for (const p of passages) this.unsent.push(p);
    this.added += passages.length;
    if (this.unsent.length >= SEND && this.worth()) this.send();
  }

  /** Whether the batch read so far is expected to send `minPassages` to the detector, and a thread runs for it. */
  private worth(): boolean {
    const expected = this.read ? (this.added * this.detected) / this.read : 0;
    return expected >= this.minPassages && this.start();
  }

  private send(): void {
    const passages = this.unsent;
    this.unsent = [];
    const n = passages.length;
    const parts: string[] = [];
    const starts = new Int32Array(3 * n + 1);
    let at = 0;
    for (const p of passages)
      for (const field of [p.title, p.section, p.text]) {
        starts[parts.length] = at;
        parts.push(field);
        at += field.length;
      }
    starts[3 * n] = at;
    const part = partOf(passages);
    const job: LanguageJob = { joined: parts.join(""), starts, shared: part.next.buffer as SharedArrayBuffer };
    this.worker!.postMessage(job, [starts.buffer]);
    this.sent.push(part);
  }

  /**
   * Tells the languages of the batch about to be written, the passages {@link add}ed since the last
   * call (or `passages`, when none were), for its write ({@link primePassageLanguages}): its
   * `passageLanguage` answers from them. Those sent to the thread it has told; the rest are told
   * here (and on the thread, which shares them).
   */
  async prime(passages: readonly LanguagePassage[] = []): Promise<void> {
    await loadLanguageDetector();
    primePassageLanguages(undefined);
    if (!this.added) this.add(passages);
    if (this.unsent.length && this.worth()) this.send();
    const parts = [...this.sent, ...(this.unsent.length ? [partOf(this.unsent)] : [])];
    [this.sent, this.unsent, this.added] = [[], [], 0];
    const before = detectorPassageCount();
    let read = 0;
    // the thread reads its parts in turn: this one the last first
    for (const part of [...parts].reverse()) {
      const { passages: ps, next, langs, mine } = part;
      for (let i = Atomics.add(next, 0, CLAIM); i < ps.length; i = Atomics.add(next, 0, CLAIM))
        for (let j = i; j < Math.min(ps.length, i + CLAIM); j++) {
          langs[j] = passageLanguage(ps[j].title, ps[j].section, ps[j].text);
          mine[j] = 1;
          read++;
        }
    }
    // the thread's, and those it claimed and has not told yet (told here: the same answer)
    let offThread = 0;
    const told: ToldLanguage[] = [];
    for (const { passages: ps, told: codes, langs, mine } of parts)
      for (let j = 0; j < ps.length; j++) {
        const code = mine[j] ? 0 : Atomics.load(codes, j);
        if (code === 1 || (code >= 2 && code < 2 + STEMMED_LANGUAGES.length)) {
          langs[j] = code === 1 ? undefined : STEMMED_LANGUAGES[code - 2];
          offThread++;
        } else if (!mine[j]) {
          langs[j] = passageLanguage(ps[j].title, ps[j].section, ps[j].text);
          read++;
        }
        told.push({ ...ps[j], lang: langs[j] });
      }
    this.read += read;
    this.detected += detectorPassageCount() - before;
    this.offThread = offThread;
    // a passage the write does not find there in turn it tells itself
    primePassageLanguages(told);
  }

  /** Starts the thread unless it runs or could not; whether it runs. */
  private start(): boolean {
    if (this.worker) return true;
    if (this.failed) return false;
    if (availableParallelism() < 2) {
      this.failed = true; // one core: the thread would only take turns with this one
      return false;
    }
    let w: Worker;
    try {
      w = new Worker(workerUrl(import.meta.url, "language-worker"));
    } catch {
      this.failed = true;
      return false;
    }
    languageThreads.started++;
    languageThreads.running++;
    w.unref(); // never waited for: the calling thread tells what it has not told
    w.on("message", (m: { ready?: boolean }) => {
      if (!m.ready) return;
      this.ready = true;
      this.readyWaiters.splice(0).forEach((r) => r(true));
    });
    w.on("error", () => {}); // its passages are told by the calling thread
    w.on("exit", () => {
      languageThreads.running--;
      if (this.worker === w) {
        this.worker = undefined;
        this.failed = true;
      }
      this.readyWaiters.splice(0).forEach((r) => r(false));
    });
    this.worker = w;
    return true;
  }

  /**
   * Starts the thread now and resolves once it can tell languages (false: it could not start),
   * whatever the batches: tests make it read a batch's passages for certain.
   *
   * @example
   * ```ts
   * await languages.started(); // true
   * ```
   */
  started(): Promise<boolean> {
    if (!this.start()) return Promise.resolve(false);
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Stops the thread, if one runs, and forgets the last batch's languages. */
  async close(): Promise<void> {
    primePassageLanguages(undefined);
    [this.sent, this.unsent, this.added] = [[], [], 0];
    const w = this.worker;
    this.worker = undefined;
    this.failed = true;
    if (w) await w.terminate();
  }
}
