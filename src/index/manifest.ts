import { CHUNKER_VERSION } from "../chunk/defaults.js";
import type { Embedder } from "../embed/types.js";
import { VaultRagError } from "../errors.js";
import { SCHEMA_VERSION, type Manifest } from "../store/types.js";

/**
 * Describes an embedder for the manifest.
 *
 * @example
 * ```ts
 * manifestFor(useLiteEmbedder()).embedder.dimensions; // 512
 * ```
 */
export function manifestFor(embedder: Embedder, previous?: Manifest): Manifest {
  const now = new Date().toISOString();
  return {
    schemaVersion: SCHEMA_VERSION,
    embedder: {
      provider: embedder.provider,
      model: embedder.model,
      dimensions: embedder.dimensions,
      documentPrefix: embedder.documentPrefix,
      queryPrefix: embedder.queryPrefix,
      normalized: embedder.normalized,
    },
    chunkerVersion: CHUNKER_VERSION,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
}

/** The refusal when an index was built by another model than the one asked for. */
export function modelMismatch(dbPath: string, m: Manifest, asked: string): VaultRagError {
  return new VaultRagError(
    "model_mismatch",
    `vault-rag: index at ${dbPath} was built with ${m.embedder.provider === "use-lite" ? "use-lite" : `${m.embedder.provider}:${m.embedder.model}`} (${m.embedder.dimensions}-d); run \`vault-rag index --full --model ${asked}\` to rebuild`,
  );
}

/** True when the manifest names the same provider and model as the embedder. */
export function sameModel(m: Manifest, e: Embedder): boolean {
  return m.embedder.provider === e.provider && m.embedder.model === e.model;
}

