import { VaultRagError, type Fix } from "../errors.js";
import { cliFix, worded } from "../render/fix.js";

/** An error as the API returns it: the CLI's message, vault-rag's stable code, and the fix as data when there is one. */
export interface ErrorBody {
  error: string;
  code: string;
  fix?: Fix;
}

/**
 * The HTTP status and JSON body of an error, by its code: a bad request is 400 (a note that is not there 404),
 * an index not built yet (or damaged, or locked) 503, a model that cannot be reached 502, anything else 500. Errors that are
 * not vault-rag's are reported without their stack.
 *
 * @example
 * ```ts
 * errorResponse(new VaultRagError("usage", `vault-rag: unknown mode "fast" — use dense, keyword or hybrid`));
 * // { status: 400, body: { error: "vault-rag: unknown mode \"fast\" — use dense, keyword or hybrid", code: "usage" } }
 * ```
 */
export function errorResponse(e: unknown): { status: 400 | 404 | 500 | 502 | 503; body: ErrorBody } {
  if (!(e instanceof VaultRagError))
    return {
      status: 500,
      body: { error: `vault-rag: unexpected error: ${(e as Error)?.message ?? String(e)}`, code: "internal" },
    };
  // the server was started from the CLI: its words name the CLI's commands
  const body: ErrorBody = { error: worded(e, cliFix), code: e.code, ...(e.fix ? { fix: e.fix } : {}) };
  switch (e.code) {
    case "usage":
    case "filter_invalid":
      return { status: 400, body };
    case "not_found":
      // a note or heading that is not there, with the code the unknown-endpoint 404 has
      return { status: 404, body };
    case "no_index":
    case "index_damaged":
    case "index_locked":
      return { status: 503, body };
    case "llm_failed":
    case "embed_failed":
      return { status: 502, body };
    default:
      return { status: 500, body };
  }
}
