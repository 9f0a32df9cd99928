import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { VaultRagError, type Fix } from "../errors.js";
import { cliFix, worded } from "../render/fix.js";
import type { ApiError } from "../shared/api.js";

/** An error as the API returns it: the CLI's message, vault-rag's stable code, and the fix as data when there is one. */
export interface ErrorBody extends ApiError {
  fix?: Fix;
}

/**
 * A request a guard or route refuses before it reaches the vault (a URL over the cap, another
 * host, a method the API does not take, a full line): Hono's `HTTPException` with vault-rag's
 * stable code and the headers the answer carries (`Retry-After`, `Allow`). Thrown, and rendered,
 * like every error, by the app's one `onError` ({@link errorResponse}).
 *
 * @example
 * ```ts
 * throw new Refusal(403, "forbidden", "vault-rag: refused a request for host \"evil.test\"");
 * ```
 */
export class Refusal extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, { message });
  }
}

/**
 * The HTTP status, JSON body and headers of an error: a {@link Refusal} as it says; a vault-rag error by its code: a bad request is 400 (a note that is not there 404),
 * an index not built yet (or damaged, or locked) 503, a model that cannot be reached 502, anything else 500. Errors that are
 * not vault-rag's are reported without their stack.
 *
 * @example
 * ```ts
 * errorResponse(new VaultRagError("usage", `vault-rag: unknown mode "fast" — use dense, keyword or hybrid`));
 * // { status: 400, body: { error: "vault-rag: unknown mode \"fast\" — use dense, keyword or hybrid", code: "usage" } }
 * ```
 */
export function errorResponse(e: unknown): {
  status: ContentfulStatusCode;
  body: ErrorBody;
  headers?: Record<string, string>;
} {
  if (e instanceof Refusal) return { status: e.status, body: { error: e.message, code: e.code }, headers: e.headers };
  // an HTTPException of Hono's own (a malformed request it refuses): its status and message
  if (e instanceof HTTPException)
    return { status: e.status as ContentfulStatusCode, body: { error: `vault-rag: ${e.message}`, code: "http" } };
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
    case "remote_model":
      // a model or reranker that would send text off this machine, which nothing here names
      return { status: 403, body };
    case "llm_failed":
    case "embed_failed":
    case "rerank_failed":
      return { status: 502, body };
    default:
      return { status: 500, body };
  }
}
