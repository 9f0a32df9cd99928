import { postJson } from "../embed/http.js";
import { VaultRagError } from "../errors.js";
import type { Reranker } from "./types.js";

/**
 * Where a reranker server's spec sends its requests, and the model it names: the URL as given when
 * its path ends in `/rerank`, `<url>/rerank` when it ends in `/v1`, else `<url>/v1/rerank`; the
 * model is what follows `#` (a URL's fragment is never sent), else none (the server's own).
 *
 * @example
 * ```ts
 * rerankEndpoint("http://127.0.0.1:8012"); // { url: "http://127.0.0.1:8012/v1/rerank" }
 * rerankEndpoint("http://gpu:8000/v1#BAAI/bge-reranker-v2-m3"); // { url: "http://gpu:8000/v1/rerank", model: "BAAI/bge-reranker-v2-m3" }
 * ```
 */
export function rerankEndpoint(spec: string): { url: string; model?: string; host: string } {
  let u: URL;
  try {
    u = new URL(spec);
  } catch {
    throw new VaultRagError(
      "usage",
      `vault-rag: the reranker "${spec}" is no URL — give one like http://127.0.0.1:8012`,
    );
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new VaultRagError(
      "usage",
      `vault-rag: the reranker "${spec}" is no http(s) URL — give one like http://127.0.0.1:8012`,
    );
  const model = decodeURIComponent(u.hash.slice(1)) || undefined;
  u.hash = "";
  const path = u.pathname.replace(/\/+$/, "");
  u.pathname = /\/rerank$/.test(path) ? path : /\/v1$/.test(path) ? `${path}/rerank` : `${path}/v1/rerank`;
  return { url: u.toString(), host: u.host, ...(model ? { model } : {}) };
}

/**
 * A reranker behind a server that speaks `/v1/rerank` in the Cohere/Jina shape (llama.cpp's
 * `llama-server --reranking`, vLLM): `POST {model, query, documents, top_n}` answered by
 * `{results: [{index, relevance_score}]}`, one result per document. Every failure is a one-line
 * `rerank_failed` error: the server down, an HTTP error, a reply that is not JSON, or the wrong
 * count of scores.
 *
 * @example
 * ```ts
 * const r = serverReranker("http://127.0.0.1:8012");
 * await r.rerank("how do I save power", ["Deep sleep saves power.", "Sourdough starter"]); // [0.98, 0.01]
 * ```
 */
export function serverReranker(spec: string): Reranker {
  const { url, model, host } = rerankEndpoint(spec);
  const unreachable = `vault-rag: the reranker server at ${host} is not reachable (${url}) — start it (e.g. \`llama-server --reranking -m <model>.gguf\`), or choose another reranker`;
  return {
    id: spec,
    async rerank(query, passages) {
      if (!passages.length) return [];
      const body = { ...(model ? { model } : {}), query, documents: passages, top_n: passages.length };
      const reply = await postJson(url, body, {}, unreachable, "rerank_failed");
      return scoresOf(reply, passages.length, url);
    },
  };
}

/** The scores in a `/v1/rerank` reply, in the documents' order; a reply of another shape is refused. */
function scoresOf(reply: unknown, n: number, url: string): number[] {
  const results = (reply as { results?: unknown } | null)?.results;
  if (!Array.isArray(results))
    throw new VaultRagError(
      "rerank_failed",
      `vault-rag: ${url} answered without a "results" list — is it a /v1/rerank server?`,
    );
  if (results.length !== n)
    throw new VaultRagError("rerank_failed", `vault-rag: ${url} returned ${results.length} scores for ${n} passages`);
  const scores = new Array<number>(n).fill(NaN);
  for (const r of results as { index?: unknown; relevance_score?: unknown }[]) {
    const i = r?.index;
    const s = r?.relevance_score;
    if (typeof i !== "number" || !Number.isInteger(i) || i < 0 || i >= n || !Number.isNaN(scores[i]))
      throw new VaultRagError(
        "rerank_failed",
        `vault-rag: ${url} returned a result with the index ${JSON.stringify(i)}, not one of 0 to ${n - 1} once each`,
      );
    if (typeof s !== "number" || !Number.isFinite(s))
      throw new VaultRagError(
        "rerank_failed",
        `vault-rag: ${url} returned the relevance_score ${JSON.stringify(s)} for passage ${i}, not a number`,
      );
    scores[i] = s;
  }
  return scores;
}
