import { createRequire } from "node:module";
import os from "node:os";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { VaultRagError } from "../../errors.js";

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
 * A small pool of worker threads running the bundled model, one model per thread (the model's
 * WebAssembly runtime is single-threaded). Workers start on demand: a query starts one, a large
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
    const fromSource = import.meta.url.endsWith(".ts");
    const url = fromSource
      ? new URL(
          `data:text/javascript,${encodeURIComponent(
            `import { register } from ${JSON.stringify(
              pathToFileURL(
                createRequire(import.meta.url)
                  .resolve("tsx/esm/api")
                  .replace(/\.cjs$/, ".mjs"),
              ).href,
            )}; register(); await import(${JSON.stringify(new URL("./worker.ts", import.meta.url).href)});`,
          )}`,
        )
      : new URL("./worker.js", import.meta.url);
    this.url = url;
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

/** Number of embedding threads: `VAULT_RAG_THREADS`, else the number of cores (at most 4). */
export function threadCount(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VAULT_RAG_THREADS?.trim();
  if (raw) {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN; // not 0x4 or 1e1
    if (!Number.isInteger(n) || n < 0 || n > 64)
      throw new VaultRagError(
        "usage",
        `vault-rag: VAULT_RAG_THREADS must be a whole number from 0 to 64 (0 embeds on the main thread), got "${raw}" — set it so, or unset it for one thread per core`,
      );
    return n;
  }
  return Math.min(4, Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
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

/** The process-wide pool, or `undefined` when threads are off (`VAULT_RAG_THREADS=0` or one core). */
export function sharedPool(): UseLitePool | undefined {
  const n = threadCount();
  if (n < 2) return undefined;
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
  if (threadCount() < 2) return undefined;
  questions ??= new UseLitePool(1);
  return questions;
}
