/**
 * The words of a search's dense-coverage notice on each interface: while some passages have no
 * vectors yet, a dense or hybrid search ranks them by keyword, and says so once.
 */
import type { DenseCoverage } from "../shared/api.js";
import type { Face } from "./hints.js";
import { num } from "./numbers.js";

/** How far the dense ranking reaches, as the core gives it (`indexing` may be left out: not known). */
export type CoverageFacts = Omit<DenseCoverage, "indexing"> & { indexing?: boolean };

/**
 * The notice, in a face's words: the CLI names its commands, a request (library, MCP, HTTP) the
 * `status` it can ask for.
 *
 * @example
 * ```ts
 * coverageNotice({ chunks: 6321, withVectors: 2140, indexing: true }, "cli");
 * // "dense ranking covers 2,140 of 6,321 passages; indexing continues (vault-rag status)"
 * coverageNotice({ chunks: 6321, withVectors: 2140, indexing: false }, "request");
 * // "dense ranking covers 2,140 of 6,321 passages; the rest are ranked by keyword until the vault is indexed again"
 * ```
 */
export function coverageNotice(c: CoverageFacts, face: Face): string {
  const covers = `dense ranking covers ${num(c.withVectors)} of ${num(c.chunks)} passages`;
  if (c.indexing) return `${covers}; indexing continues (${face === "cli" ? "vault-rag status" : "see status"})`;
  return face === "cli"
    ? `${covers}; the rest are ranked by keyword — run \`vault-rag index\` to embed them`
    : `${covers}; the rest are ranked by keyword until the vault is indexed again`;
}

/**
 * A result's own notice, without the coverage notice the core put in front of it for requests:
 * the CLI words the coverage itself.
 *
 * @example
 * ```ts
 * ownNotice({ notice: "dense ranking covers 1 of 2 passages; indexing continues (see status); …", denseCoverage });
 * ```
 */
export function ownNotice(res: { notice?: string; denseCoverage?: CoverageFacts }): string | undefined {
  if (!res.denseCoverage || !res.notice) return res.notice;
  const words = coverageNotice(res.denseCoverage, "request");
  if (!res.notice.startsWith(words)) return res.notice;
  return res.notice.slice(words.length).replace(/^ — /, "") || undefined;
}
