import path from "node:path";
import { fileURLToPath } from "node:url";
import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import type { Embedder } from "./types.js";
import { batchedEmbedder } from "./http.js";
import { modelProfile } from "./profiles.js";
import { ALLOW_REMOTE_ENV } from "./remote.js";
import { modelWindow, wordPieceTokenizer } from "./wordpiece.js";
import { threadCount } from "./use-lite/pool.js";

/** The part of `@huggingface/transformers` this provider uses (as documented for v3/v4). */
export interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; cacheDir: string | null };
  pipeline(
    task: "feature-extraction",
    model: string,
    options?: Record<string, unknown>,
  ): Promise<(texts: string[], options: { pooling: string; normalize: boolean }) => Promise<{ tolist(): number[][] }>>;
}

/** Options of the Transformers.js provider. */
export interface TransformersOptions {
  /** Never download (also `HF_HUB_OFFLINE=1` or `TRANSFORMERS_OFFLINE=1`). */
  offline?: boolean;
  /** Where downloaded models are cached (else `HF_HOME`/`TRANSFORMERS_CACHE`, else the library's default). */
  cacheDir?: string;
  /** A folder holding `<model>/config.json`, `<model>/onnx/...`, for models copied by hand. */
  modelDir?: string;
  /** ONNX weights variant: `q8` (`onnx/model_quantized.onnx`) or `fp32` (`onnx/model.onnx`); else `VAULT_RAG_DTYPE`, else the library's choice. */
  dtype?: string;
  /** Why `offline` is set: `index_model`, the model is the one an index names, and nothing on this machine allowed its download. */
  offlineBecause?: "index_model";
  /** ONNX Runtime's threads for one batch (else {@link threadCount}, at least 1). */
  threads?: number;
  log?: Logger;
  /** How the library is loaded (tests inject a stand-in; users never set this). */
  load?: () => Promise<TransformersModule>;
}

/**
 * Pooling and prefixes each model family expects (see {@link modelProfile}).
 *
 * @example
 * ```ts
 * transformersProfile("Xenova/bge-small-en-v1.5").pooling; // "cls"
 * ```
 */
export function transformersProfile(model: string): {
  pooling: "cls" | "mean";
  documentPrefix: string;
  queryPrefix: string;
} {
  const { pooling, documentPrefix, queryPrefix } = modelProfile(model);
  return { pooling, documentPrefix, queryPrefix };
}

const PACKAGE = "@huggingface/transformers";

/**
 * Loads `@huggingface/transformers` (lazily: only a `transformers:` model needs it), turning a
 * missing package into one line that says where to install it, under the caller's error code.
 *
 * @example
 * ```ts
 * const mod = await loadTransformersPackage(() => import("@huggingface/transformers"), "rerank_failed", "a transformers: reranker");
 * ```
 */
export async function loadTransformersPackage<T>(
  load: () => Promise<T>,
  code: "embed_failed" | "rerank_failed",
  who: string,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code;
    if (missing === "ERR_MODULE_NOT_FOUND" || missing === "MODULE_NOT_FOUND")
      throw new VaultRagError(code, `vault-rag: ${who} needs the ${PACKAGE} package — ${transformersInstallHint()}`);
    throw new VaultRagError(code, `vault-rag: cannot load ${PACKAGE}: ${(err as Error).message}`);
  }
}

/**
 * Where to install `@huggingface/transformers` so that this copy of vault-rag finds it. Node looks
 * for a package in the `node_modules` folders above the importing file: a global vault-rag
 * (`<prefix>/lib/node_modules/vault-rag`) finds a global install beside it; a project's vault-rag
 * finds one in that project.
 *
 * @example
 * ```ts
 * transformersInstallHint("/usr/local/lib/node_modules/vault-rag/dist/embed/transformers.js");
 * // "install it beside vault-rag with `npm install -g @huggingface/transformers --ignore-scripts` — …"
 * ```
 */
export function transformersInstallHint(from: string = fileURLToPath(import.meta.url)): string {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = from.lastIndexOf(marker);
  const script = "(the skipped script only downloads optional GPU libraries)";
  if (at < 0) return `install it with \`npm install ${PACKAGE} --ignore-scripts\` ${script}`;
  const modules = from.slice(0, at + marker.length - 1);
  if (/[\\/](lib[\\/]node_modules|npm[\\/]node_modules)$/.test(modules))
    return `install it beside vault-rag with \`npm install -g ${PACKAGE} --ignore-scripts\` — a global vault-rag finds it in ${modules} ${script}`;
  return `install it with \`npm install ${PACKAGE} --ignore-scripts\` in ${path.dirname(modules)} — vault-rag finds it in ${modules} ${script}`;
}

/**
 * Embeddings with Transformers.js (`@huggingface/transformers`, an optional dependency the user
 * installs): models from the Hugging Face cache or a local folder, with an offline switch. Loading
 * follows the library's documentation: set `env`, then `pipeline("feature-extraction", model)`,
 * then call it with `{ pooling, normalize: true }` and read `tolist()`. A model folder on this
 * machine (`modelDir` or the cache) gives the window ({@link modelWindow}) and, for WordPiece
 * tokenizers, the token counter that cuts passages into windows; batches are texts of like length;
 * ONNX Runtime runs each batch on `threads` threads.
 *
 * @example
 * ```ts
 * const e = transformersEmbedder("Xenova/bge-small-en-v1.5", { offline: true });
 * await e.embedQuery("how do I save power");
 * ```
 */
