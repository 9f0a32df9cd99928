import os from "node:os";
import { Worker } from "node:worker_threads";
import { VaultRagError } from "../../errors.js";
import { workerUrl } from "../../worker-url.js";

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
  /** Keeps the process alive until done (a warm-up does not). */
  hold: boolean;
}

/** One worker thread and the jobs it holds. */
interface Slot {
  worker: Worker;
  jobs: Map<number, Pending>;
  /** Set by an `error` event; reported when the thread exits. */
  error?: Error;
}

/**
 * A pool of worker threads running the bundled model, one model per thread (the model's
 * WebAssembly runtime is single-threaded), as many as {@link threadCount} says. Workers start on demand: a query starts one, a large
 * batch all of them. Workers are unref'd: an idle pool never keeps the process alive.
 *
 * A worker that dies (an uncaught error, running out of memory, `process.exit`, a kill) leaves the
 * pool at once: the jobs it held fail with an `embed_failed` error, and the next job starts a
 * fresh worker in its place. Kept by hand rather than piscina or tinypool: jobs are whole batches
 * with transferred results, and the pool is under 100 lines.
 */
export class UseLitePool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closing = false;
  private readonly url: URL;

  constructor(readonly size: number) {
    // built code runs worker.js; the test suite runs the TypeScript sources through tsx
    this.url = workerUrl(import.meta.url, "worker");
  }

  /** The live worker threads (for tests and diagnostics). */
  get workers(): readonly Worker[] {
    return this.slots.map((s) => s.worker);
  }

  /** Starts a worker. */
  private start(): Slot {
    const slot: Slot = { worker: new Worker(this.url), jobs: new Map() };
    slot.worker.on("message", (msg: { id: number; flat?: Float32Array; count?: number; error?: string }) => {
      const p = slot.jobs.get(msg.id);
      if (!p) return;
      slot.jobs.delete(msg.id);
      this.holdIfBusy(slot);
      if (msg.error || !msg.flat)
        return p.reject(
          new VaultRagError(
            "embed_failed",
            `vault-rag: the embedding worker failed: ${msg.error?.replace(/^vault-rag: /, "")}`,
          ),
        );
      const dims = msg.flat.length / msg.count!;
      p.resolve(Array.from({ length: msg.count! }, (_, k) => msg.flat!.subarray(k * dims, (k + 1) * dims)));
    });
    slot.worker.on("error", (err) => (slot.error = err));
    slot.worker.on("exit", (code) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const why = slot.error ? slot.error.message : `exit code ${code}`;
      for (const [, p] of slot.jobs)
        p.reject(
          new VaultRagError(
            "embed_failed",
            this.closing
              ? "vault-rag: the embedding pool was closed before this batch finished"
              : `vault-rag: an embedding worker thread stopped (${why}) before it finished — try again; VAULT_RAG_THREADS=0 embeds on the main thread instead`,
          ),
        );
      slot.jobs.clear();
    });
    this.slots.push(slot);
    return slot;
  }

  /** A worker with work to hold keeps the process alive (or a pending await would be dropped); an idle one does not. */
  private holdIfBusy(slot: Slot): void {
    if ([...slot.jobs.values()].some((j) => j.hold)) slot.worker.ref();
    else slot.worker.unref();
  }

  /**
   * Embeds one batch of token ids on an idle worker (starting one if all are busy), else the least
   * busy. `hold: false` (a warm-up) does not keep the process alive while it runs.
   */
  run(tokenIds: number[][], { hold = true }: { hold?: boolean } = {}): Promise<Float32Array[]> {
    let pick: Slot | undefined;
    for (const s of this.slots) if (!pick || s.jobs.size < pick.jobs.size) pick = s;
    if (!pick || (pick.jobs.size > 0 && this.slots.length < this.size)) pick = this.start();
    const slot = pick;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.jobs.set(id, { resolve, reject, hold });
      this.holdIfBusy(slot);
      slot.worker.postMessage({ id, tokenIds });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

let shared: UseLitePool | undefined;

/**
 * Memory one embedding thread takes (its own copy of the model and the WebAssembly runtime, with
 * the batch it embeds): about 150 MB of RSS measured per thread here, rounded up.
 */
export const THREAD_BYTES = 256 * 1024 * 1024;

/** The most threads `--threads` and `VAULT_RAG_THREADS` take. */
export const MAX_THREADS = 64;

/**
 * Reads a thread count as `--threads` or `VAULT_RAG_THREADS` gives it: a whole number from 0 to
 * {@link MAX_THREADS} (0 embeds on the main thread); anything else is a one-line usage error that
 * names where it came from.
 *
 * @example
 * ```ts
 * parseThreads("3", "--threads"); // 3
 * parseThreads("many", "VAULT_RAG_THREADS"); // throws: VAULT_RAG_THREADS must be a whole number from 0 to 64 …
 * ```
 */
export function parseThreads(raw: string, source: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN; // not 0x4 or 1e1
  if (!Number.isInteger(n) || n < 0 || n > MAX_THREADS)
    throw new VaultRagError(
      "usage",
      `vault-rag: ${source} must be a whole number from 0 to ${MAX_THREADS} (0 embeds on the main thread), got "${raw}" — give it so, or leave it out for one thread per core but one`,
    );
  return n;
}

/**
 * The default number of embedding threads: one per core the process may use, but one for the main
 * thread (which reads, tokenizes and writes), at least one, and no more than free memory holds at
 * {@link THREAD_BYTES} each.
 *
 * @example
 * ```ts
 * defaultThreads(8, 16 * 2 ** 30); // 7
 * defaultThreads(16, 1 * 2 ** 30); // 4: memory-bound
 * ```
 */
export function defaultThreads(
  cores = os.availableParallelism?.() ?? os.cpus().length,
  freeBytes = os.freemem(),
): number {
  const byMemory = Math.max(1, Math.floor(freeBytes / THREAD_BYTES));
  return Math.max(1, Math.min(cores - 1, byMemory, MAX_THREADS));
}

/** Number of embedding threads: `VAULT_RAG_THREADS` (0: none, the main thread embeds), else {@link defaultThreads}. */
export function threadCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VAULT_RAG_THREADS?.trim();
  if (raw) return parseThreads(raw, "VAULT_RAG_THREADS");
  return defaultThreads();
}

/**
 * The process-wide pool if a large call has started it (its threads hold the model), else `undefined`.
 *
 * @example
 * ```ts
 * startedPool(); // undefined until sharedPool() ran
 * ```
 */
export function startedPool(): UseLitePool | undefined {
  return shared;
}

/** The process-wide pool, or `undefined` when threads are off (`VAULT_RAG_THREADS=0`). */
export function sharedPool(): UseLitePool | undefined {
  const n = threadCount();
  if (n < 1) return undefined;
  shared ??= new UseLitePool(n);
  return shared;
}

let questions: UseLitePool | undefined;

/**
 * The process-wide thread for questions (one worker, apart from the indexing pool so a question
 * never waits behind a batch), or `undefined` when threads are off.
 *
 * @example
 * ```ts
 * const [v] = await queryPool()!.run([loadTokenizer().encode("bread baking")]);
 * ```
 */
export function queryPool(): UseLitePool | undefined {
  if (threadCount() < 1) return undefined;
  questions ??= new UseLitePool(1);
  return questions;
}
