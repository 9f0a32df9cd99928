import type { Embedder } from "./types.js";
import { VaultRagError } from "../errors.js";

/**
 * POSTs JSON and returns the parsed reply, turning every failure into a one-line
 * {@link VaultRagError} that says what to do. `unreachable` is the message for a refused connection.
 *
 * @example
 * ```ts
 * const body = await postJson("http://127.0.0.1:11434/api/embed", { model, input }, {}, "Ollama is not reachable...");
 * ```
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  unreachable: string,
  code: "embed_failed" | "llm_failed" | "rerank_failed" = "embed_failed",
): Promise<unknown> {
  let res: Response | undefined;
  const send = () =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  // a kept-alive connection the server closed while this process was busy (reading notes for the
  // keyword phase, seconds without a turn of the event loop) fails as "other side closed" on reuse:
  // the request is sent once more, on a new connection (it changes nothing on the server)
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await send();
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      if (attempt === 0 && code === "embed_failed" && (cause === "UND_ERR_SOCKET" || cause === "ECONNRESET")) continue;
      throw new VaultRagError(code, unreachable);
    }
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = text.slice(0, 300);
    try {
      const j = JSON.parse(text) as { error?: string | { message?: string } };
      detail = typeof j.error === "string" ? j.error : (j.error?.message ?? detail);
    } catch {
      /* not JSON */
    }
    throw new VaultRagError(
      code,
      `vault-rag: ${url} answered HTTP ${res.status}: ${detail.replace(/\s+/g, " ").trim()}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new VaultRagError(code, `vault-rag: ${url} answered with something that is not JSON: ${text.slice(0, 100)}`);
  }
}

/** Checks vectors from a remote provider: right count, non-empty, finite, uniform dimensions. */
export function checkVectors(
  raw: unknown,
  expected: number,
  labels: string[] | undefined,
  offset: number,
  source: string,
): Float32Array[] {
  if (!Array.isArray(raw) || raw.length !== expected)
    throw new VaultRagError(
      "embed_failed",
      `vault-rag: ${source} returned ${Array.isArray(raw) ? raw.length : 0} vectors for ${expected} inputs`,
    );
  return raw.map((v: unknown, i) => {
    const label = labels?.[offset + i] ?? `input ${offset + i + 1}`;
    if (!Array.isArray(v) || v.length === 0)
      throw new VaultRagError("embed_failed", `vault-rag: ${source} returned an empty vector for ${label}`);
    if (v.some((x) => typeof x !== "number" || !Number.isFinite(x)))
      throw new VaultRagError(
        "embed_failed",
        `vault-rag: ${source} returned a vector with NaN or non-numbers for ${label}`,
      );
    return Float32Array.from(v as number[]);
  });
}

/** What a remote or library-backed provider supplies; {@link batchedEmbedder} does the rest. */
export interface BatchedSpec {
  provider: string;
  model: string;
  maxTokens: number;
  documentPrefix: string;
  queryPrefix: string;
  batch: number;
  /** Batch documents of like length together (a padded model then pads little); vectors come back in order. */
  byLength?: boolean;
  /** Embeds one batch (prefixes already applied); `offset` is the batch's first index, for labels. */
  embed(inputs: string[], labels: string[] | undefined, offset: number): Promise<Float32Array[]>;
  log?: { debug(m: string): void };
}

/**
 * An {@link Embedder} over a batch function: prefixes, batching, progress, and dimensions learnt
 * from the first reply. Shared by the Ollama, OpenAI-compatible and Transformers.js providers.
 *
 * @example
 * ```ts
 * batchedEmbedder({ provider: "ollama", model, maxTokens: 8192, documentPrefix: "", queryPrefix: "", batch: 32, embed });
 * ```
 */
export function batchedEmbedder(spec: BatchedSpec): Embedder {
  let dims = 0;
  const run = async (inputs: string[], labels: string[] | undefined, offset: number) => {
    const vs = await spec.embed(inputs, labels, offset);
    dims ||= vs[0]?.length ?? 0;
    return vs;
  };
  return {
    id: `${spec.provider}:${spec.model}`,
    provider: spec.provider,
    model: spec.model,
    get dimensions() {
      return dims;
    },
    maxTokens: spec.maxTokens,
    documentPrefix: spec.documentPrefix,
    queryPrefix: spec.queryPrefix,
    normalized: true,
    async embedDocuments(texts, onProgress, labels) {
      const order = texts.map((_, i) => i);
      if (spec.byLength) order.sort((a, b) => texts[a].length - texts[b].length);
      const sorted = order.map((i) => texts[i]);
      const sortedLabels = labels && order.map((i) => labels[i]);
      const out: Float32Array[] = new Array<Float32Array>(texts.length);
      for (let i = 0; i < texts.length; i += spec.batch) {
        const vs = await run(
          sorted.slice(i, i + spec.batch).map((t) => spec.documentPrefix + t),
          sortedLabels,
          i,
        );
        vs.forEach((v, j) => (out[order[i + j]] = v));
        onProgress?.(Math.min(i + spec.batch, texts.length), texts.length);
      }
      spec.log?.debug(`embedded ${texts.length} texts with ${spec.provider}:${spec.model}`);
      return out;
    },
    async embedQuery(text) {
      return (await run([spec.queryPrefix + text], ["the query"], 0))[0];
    },
  };
}
