/**
 * The injectable logger. Nothing below the CLI prints: every room takes a `Logger` and reports
 * through it, with a stable warning code that tests and the JSON output can rely on.
 */

/** Stable warning codes. Add new ones here so they stay documented in one place. */
export type WarningCode =
  | "frontmatter_invalid"
  | "frontmatter_too_large"
  | "note_skipped"
  | "note_unreadable"
  | "symlink_outside"
  | "symlink_hidden"
  | "symlink_loop"
  | "symlink_duplicate"
  | "input_truncated"
  | "chunk_oversized"
  | "ignore_file_invalid"
  | "lock_stale"
  | "sidecar_rebuilt"
  | "wasm_simd_unavailable"
  | "index_damaged"
  | "vault_empty"
  | "links_truncated"
  | "tags_truncated"
  | "aliases_truncated"
  | "script_unread"
  | "note_truncated"
  | "attachment_unreadable"
  | "ocr_unavailable";

/** What a warning carries besides its message. */
export interface WarningDetail {
  path?: string;
  line?: number;
  [key: string]: unknown;
}

/** The logger interface every room accepts. */
export interface Logger {
  warn(code: WarningCode, message: string, detail?: WarningDetail): void;
  info(message: string): void;
  debug(message: string): void;
}

/** A logger that drops everything: the default for library use. */
export const silentLogger: Logger = {
  warn() {},
  info() {},
  debug() {},
};

/** One recorded warning. */
export interface Warning {
  code: WarningCode;
  message: string;
  detail?: WarningDetail;
}

/**
 * A logger that remembers its warnings, for tests and for the CLI's summary.
 *
 * @example
 * ```ts
 * const log = collectingLogger();
 * parseNote("a.md", "---\ntags: [a\n---\n", 0, log);
 * log.warnings[0].code; // "frontmatter_invalid"
 * ```
 */
export function collectingLogger(inner: Logger = silentLogger): Logger & { warnings: Warning[] } {
  const warnings: Warning[] = [];
  return {
    warnings,
    warn(code, message, detail) {
      warnings.push({ code, message, detail });
      inner.warn(code, message, detail);
    },
    info: (m) => inner.info(m),
    debug: (m) => inner.debug(m),
  };
}