export function transformersEmbedder(model: string, opts: TransformersOptions = {}): Embedder {
  const log = opts.log ?? silentLogger;
  const profile = transformersProfile(model);
  const offline = opts.offline ?? (process.env.HF_HUB_OFFLINE === "1" || process.env.TRANSFORMERS_OFFLINE === "1");
  const cacheDir =
    opts.cacheDir ??
    process.env.TRANSFORMERS_CACHE ??
    (process.env.HF_HOME ? `${process.env.HF_HOME}/transformers` : undefined);
  const dtype = opts.dtype ?? (process.env.VAULT_RAG_DTYPE?.trim() || undefined);
  const threads = Math.max(1, opts.threads ?? threadCount());
  const load = opts.load ?? (() => import("@huggingface/transformers" as string) as Promise<TransformersModule>);
  // the model's own window and word pieces, when its folder is on this machine: passages are cut
  // into windows it reads whole ([CLS] and [SEP] take two of its tokens)
  const folder = [opts.modelDir, cacheDir]
    .filter((d): d is string => !!d)
    .map((d) => path.join(d, ...model.split("/")))
    .find((d) => modelWindow(d) !== undefined);
  const window = (folder ? modelWindow(folder) : undefined) ?? TRANSFORMERS_DEFAULT_WINDOW;
  const tokenizer = folder ? wordPieceTokenizer(folder) : undefined;
  let extractor: ReturnType<TransformersModule["pipeline"]> | undefined;

  const ready = () => {
    extractor ??= (async () => {
      const mod = await loadTransformersPackage(load, "embed_failed", "the transformers provider");
      mod.env.allowRemoteModels = !offline;
      if (opts.modelDir) {
        mod.env.allowLocalModels = true;
        mod.env.localModelPath = opts.modelDir;
      }
      if (cacheDir) mod.env.cacheDir = cacheDir;
      try {
        return await mod.pipeline("feature-extraction", model, {
          ...(dtype ? { dtype } : {}),
          session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
        });
      } catch (err) {
        throw explainLoadError(model, err as Error, offline, cacheDir, opts.modelDir, opts.offlineBecause);
      }
    })();
    extractor.catch(() => (extractor = undefined));
    return extractor;
  };

  const embedder = batchedEmbedder({
    provider: "transformers",
    model,
    maxTokens: window - 2,
    documentPrefix: profile.documentPrefix,
    queryPrefix: profile.queryPrefix,
    batch: TRANSFORMERS_BATCH,
    byLength: true,
    log,
    async embed(texts) {
      const run = await ready();
      const vs = (await run(texts, { pooling: profile.pooling, normalize: true }))
        .tolist()
        .map((v) => Float32Array.from(v));
      if (vs.some((v) => v.length === 0 || v.some((x) => !Number.isFinite(x))))
        throw new VaultRagError("embed_failed", `vault-rag: model "${model}" returned an empty or NaN vector`);
      return vs;
    },
  });
  if (!tokenizer) return embedder;
  return Object.assign(embedder, {
    countTokens: (text: string) => tokenizer.count(text),
    unknownShare: (text: string) => tokenizer.unknownShare(text),
  });
}

/** The window of a model whose folder says none (BERT's 512 positions). */
export const TRANSFORMERS_DEFAULT_WINDOW = 512;

/** Texts per call of the model: sorted by length first, so that little of a batch is padding. */
export const TRANSFORMERS_BATCH = 32;

/** One line that says why a model could not be loaded and what to do. */
export function explainLoadError(
  model: string,
  err: Error,
  offline: boolean,
  cacheDir?: string,
  modelDir?: string,
  offlineBecause?: "index_model",
): VaultRagError {
  const msg = err.message ?? String(err);
  const where = modelDir ? `in ${modelDir}` : cacheDir ? `in the cache at ${cacheDir}` : "in the Transformers.js cache";
  const missing =
    /not found locally|local_files_only|allowRemoteModels=false/i.test(msg) ||
    (offline && /not found|ENOENT/i.test(msg));
  if (missing && offlineBecause === "index_model")
    return new VaultRagError(
      "embed_failed",
      `vault-rag: model "${model}", which the index names, is not ${where}, and nothing was downloaded — set ${ALLOW_REMOTE_ENV}=transformers:${model} or give --model transformers:${model} to let it download from the Hugging Face Hub, or copy the model folder into --model-dir`,
    );
  if (
    /not found locally|local_files_only|allowRemoteModels=false/i.test(msg) ||
    (offline && /not found|ENOENT/i.test(msg))
  )
    return new VaultRagError(
      "embed_failed",
      `vault-rag: model "${model}" is not ${where} and downloads are off — run once with network access without --offline, or copy the model folder into --model-dir`,
    );
  if (/fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|network/i.test(msg))
    return new VaultRagError(
      "embed_failed",
      `vault-rag: cannot download model "${model}" from the Hugging Face Hub (${msg.split("\n")[0]}) — check the network, or use --offline with a model already ${where}`,
    );
  if (/404|could not locate|Unauthorized|401/i.test(msg))
    return new VaultRagError(
      "embed_failed",
      `vault-rag: model "${model}" was not found on the Hugging Face Hub — check the name (e.g. Xenova/bge-small-en-v1.5)`,
    );
  return new VaultRagError("embed_failed", `vault-rag: cannot load model "${model}": ${msg.split("\n")[0]}`);
}
