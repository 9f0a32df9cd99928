import { loadTransformersPackage } from "../embed/transformers.js";
import { VaultRagError } from "../errors.js";
import type { Reranker, RerankerOptions } from "./types.js";

/** The part of `@huggingface/transformers` a cross-encoder uses (as documented for v3/v4). */
export interface CrossEncoderModule {
  env: { allowLocalModels: boolean; allowRemoteModels: boolean; localModelPath: string; cacheDir: string | null };
  AutoTokenizer: { from_pretrained(model: string, options?: Record<string, unknown>): Promise<PairTokenizer> };
  AutoModelForSequenceClassification: {
    from_pretrained(model: string, options?: Record<string, unknown>): Promise<SequenceClassifier>;
  };
}

/** A tokenizer called on query/passage pairs, giving the model's inputs. */
export type PairTokenizer = (
  texts: string[],
  options: { text_pair: string[]; padding: boolean; truncation: boolean },
) => Record<string, unknown>;

/** A sequence-classification model: one row of logits per pair. */
export type SequenceClassifier = (
  inputs: Record<string, unknown>,
) => Promise<{ logits: { data: ArrayLike<number>; dims: readonly number[] } }>;

/** Options of {@link crossEncoderReranker}. */
export interface CrossEncoderOptions extends RerankerOptions {
  /** How the library is loaded (tests inject a stand-in; users never set this). */
  load?: () => Promise<CrossEncoderModule>;
}

/** Pairs per run of the model: the passages are sorted by length first, so a batch pads little. */
export const CROSS_ENCODER_BATCH = 16;

/**
 * A local cross-encoder through Transformers.js (`@huggingface/transformers`, which the user
 * installs; loaded on the first rerank, never before): `AutoTokenizer` and
 * `AutoModelForSequenceClassification` read the model from `--model-dir` or the Transformers.js
 * cache, and never download it. Each query/passage pair is one input (`[CLS] query [SEP] passage
 * [SEP]`, cut at the model's length), and its score is the model's logit: the only one, or for a
 * model with several labels the last minus the first (relevant minus not).
 *
 * @example
 * ```ts
 * const r = crossEncoderReranker("Xenova/ms-marco-MiniLM-L-6-v2", { modelDir: "/models" });
 * await r.rerank("how do I save power", ["Deep sleep saves power.", "Sourdough starter"]); // [7.9, -11.2]
 * ```
 */
export function crossEncoderReranker(model: string, opts: CrossEncoderOptions = {}): Reranker {
  const load = opts.load ?? (() => import("@huggingface/transformers" as string) as Promise<CrossEncoderModule>);
  const cacheDir =
    opts.cacheDir ??
    process.env.TRANSFORMERS_CACHE ??
    (process.env.HF_HOME ? `${process.env.HF_HOME}/transformers` : undefined);
  let loading: Promise<{ tokenizer: PairTokenizer; classify: SequenceClassifier }> | undefined;
  const ready = () => {
    loading ??= (async () => {
      const mod = await loadTransformersPackage(load, "rerank_failed", "a transformers: reranker");
      mod.env.allowLocalModels = true;
      if (opts.modelDir) mod.env.localModelPath = opts.modelDir;
      if (cacheDir) mod.env.cacheDir = cacheDir;
      // local files only: a search never waits for a download. The tokenizer's loader (v4.3) asks
      // for a file's metadata without the call's options, so remote models are off in `env` too
      // while the model loads (the embedder sets its own value when it loads)
      const from = { local_files_only: true, ...(cacheDir ? { cache_dir: cacheDir } : {}) };
      const remote = mod.env.allowRemoteModels;
      mod.env.allowRemoteModels = false;
      try {
        // the model first: a missing model fails there in the library's words (the tokenizer's
        // loader fails on an absent folder with a TypeError)
        const classify = await mod.AutoModelForSequenceClassification.from_pretrained(model, from);
        const tokenizer = await mod.AutoTokenizer.from_pretrained(model, from);
        return { tokenizer, classify };
      } catch (err) {
        throw loadError(model, err as Error, opts.modelDir ?? cacheDir);
      } finally {
        mod.env.allowRemoteModels = remote;
      }
    })();
    loading.catch(() => (loading = undefined));
    return loading;
  };
  return {
    id: `transformers:${model}`,
    async rerank(query, passages) {
      if (!passages.length) return [];
      const { tokenizer, classify } = await ready();
      const order = passages.map((_, i) => i).sort((a, b) => passages[a].length - passages[b].length);
      const scores = new Array<number>(passages.length);
      for (let at = 0; at < order.length; at += CROSS_ENCODER_BATCH) {
        const batch = order.slice(at, at + CROSS_ENCODER_BATCH);
        const inputs = tokenizer(
          batch.map(() => query),
          { text_pair: batch.map((i) => passages[i]), padding: true, truncation: true },
        );
        const logits = (await run(classify, inputs, model))?.logits;
        const labels = logits?.dims[1] ?? 1;
        if (!logits || logits.dims[0] !== batch.length || logits.data.length !== batch.length * labels)
          throw new VaultRagError(
            "rerank_failed",
            `vault-rag: reranker model "${model}" gave ${logits ? `logits of shape [${logits.dims.join(", ")}]` : "no logits"} for ${batch.length} pairs — it is no cross-encoder (a sequence-classification model), e.g. Xenova/ms-marco-MiniLM-L-6-v2`,
          );
        batch.forEach((p, j) => {
          const row = j * labels;
          scores[p] = labels === 1 ? logits.data[row] : logits.data[row + labels - 1] - logits.data[row];
        });
      }
      if (scores.some((s) => !Number.isFinite(s)))
        throw new VaultRagError(
          "rerank_failed",
          `vault-rag: reranker model "${model}" gave a score that is not a number`,
        );
      return scores;
    },
  };
}

/** Runs the model, its failure (an ONNX Runtime error) worded as the reranker's. */
async function run(classify: SequenceClassifier, inputs: Record<string, unknown>, model: string) {
  try {
    return await classify(inputs);
  } catch (err) {
    const msg = ((err as Error).message ?? String(err)).split("\n")[0];
    throw new VaultRagError("rerank_failed", `vault-rag: reranker model "${model}" failed to run: ${msg}`);
  }
}

/** One line that says why a reranker model could not be loaded, and what to do. */
function loadError(model: string, err: Error, where: string | undefined): VaultRagError {
  const msg = (err.message ?? String(err)).split("\n")[0];
  const place = where ? `in ${where}` : "in the Transformers.js cache";
  if (/not found locally|local_files_only|allowRemoteModels|ENOENT|Could not locate/i.test(msg))
    return new VaultRagError(
      "rerank_failed",
      `vault-rag: reranker model "${model}" is not ${place} (a search never downloads one) — copy its folder (config.json, tokenizer.json, onnx/model.onnx) to <dir>/${model} and give --model-dir <dir>`,
    );
  if (/Unsupported model type|Unrecognized|not a function/i.test(msg))
    return new VaultRagError(
      "rerank_failed",
      `vault-rag: "${model}" is no cross-encoder Transformers.js can run (${msg}) — choose a sequence-classification model, e.g. Xenova/ms-marco-MiniLM-L-6-v2`,
    );
  return new VaultRagError("rerank_failed", `vault-rag: cannot load reranker model "${model}": ${msg}`);
}
