/**
 * The benchmarks' stand-in embedder: a hashed bag of words in the bundled model's 512 dimensions,
 * deterministic and thousands of times faster than the model. It carries the bundled model's id, so
 * the CLI, `serve` and `openVault` open an index it filled and embed questions with the real model:
 * what is timed is every stage but the model's work on passages. Its vectors rank nothing
 * meaningfully; no quality figure is ever measured with it. Bench code only: it is not a model
 * users can choose.
 */
import type { Embedder } from "../dist/embed/index.js";
import { useLiteEmbedder } from "../dist/embed/index.js";

const DIMS = 512;

/** FNV-1a of a word: where it lands (low bits) and with which sign (a high bit). */
function fnv(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A unit vector: each word adds ±1 at its hashed coordinate. */
export function hashedVector(text: string): Float32Array {
  const v = new Float32Array(DIMS);
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!w) continue;
    const h = fnv(w);
    v[h % DIMS] += h & 0x80000000 ? 1 : -1;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < DIMS; i++) v[i] /= norm;
  return v;
}

/**
 * The stand-in: the bundled model's identity and windowing, passages embedded by {@link hashedVector}.
 *
 * @example
 * ```ts
 * await indexVault("/tmp/vr-scale/gen-10000", "/tmp/vr-scale/gen-10000/.vault-rag/index.db", standInEmbedder());
 * ```
 */
export function standInEmbedder(): Embedder {
  const real = useLiteEmbedder();
  return {
    ...real,
    async embedDocuments(texts, onProgress) {
      const out = texts.map(hashedVector);
      onProgress?.(texts.length, texts.length);
      return out;
    },
  };
}
