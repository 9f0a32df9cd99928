import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { ollamaEmbedder } from "./ollama.js";
import { openAiEmbedder } from "./openai.js";
import { transformersEmbedder } from "./transformers.js";
import type { Embedder } from "./types.js";
import { useLiteEmbedder } from "./use-lite/embedder.js";

/** The default model: bundled, offline. */
export const DEFAULT_MODEL = "use-lite";

/** Provider options read by {@link createEmbedder}; environment variables fill what is unset. */
export interface EmbedderOptions {
  /** Ollama server address (else `OLLAMA_HOST`, else http://127.0.0.1:11434). */
  ollamaHost?: string;
  /** OpenAI-compatible base URL (else `OPENAI_BASE_URL`, else https://api.openai.com/v1). */
  openaiBaseUrl?: string;
  openaiApiKey?: string;
  /** Transformers.js: never download; model cache folder; folder of hand-copied models (else `VAULT_RAG_MODEL_DIR`). */
  offline?: boolean;
  cacheDir?: string;
  modelDir?: string;
  /** Transformers.js: ONNX weights variant, `q8` or `fp32` (else `VAULT_RAG_DTYPE`). */
  dtype?: string;
  /** Transformers.js: `offline` because the model is the index's own and nothing allowed a download (see `indexModelOptions`). */
  offlineBecause?: "index_model";
  /**
   * The bundled model embeds questions on a worker thread of its own, started (and its model loaded)
   * at once, so a question's embedding runs beside its keyword search. For long-lived processes
   * (`serve`, MCP); ignored where threads are off (`VAULT_RAG_THREADS=0`). The
   * thread is shared by the process and never closed; idle, it does not keep the process alive.
   */
  queryThread?: boolean;
  log?: Logger;
}

/**
 * Creates an embedder from a model spec: `use-lite` (bundled default), `ollama:<model>`,
 * `openai:<model>` or `transformers:<model>` (needs the optional @huggingface/transformers).
 *
 * @example
 * ```ts
 * createEmbedder("ollama:nomic-embed-text").id; // "ollama:nomic-embed-text"
 * ```
 */
export function createEmbedder(spec: string = DEFAULT_MODEL, opts: EmbedderOptions = {}): Embedder {
  const log = opts.log ?? silentLogger;
  const [provider, ...rest] = spec.split(":");
  const model = rest.join(":");
  if (provider === "use-lite" || spec === "use-lite:universal-sentence-encoder-lite")
    return useLiteEmbedder(log, { queryThread: opts.queryThread });
  if (provider === "ollama" && model) return ollamaEmbedder(model, { host: opts.ollamaHost, log });
  if (provider === "openai" && model)
    return openAiEmbedder(model, { baseUrl: opts.openaiBaseUrl, apiKey: opts.openaiApiKey, log });
  if (provider === "transformers" && model)
    return transformersEmbedder(model, {
      offline: opts.offline,
      cacheDir: opts.cacheDir,
      modelDir: opts.modelDir ?? (process.env.VAULT_RAG_MODEL_DIR?.trim() || undefined),
      dtype: opts.dtype,
      offlineBecause: opts.offlineBecause,
      log,
    });
  throw new VaultRagError(
    "usage",
    `vault-rag: unknown model "${spec}" — use use-lite (bundled, offline), ollama:<model>, openai:<model> or transformers:<model>`,
  );
}
