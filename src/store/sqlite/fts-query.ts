import { STOPWORDS } from "../stopwords.js";
import { cjkBigrams, hasCjk } from "./cjk.js";

const TOKEN_RE = /[\p{L}\p{N}]+(?:['’\-_.][\p{L}\p{N}]+)*/gu;

/**
 * Turns user text into a safe FTS5 query: every term quoted (user text is never parsed as FTS5
 * syntax), stopwords dropped, terms joined with OR so a question need not match every word.
 * Hyphenated or dotted identifiers (`2-factor`, `v1.2`) become phrases, matching how the unicode61
 * tokenizer split them at index time. Returns `undefined` when nothing is left.
 *
 * @example
 * ```ts
 * toFtsQuery('how do I save power?'); // '"save" OR "power"'
 * toFtsQuery('AND "NEAR" 2-factor');  // '"near" OR "2 factor"'
 * ```
 */
export function toFtsQuery(text: string): string | undefined {
  const tokens = (text.normalize("NFKC").toLowerCase().match(TOKEN_RE) ?? []).map((t) => t.replace(/['’]/g, ""));
  const kept = tokens.filter((t) => !STOPWORDS.has(t));
  const chosen = kept.length ? kept : tokens;
  // hyphenated and dotted identifiers become phrases; CJK runs become bigram phrases, as indexed
  const terms = [
    ...new Set(
      chosen.map((t) =>
        hasCjk(t) ? cjkBigrams(t).trim().replace(/\s+/g, " ") : t.split(/[-_.]/).filter(Boolean).join(" "),
      ),
    ),
  ].filter(Boolean);
  if (!terms.length) return undefined;
  return terms.map((t) => `"${t}"`).join(" OR ");
}
