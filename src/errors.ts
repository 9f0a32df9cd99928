/**
 * The one error type of vault-rag. An error says what is wrong and where (`what`), carries a stable
 * `code`, and, when there is one, a structured `fix`: what the user should do, which each interface
 * words its own way (the CLI names a command, the library a method, HTTP and MCP add a `fix` field).
 * Inner layers (store, search, vault, indexing) never write an interface's commands or flags.
 *
 * @example
 * ```ts
 * throw new VaultRagError("usage", `unknown mode "fast" — use dense, keyword or hybrid`);
 * throw new VaultRagError("index_damaged", `the index at ${file} is damaged (${err.message})`, {
 *   fix: { kind: "rebuild", db: file },
 *   cause: err,
 * });
 * ```
 */
export class VaultRagError extends Error {
  /** Stable machine-readable code, e.g. `no_index`, `usage`, `filter_invalid`. */
  readonly code: VaultRagErrorCode;
  /** What is wrong, and where, without the `vault-rag:` prefix or the fix. */
  readonly what: string;
  /** What fixes it, for an interface to word (absent when `what` already says it). */
  readonly fix?: Fix;

  constructor(code: VaultRagErrorCode, what: string, options: { cause?: unknown; fix?: Fix } = {}) {
    const bare = what.replace(/^vault-rag: /, "");
    super(`vault-rag: ${bare}${options.fix ? ` — ${fixWords(options.fix)}` : ""}`, { cause: options.cause });
    this.name = "VaultRagError";
    this.code = code;
    this.what = bare;
    if (options.fix) this.fix = options.fix;
  }
}

/**
 * What fixes an error, as data, with the index it is about (`db`) and that index's vault when
 * known (`vault`).
 * - `index`: build the index (there is none yet, or it was never completed);
 * - `rebuild`: rebuild it from the notes (damaged, of another storage version, or of another model:
 *   then `model` is the one asked for);
 * - `reindex`: take in notes changed since the last index;
 * - `other_index`: point at an index, or at a new path to build one (the file is no index at all);
 * - `allow_model`: the index names a `model` that sends text off this machine: name it (as the model
 *   asked for, or in the environment variable `env`) to use it here, else rebuild with `instead`.
 */
export type Fix = (
  | { kind: "index" }
  | { kind: "rebuild"; model?: string }
  | { kind: "reindex" }
  | { kind: "other_index" }
  | { kind: "allow_model"; model: string; env: string; instead: string }
) & {
  /** The index it is about (an absolute path or a Chroma address). */
  db?: string;
  /** The vault that index is of, when known. */
  vault?: string;
  /** That vault is the working directory, found with no index there or above: maybe no notes folder at all. */
  guessed?: boolean;
};

/**
 * A fix in plain words, naming no interface's command: the default an error's message carries
 * before an interface words it its own way.
 *
 * @example
 * ```ts
 * fixWords({ kind: "rebuild" }); // "rebuild the index from the notes"
 * ```
 */
export function fixWords(fix: Fix): string {
  switch (fix.kind) {
    case "index":
      return "index the vault first";
    case "rebuild":
      return fix.model ? `rebuild the index with ${fix.model}` : "rebuild the index from the notes";
    case "reindex":
      return "index the vault again to take them in";
    case "other_index":
      return "nothing was changed; point at an index, or at a new path to build one there";
    case "allow_model":
      return `if you mean to use it on this machine, set ${fix.env}=${fix.model} or name ${fix.model} as the model, else rebuild the index with ${fix.instead}`;
  }
}

/** The error codes vault-rag raises. The CLI maps them to exit codes. */
export type VaultRagErrorCode =
  | "usage"
  | "filter_invalid"
  | "not_found"
  | "no_index"
  | "model_mismatch"
  | "remote_model"
  | "vault_missing"
  | "store_failed"
  | "embed_failed"
  | "llm_failed"
  | "rerank_failed"
  | "download_failed"
  | "index_locked"
  | "index_outdated"
  | "index_damaged"
  | "stopped"
  | "io";

/**
 * Exit code for an error: 2 for usage errors and a missing index, 1 for runtime failures.
 *
 * @example
 * ```ts
 * exitCodeFor(new VaultRagError("usage", "bad flag")); // 2
 * ```
 */
export function exitCodeFor(err: unknown): number {
  if (err instanceof VaultRagError) {
    return err.code === "usage" ||
      err.code === "filter_invalid" ||
      err.code === "not_found" ||
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
