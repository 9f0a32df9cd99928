import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { batchedEmbedder, checkVectors, postJson } from "./http.js";
import type { Embedder } from "./types.js";

const BATCH = 64;

/**
 * Embeddings from any OpenAI-compatible server (`POST {base}/embeddings`). Base URL from the option,
 * else `OPENAI_BASE_URL`, else https://api.openai.com/v1; key from the option, else `OPENAI_API_KEY`.
 *
 * @example
 * ```ts
 * const e = openAiEmbedder("text-embedding-3-small", { baseUrl: "http://127.0.0.1:8080/v1" });
 * ```
 */
export function openAiEmbedder(
  model: string,
  opts: { baseUrl?: string; apiKey?: string; log?: Logger } = {},
): Embedder {
  const base = (opts.baseUrl ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "");
  const key = opts.apiKey ?? process.env.OPENAI_API_KEY;
  const log = opts.log ?? silentLogger;
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const unreachable = `vault-rag: the OpenAI-compatible server at ${base} is not reachable — check the URL (--openai-base-url or OPENAI_BASE_URL) or choose another model`;
  return batchedEmbedder({
    provider: "openai",
    model,
    maxTokens: 8191,
    documentPrefix: "",
    queryPrefix: "",
    batch: BATCH,
    log,
    async embed(inputs, labels, offset) {
      const body = (await postJson(`${base}/embeddings`, { model, input: inputs }, headers, unreachable)) as {
        data?: { embedding: unknown; index?: number }[];
      };
      if (!Array.isArray(body.data))
        throw new VaultRagError("embed_failed", `vault-rag: ${base}/embeddings answered without a "data" list`);
      const sorted = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
      return checkVectors(sorted, inputs.length, labels, offset, `model "${model}" at ${base}`);
    },
  });
}
