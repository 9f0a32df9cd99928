/**
 * The one error type of vault-rag. Every message starts with `vault-rag:`, names the bad value
 * and says how to fix it; `code` is stable so callers (the CLI, tests, agents) can rely on it.
 *
 * @example
 * ```ts
 * throw new VaultRagError("usage", `vault-rag: unknown mode "fast" — use dense, keyword or hybrid`);
 * ```
 */
export class VaultRagError extends Error {
  /** Stable machine-readable code, e.g. `no_index`, `usage`, `filter_invalid`. */
  readonly code: VaultRagErrorCode;

  constructor(code: VaultRagErrorCode, message: string, options?: { cause?: unknown }) {
    super(message.startsWith("vault-rag:") ? message : `vault-rag: ${message}`, options);
    this.name = "VaultRagError";
    this.code = code;
  }
}

/** The error codes vault-rag raises. The CLI maps them to exit codes. */
export type VaultRagErrorCode =
  | "usage"
  | "filter_invalid"
  | "no_index"
  | "model_mismatch"
  | "remote_model"
  | "vault_missing"
  | "store_failed"
  | "embed_failed"
  | "llm_failed"
  | "index_locked"
  | "index_outdated"
  | "index_damaged"
  | "stopped"
  | "io";

/** Exit code for an error: 2 for usage errors and a missing index, 1 for runtime failures. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof VaultRagError) {
    return err.code === "usage" ||
      err.code === "filter_invalid" ||
      err.code === "no_index" ||
      err.code === "model_mismatch" ||
      err.code === "remote_model" ||
      err.code === "vault_missing" ||
      err.code === "index_outdated"
      ? 2
      : 1;
  }
  return 1;
}
