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
  const terms = queryTerms(text);
  if (!terms.length) return undefined;
  return phraseQuery(terms);
}

/**
 * The terms a keyword query ranks by, as {@link toFtsQuery} quotes them: lower-cased, stopwords
 * dropped (unless nothing else is left), identifiers and CJK runs as space-separated phrases.
 *
 * @example
 * ```ts
 * queryTerms("how do I save power? 2-factor"); // ["save", "power", "2 factor"]
 * ```
 */
export function queryTerms(text: string): string[] {
  const raw = queryTokens(text).map((t) => t.replace(/’/g, "'"));
  // a contraction is a stopword as written ("won't"); a possessive is its word ("someone's" →
  // "someone"), which the index holds for both "someone" and "someone's"
  const words = raw.map((t) => t.replace(/'s$/, ""));
  const kept = words.filter((t, i) => !STOPWORDS.has(raw[i]) && !STOPWORDS.has(t));
  const chosen = kept.length ? kept : words;
  // identifiers with - _ . or ' become phrases, as the index splits them ("2-factor" → "2 factor",
  // "couldn't" → "couldn t"); CJK runs become bigram phrases, as indexed
  return [
    ...new Set(
      chosen.map((t) =>
        hasCjk(t)
          ? cjkBigrams(t).trim().replace(/\s+/g, " ")
          : t
              .split(/[-_.']/)
              .filter(Boolean)
              .join(" "),
      ),
    ),
  ].filter(Boolean);
}

/**
 * The words of a text as the keyword index reads them: NFKC, lower-cased, runs of letters and
 * digits joined by an apostrophe, hyphen, underscore or dot ("don't", "2-factor", "v1.2").
 *
 * @example
 * ```ts
 * queryTokens("Don't use v1.2!"); // ["don't", "use", "v1.2"]
 * ```
 */
export function queryTokens(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN_RE) ?? [];
}

/**
 * An FTS5 query matching any of the phrases, each quoted so that nothing in it is FTS5 syntax.
 *
 * @example
 * ```ts
 * phraseQuery(["add up", 'say "hi"']); // '"add up" OR "say ""hi"""'
 * ```
 */
export function phraseQuery(phrases: string[]): string {
  return phrases.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}
