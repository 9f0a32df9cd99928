import { createRequire } from "node:module";
import os from "node:os";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { VaultRagError } from "../../errors.js";

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

/**
 * A small pool of worker threads running the bundled model, one model per thread (the model's
 * WebAssembly runtime is single-threaded). Workers start on demand: a query starts one, a large
 * batch all of them. Workers are unref'd: an idle pool never keeps the process alive.
 */
export class UseLitePool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private readonly busy: number[] = [];
  private readonly url: URL;

  constructor(readonly size: number) {
    // built code runs worker.js; the test suite runs the TypeScript sources through tsx
    const fromSource = import.meta.url.endsWith(".ts");
    const url = fromSource
      ? new URL(
          `data:text/javascript,${encodeURIComponent(
            `import { register } from ${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href)}; register(); await import(${JSON.stringify(new URL("./worker.ts", import.meta.url).href)});`,
          )}`,
        )
      : new URL("./worker.js", import.meta.url);
    this.url = url;
  }

  /** Starts the next worker; returns its number. */
  private start(): number {
    const i = this.workers.length;
    const w = new Worker(this.url);
    w.on("message", (msg: { id: number; flat?: Float32Array; count?: number; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      this.busy[i]--;
      if (this.pending.size === 0) this.idle();
      if (msg.error || !msg.flat) return p.reject(new VaultRagError("embed_failed", `vault-rag: the embedding worker failed: ${msg.error}`));
      const dims = msg.flat.length / msg.count!;
      p.resolve(Array.from({ length: msg.count! }, (_, k) => msg.flat!.subarray(k * dims, (k + 1) * dims)));
    });
    w.on("error", (err) => {
      for (const [, p] of this.pending) p.reject(new VaultRagError("embed_failed", `vault-rag: an embedding worker stopped: ${err.message}`));
      this.pending.clear();
      this.idle();
    });
    this.workers.push(w);
    this.busy.push(0);
    return i;
  }

  /** An idle pool must not keep the process alive; a busy one must (or a pending await would be dropped). */
  private idle(): void {
    for (const w of this.workers) w.unref();
  }

  /** Embeds one batch of token ids on an idle worker (starting one if all are busy), else the least busy. */
  run(tokenIds: number[][]): Promise<Float32Array[]> {
    let pick = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.busy[i] < this.busy[pick]) pick = i;
    if (!this.workers.length || (this.busy[pick] > 0 && this.workers.length < this.size)) pick = this.start();
    const id = this.nextId++;
    this.busy[pick]++;
    if (this.pending.size === 0) for (const w of this.workers) w.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[pick].postMessage({ id, tokenIds });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

let shared: UseLitePool | undefined;

/** Number of embedding threads: `VAULT_RAG_THREADS`, else the number of cores (at most 4). */
export function threadCount(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.VAULT_RAG_THREADS);
  if (Number.isInteger(n) && n >= 0) return n;
  return Math.min(4, Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
}

/** The process-wide pool, or `undefined` when threads are off (`VAULT_RAG_THREADS=0` or one core). */
export function sharedPool(): UseLitePool | undefined {
  const n = threadCount();
  if (n < 2) return undefined;
  shared ??= new UseLitePool(n);
  return shared;
}
