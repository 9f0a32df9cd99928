import { VaultRagError } from "../errors.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { checkVectors, postJson } from "./http.js";
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
export function openAiEmbedder(model: string, opts: { baseUrl?: string; apiKey?: string; log?: Logger } = {}): Embedder {
  const base = (opts.baseUrl ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "");
  const key = opts.apiKey ?? process.env.OPENAI_API_KEY;
  const log = opts.log ?? silentLogger;
  let dims = 0;
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const unreachable = `vault-rag: the OpenAI-compatible server at ${base} is not reachable — check the URL (--openai-base-url or OPENAI_BASE_URL) or choose another model`;
  const embed = async (inputs: string[], labels: string[] | undefined, offset: number) => {
    const body = (await postJson(`${base}/embeddings`, { model, input: inputs }, headers, unreachable)) as { data?: { embedding: unknown; index?: number }[] };
    if (!Array.isArray(body.data)) throw new VaultRagError("embed_failed", `vault-rag: ${base}/embeddings answered without a "data" list`);
    const sorted = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
    const vs = checkVectors(sorted, inputs.length, labels, offset, `model "${model}" at ${base}`);
    dims ||= vs[0].length;
    return vs;
  };
  return {
    id: `openai:${model}`,
    provider: "openai",
    model,
    get dimensions() {
      return dims;
    },
    maxTokens: 8191,
    documentPrefix: "",
    queryPrefix: "",
    normalized: true,
    async embedDocuments(texts, onProgress, labels) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        out.push(...(await embed(texts.slice(i, i + BATCH), labels, i)));
        onProgress?.(Math.min(i + BATCH, texts.length), texts.length);
      }
      log.debug(`embedded ${texts.length} texts with openai:${model}`);
      return out;
    },
    async embedQuery(text) {
      return (await embed([text], ["the query"], 0))[0];
    },
  };
}
