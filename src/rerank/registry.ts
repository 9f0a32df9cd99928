import { isLoopbackHost } from "../embed/remote.js";
import { VaultRagError } from "../errors.js";
import { crossEncoderReranker, type CrossEncoderOptions } from "./cross-encoder.js";
import { rerankEndpoint, serverReranker } from "./server.js";
import type { Reranker } from "./types.js";
export { DEFAULT_RERANKER, RERANK_DEFAULTS } from "./defaults.js";

/** A model name as Transformers.js finds it in a folder: `<owner>/<name>`, no `..`, no other slashes. */
const MODEL_NAME = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

/**
 * What a reranker spec names, checked: a local cross-encoder (`transformers:<owner>/<name>`) or a
 * `/v1/rerank` server (`http://…` or `https://…`, the model after `#`). Anything else is a one-line
 * `usage` error naming both forms.
 *
 * @example
 * ```ts
 * rerankerKind("transformers:Xenova/ms-marco-MiniLM-L-6-v2"); // { kind: "transformers", model: "Xenova/ms-marco-MiniLM-L-6-v2" }
 * rerankerKind("http://127.0.0.1:8012"); // { kind: "server", host: "127.0.0.1:8012" }
 * ```
 */
export function rerankerKind(
  spec: string,
): { kind: "transformers"; model: string } | { kind: "server"; host: string; hostname: string } {
  const s = spec.trim();
  if (s.startsWith("transformers:")) {
    const model = s.slice("transformers:".length);
    if (MODEL_NAME.test(model) && !model.split("/").includes("..")) return { kind: "transformers", model };
  } else if (/^https?:\/\//i.test(s)) {
    const { host } = rerankEndpoint(s);
    return { kind: "server", host, hostname: new URL(s).hostname };
  }
  throw new VaultRagError(
    "usage",
    `vault-rag: unknown reranker "${spec}" — use transformers:<owner>/<name> (a cross-encoder in --model-dir or the cache) or the URL of a /v1/rerank server, e.g. http://127.0.0.1:8012`,
  );
}

/**
 * Whether a reranker sends the question and passages off this machine: a server at an address
 * other than loopback. A local cross-encoder never does.
 *
 * @example
 * ```ts
 * rerankerSendsText("http://127.0.0.1:8012"); // false
 * rerankerSendsText("https://rerank.example.com"); // true
 * ```
 */
export function rerankerSendsText(spec: string): boolean {
  const k = rerankerKind(spec);
  if (k.kind !== "server") return false;
  return !isLoopbackHost(k.hostname);
}

/**
 * Creates a reranker from its spec ({@link rerankerKind}). Nothing is loaded or sent until its
 * first `rerank`.
 *
 * @example
 * ```ts
 * createReranker("transformers:Xenova/ms-marco-MiniLM-L-6-v2", { modelDir: "/models" }).id;
 * createReranker("http://127.0.0.1:8012#bge-reranker-v2-m3");
 * ```
 */
export function createReranker(spec: string, opts: CrossEncoderOptions = {}): Reranker {
  const k = rerankerKind(spec);
  return k.kind === "transformers" ? crossEncoderReranker(k.model, opts) : serverReranker(spec.trim());
}
