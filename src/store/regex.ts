import { RE2JS } from "re2js";
import { VaultRagError } from "../errors.js";

/** A compiled `whereDocument` regular expression: linear-time, in Chroma's (RE2/Rust) dialect. */
export interface DocRegex {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
}

const cache = new Map<string, DocRegex>();
const CACHE_MAX = 256;

/**
 * Compiles a `whereDocument` `$regex`/`$not_regex` pattern on RE2JS, a linear-time engine (no
 * backtracking, so a pattern such as `^(a+)+$` cannot hang the process). Its dialect is that of
 * Chroma's server: look-around and back-references do not exist and are refused with a message
 * that names the fix; inline flags such as `(?i)` work. Compiled patterns are cached.
 *
 * @example
 * ```ts
 * compileDocRegex("^(a+)+$").test("a".repeat(100_000) + "!"); // false, in milliseconds
 * compileDocRegex("motor(?= driver)"); // throws: ... uses look-around, which Chroma's regex dialect does not have ...
 * ```
 */
export function compileDocRegex(pattern: string, op = "$regex"): DocRegex {
  let r = cache.get(pattern);
  if (r) return r;
  try {
    const re = RE2JS.compile(pattern);
    r = { test: (text: string) => re.test(text) };
  } catch (err) {
    throw refusal(pattern, op, (err as Error).message);
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(pattern, r);
  return r;
}

function refusal(pattern: string, op: string, reason: string): VaultRagError {
  const shown = `the regular expression ${JSON.stringify(pattern)} in whereDocument "${op}"`;
  const dialect = "which Chroma's regex dialect does not have";
  if (/`\(\?<?[=!]/.test(reason))
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} uses look-around, ${dialect} — rewrite it without (?=, (?!, (?<= or (?<!`,
    );
  const backref = /invalid escape sequence: `(\\(?:[1-9]|k))/.exec(reason);
  if (backref)
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} uses a back-reference (${backref[1]}), ${dialect} — write the repeated text out instead`,
    );
  const why = reason.replace(/^error parsing regexp: /, "");
  return new VaultRagError(
    "filter_invalid",
    `vault-rag: invalid regular expression ${JSON.stringify(pattern)} in whereDocument "${op}": ${why} — escape a special character with \\ to match it literally`,
  );
}
