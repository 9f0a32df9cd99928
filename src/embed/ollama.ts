import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { batchedEmbedder, checkVectors, postJson } from "./http.js";
import { modelProfile } from "./profiles.js";
import type { Embedder } from "./types.js";

const BATCH = 32;

/**
 * The prefixes an Ollama model gets, from its family's model card (see {@link modelProfile}):
 * `search_document: `/`search_query: ` for nomic-embed-text, the retrieval instruction before a
 * query for bge, mxbai-embed-large and snowflake-arctic-embed, none for bge-m3 and unknown models.
 *
 * @example
 * ```ts
 * nomicPrefixes("mxbai-embed-large").queryPrefix; // "Represent this sentence for searching relevant passages: "
 * ```
 */
export function nomicPrefixes(model: string): { documentPrefix: string; queryPrefix: string } {
  const { documentPrefix, queryPrefix } = modelProfile(model);
  return { documentPrefix, queryPrefix };
}

/**
 * Resolves the Ollama address as the Ollama CLI does: option, else `OLLAMA_HOST` (with or without
 * scheme and port), else http://127.0.0.1:11434.
 *
 * @example
 * ```ts
 * ollamaBaseUrl(undefined, { OLLAMA_HOST: "0.0.0.0:8080" }); // "http://0.0.0.0:8080"
 * ```
 */
export function ollamaBaseUrl(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  let h = (option ?? env.OLLAMA_HOST ?? "").trim();
  if (!h) return "http://127.0.0.1:11434";
  if (!/^https?:\/\//.test(h)) h = `http://${h}`;
  const u = new URL(h);
  if (!u.port && !/^https?:\/\/[^/]+:\d+/.test(h)) u.port = u.protocol === "https:" ? "443" : "11434";
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
}

/**
 * Embeddings from a local Ollama server (`/api/embed`), batched; inputs longer than the model's
 * context are truncated by the server (`truncate: true`) rather than failing the batch.
 *
 * @example
 * ```ts
 * const e = ollamaEmbedder("nomic-embed-text");
 * await e.embedQuery("how do I save power"); // sent as "search_query: how do I save power"
 * ```
 */
export function ollamaEmbedder(model: string, opts: { host?: string; log?: Logger } = {}): Embedder {
  const base = ollamaBaseUrl(opts.host);
  const log = opts.log ?? silentLogger;
  const { documentPrefix, queryPrefix } = nomicPrefixes(model);
  const unreachable = `vault-rag: Ollama is not reachable at ${base} — start it with \`ollama serve\` or choose another model`;
  return batchedEmbedder({
    provider: "ollama",
    model,
    maxTokens: 8192,
    documentPrefix,
    queryPrefix,
    batch: BATCH,
    log,
    async embed(inputs, labels, offset) {
      const body = (await postJson(`${base}/api/embed`, { model, input: inputs, truncate: true }, {}, unreachable)) as {
        embeddings?: unknown;
      };
      return checkVectors(body.embeddings, inputs.length, labels, offset, `Ollama model "${model}"`);
    },
  });
}
