/**
 * `BENCH_ONLY=threads`: windows per second of the bundled model at 1, 2 and every core's worth of
 * embedding threads, from one run on the same windows, and tokens per second per thread (a figure
 * to compare across machines). Each count gets a pool of its own, warmed up (every thread loads
 * the model) before it is timed; the load average is printed beside, as this machine is shared.
 *
 * With `BENCH_MODEL=transformers:<owner>/<name>` and `BENCH_MODEL_DIR=<dir>` (a folder laid out by
 * `npm run fetch-models`), the same run also times that model, int8 (q8) and fp32, at 1 and 2
 * ONNX Runtime threads, on its own windows of the same passages, and its cold load (library import
 * and session) before the first vector.
 */
import os from "node:os";
import path from "node:path";
import { chunkNote } from "../dist/chunk/index.js";
import { passageWindows, transformersEmbedder, useLiteEmbedder, windowOptions } from "../dist/embed/index.js";
import { batchesByLength, USE_LITE_MAX_TOKENS } from "../dist/embed/use-lite/embedder.js";
import { loadTokenizer } from "../dist/embed/use-lite/model.js";
import { defaultThreads, UseLitePool } from "../dist/embed/use-lite/pool.js";
import { readNote, walkVault } from "../dist/vault/index.js";

/** What {@link threadsBench} needs of the bench run. */
export interface ThreadsBenchContext {
  root: string;
  line: (s: string) => void;
  quick: boolean;
}

/**
 * Measures embedding throughput by thread count and prints one line per count.
 *
 * @example
 * ```ts
 * await threadsBench({ root, line: console.log, quick: false });
 * ```
 */
export async function threadsBench({ root, line, quick }: ThreadsBenchContext): Promise<void> {
  const windowing = windowOptions(useLiteEmbedder())!;
  const texts: string[] = [];
  for (const f of walkVault(path.join(root, "examples/vault"))) {
    const n = readNote(f);
    if (n) for (const c of chunkNote(n)) texts.push(...passageWindows(c.embedText, windowing));
  }
  // the example vault's windows, repeated to a few seconds' work per count
  const want = quick ? 400 : 1200;
  const windows = Array.from({ length: want }, (_, i) => texts[i % texts.length]);
  const tokenizer = loadTokenizer();
  const ids = windows.map((t) => tokenizer.encode(t).slice(0, USE_LITE_MAX_TOKENS));
  const tokens = ids.reduce((n, x) => n + x.length, 0);
  const { batches } = batchesByLength(ids);
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const counts = [...new Set([1, 2, cores])].sort((a, b) => a - b);
  line(
    `threads  ${windows.length} windows of examples/vault (${Math.round(tokens / windows.length)} tokens on average), ${cores} cores, default ${defaultThreads()} thread(s); load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  const spec = process.env.BENCH_MODEL;
  if (spec?.startsWith("transformers:"))
    await transformersThreads(root, line, quick, spec.slice("transformers:".length), process.env.BENCH_MODEL_DIR);
  for (const n of counts) {
    const pool = new UseLitePool(n);
    try {
      // every thread loads its model before the clock starts
      await Promise.all(Array.from({ length: n }, () => pool.run([ids[0]])));
      const runs: number[] = [];
      for (let r = 0; r < (quick ? 1 : 3); r++) {
        const t = performance.now();
        await Promise.all(batches.map((b) => pool.run(b)));
        runs.push((performance.now() - t) / 1000);
      }
      const s = runs.sort((a, b) => a - b)[Math.floor(runs.length / 2)];
      line(
        `threads  ${n}: ${(windows.length / s).toFixed(1)} windows/s, ${Math.round(tokens / s / n)} tokens/s per thread (median of ${runs.length}; load average ${os.loadavg()[0].toFixed(2)})`,
      );
    } finally {
      await pool.close();
    }
  }
}

/** The middle of a few timings. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Windows per second of a Transformers.js model, q8 and fp32, at 1 and 2 threads, and its cold load. */
async function transformersThreads(
  root: string,
  line: (s: string) => void,
  quick: boolean,
  model: string,
  modelDir: string | undefined,
): Promise<void> {
  const make = (dtype: string, threads: number) =>
    transformersEmbedder(model, { modelDir, offline: true, dtype, threads });
  const windowing = windowOptions(make("q8", 1));
  const texts: string[] = [];
  for (const f of walkVault(path.join(root, "examples/vault"))) {
    const n = readNote(f);
    if (n)
      for (const c of chunkNote(n)) texts.push(...(windowing ? passageWindows(c.embedText, windowing) : [c.embedText]));
  }
  const want = quick ? 100 : 300;
  const windows = Array.from({ length: want }, (_, i) => texts[i % texts.length]);
  const tokens = windowing ? windows.reduce((n, t) => n + windowing.countTokens(t), 0) : 0;
  line(
    `threads  ${model}: ${windows.length} windows of examples/vault (${Math.round(tokens / windows.length)} word pieces on average, at most ${windowing?.maxTokens ?? "?"})`,
  );
  for (const dtype of ["q8", "fp32"])
    for (const threads of [1, 2]) {
      const e = make(dtype, threads);
      const t0 = performance.now();
      await e.embedQuery("warm up");
      const loadMs = performance.now() - t0;
      const runs: number[] = [];
      for (let r = 0; r < (quick ? 1 : 3); r++) {
        const t = performance.now();
        await e.embedDocuments(windows);
        runs.push((performance.now() - t) / 1000);
      }
      line(
        `threads  ${model} ${dtype} ${threads}: ${(windows.length / median(runs)).toFixed(1)} windows/s (median of ${runs.length}); load ${Math.round(loadMs)} ms; load average ${os.loadavg()[0].toFixed(2)}`,
      );
    }
}
