import { VaultRagError } from "../errors.js";
import { ALLOW_REMOTE_ENV } from "./defaults.js";
import { ollamaBaseUrl } from "./ollama.js";
import { DEFAULT_MODEL } from "./registry.js";
import type { Embedder } from "./types.js";

export { ALLOW_REMOTE_ENV };

/** Where a model runs: on this machine, or behind an address that text is sent to. */
export interface ModelPlace {
  /** The model's text leaves this machine: `openai:`, or `ollama:` at an address other than loopback. */
  network: boolean;
  /** As `status` says it: `local`, `ollama at 127.0.0.1:11434`, `openai-compatible at https://api.openai.com/v1`. */
  where: string;
}

/**
 * True for a loopback host name or address (`localhost`, 127.0.0.0/8, `::1`).
 *
 * @example
 * ```ts
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("gpu.local"); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Where the model of a spec runs, with the addresses the providers would use (options, else
 * `OLLAMA_HOST` / `OPENAI_BASE_URL`). Every `openai:` model counts as sent over the network, even
 * at a loopback address: the key it is sent with is for a service.
 *
 * @example
 * ```ts
 * modelPlace("use-lite").where;                 // "local"
 * modelPlace("ollama:nomic-embed-text").where;  // "ollama at 127.0.0.1:11434"
 * modelPlace("openai:text-embedding-3-small");  // { network: true, where: "openai-compatible at https://api.openai.com/v1" }
 * ```
 */
export function modelPlace(
  spec: string,
  opts: { ollamaHost?: string; openaiBaseUrl?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): ModelPlace {
  const provider = spec.split(":")[0];
  if (provider === "ollama") {
    let base: URL | undefined;
    try {
      base = new URL(ollamaBaseUrl(opts.ollamaHost, env));
    } catch {
      return { network: true, where: `ollama at ${opts.ollamaHost ?? env.OLLAMA_HOST}` };
    }
    return { network: !isLoopbackHost(base.hostname), where: `ollama at ${base.host}` };
  }
  if (provider === "openai") {
    const base = (opts.openaiBaseUrl ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "");
    return { network: true, where: `openai-compatible at ${base}` };
  }
  return { network: false, where: "local" };
}

/**
 * Whether this machine's configuration ({@link ALLOW_REMOTE_ENV}) names a model spec.
 *
 * @example
 * ```ts
 * remoteAllowed("openai:text-embedding-3-small", { VAULT_RAG_ALLOW_REMOTE: "openai:*" }); // true
 * ```
 */
export function remoteAllowed(spec: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const provider = spec.split(":")[0];
  return (env[ALLOW_REMOTE_ENV] ?? "")
    .split(",")
    .map((s) => s.trim())
    .some((s) => s === spec || s === `${provider}:*`);
}

/**
 * The refusal to use an index's own model, or undefined when it may be used: a model that sends
 * text over the network is used only when the command line (`--model`, a library's `model`) or
 * {@link ALLOW_REMOTE_ENV} names it, never because the index file names it.
 *
 * @example
 * ```ts
 * indexModelRefusal("/v/.vault-rag/index.db", "openai:text-embedding-3-small")?.code; // "remote_model"
 * indexModelRefusal("/v/.vault-rag/index.db", "use-lite"); // undefined
 * ```
 */
export function indexModelRefusal(
  index: string,
  spec: string,
  opts: { ollamaHost?: string; openaiBaseUrl?: string } = {},
  env: NodeJS.ProcessEnv = process.env,
): VaultRagError | undefined {
  const place = modelPlace(spec, opts, env);
  if (!place.network || remoteAllowed(spec, env)) return undefined;
  return new VaultRagError(
    "remote_model",
    `the index at ${index} names the model ${spec}, which would send your notes and questions to ${place.where.replace(/^\S+ at /, "")} — nothing was sent`,
    { fix: { kind: "allow_model", model: spec, env: ALLOW_REMOTE_ENV, instead: DEFAULT_MODEL, db: index } },
  );
}

/**
 * An embedder that refuses every embedding with `refusal` and sends nothing: a reader may still
 * use the index's stored vectors and keyword index (status, related notes, a keyword search).
 *
 * @example
 * ```ts
 * const e = refusingEmbedder(createEmbedder("openai:text-embedding-3-small"), refusal);
 * await e.embedQuery("x"); // throws refusal
 * ```
 */
export function refusingEmbedder(base: Embedder, refusal: VaultRagError): Embedder {
  const refuse = () => Promise.reject(refusal);
  return {
    id: base.id,
    provider: base.provider,
    model: base.model,
    dimensions: base.dimensions,
    maxTokens: base.maxTokens,
    documentPrefix: base.documentPrefix,
    queryPrefix: base.queryPrefix,
    normalized: base.normalized,
    embedDocuments: refuse,
    embedQuery: refuse,
  };
}

/**
 * The provider options for a model an index names (not one the caller asked for): a
 * `transformers:` model is then read from this machine only (the Hugging Face cache or
 * `--model-dir`), unless {@link ALLOW_REMOTE_ENV} names it. The index file travels with the vault:
 * what it names does not start a download.
 *
 * @example
 * ```ts
 * indexModelOptions("transformers:Xenova/bge-small-en-v1.5", {}, {}); // { offline: true, offlineBecause: "index_model" }
 * indexModelOptions("transformers:Xenova/bge-small-en-v1.5", {}, { VAULT_RAG_ALLOW_REMOTE: "transformers:*" }); // {}
 * ```
 */
export function indexModelOptions<T extends { offline?: boolean }>(
  spec: string,
  opts: T,
  env: NodeJS.ProcessEnv = process.env,
): T & { offlineBecause?: "index_model" } {
  if (spec.split(":")[0] !== "transformers" || opts.offline || remoteAllowed(spec, env)) return opts;
  return { ...opts, offline: true, offlineBecause: "index_model" };
}
