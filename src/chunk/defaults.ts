import { VaultRagError } from "../errors.js";

/**
 * Chunking options. Sizes are in words (whitespace-separated).
 *
 * Why these defaults: the bundled offline model (Universal Sentence Encoder lite) reads at most 128
 * SentencePiece tokens and silently drops the rest. English prose runs about 1.3 tokens per word and
 * Markdown syntax, numbers and part names run much higher (measured on examples/vault: 80-word
 * chunks of technical notes reached 140–180 tokens); the breadcrumb line costs another 8–15 tokens.
 * 60 words keeps most chunks, breadcrumb included, inside the 128-token window, so the model sees
 * what it is asked to embed; for the rest the indexer passes the model's token budget
 * (`maxTokens`, `countTokens`) and such a note is cut finer. Overlap of 15 words keeps a sentence that straddles a
 * split findable from both sides. Sections under 12 words (a heading with a line under it) are merged
 * into a neighbour rather than becoming chunks that say almost nothing.
 */
export interface ChunkOptions {
  /** Largest chunk, in words, before a section is split. */
  maxWords?: number;
  /** Words repeated at the start of the next piece when a section is split. */
  overlapWords?: number;
  /** Sections smaller than this are merged into a neighbour. */
  minWords?: number;
  /** A code block or table stays whole up to this many words; a longer one is cut at line ends. */
  maxBlockWords?: number;
}

/** {@link ChunkOptions} with every size filled in (the token budget stays optional). */
export type ChunkOptionsWithDefaults = Required<ChunkOptions>;

/** The defaults, in one place; the CLI's help reads them from here. */
export const CHUNK_DEFAULTS: ChunkOptionsWithDefaults = {
  maxWords: 200,
  overlapWords: 0,
  minWords: 30,
  maxBlockWords: 1000,
};

/** Bumped whenever chunk boundaries or ids change for the same input; stored in the index manifest. */
export const CHUNKER_VERSION = "4";

/**
 * Fills in defaults and checks the values.
 *
 * @example
 * ```ts
 * withChunkDefaults({ maxWords: 200 }).overlapWords; // 15
 * ```
 */
export function withChunkDefaults(opts: ChunkOptions = {}): ChunkOptionsWithDefaults {
  const o = { ...CHUNK_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as ChunkOptionsWithDefaults;
  if (!Number.isInteger(o.maxWords) || o.maxWords < 8) throw new VaultRagError("usage", `vault-rag: maxWords must be an integer of at least 8, got ${o.maxWords}`);
  if (!Number.isInteger(o.overlapWords) || o.overlapWords < 0 || o.overlapWords >= o.maxWords / 2)
    throw new VaultRagError("usage", `vault-rag: overlapWords must be an integer from 0 to below half of maxWords (${o.maxWords}), got ${o.overlapWords}`);
  if (!Number.isInteger(o.minWords) || o.minWords < 0) throw new VaultRagError("usage", `vault-rag: minWords must be a non-negative integer, got ${o.minWords}`);
  if (!Number.isInteger(o.maxBlockWords) || o.maxBlockWords < o.maxWords)
    throw new VaultRagError("usage", `vault-rag: maxBlockWords must be an integer of at least maxWords (${o.maxWords}), got ${o.maxBlockWords}`);
  return o;
}
