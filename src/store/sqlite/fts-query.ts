import { hasCjk, queryBigrams } from "../../shared/cjk.js";
import { STOPWORDS } from "../../shared/stopwords.js";
import { languageStopwords, stemText } from "../language.js";

const TOKEN_RE = /[\p{L}\p{N}]+(?:['’\-_.][\p{L}\p{N}]+)*/gu;

/** The tokenizer of every FTS5 table of the index (passages, backlink text) and of the stems spelling compares. */
export const FTS_TOKENIZE = "porter unicode61 remove_diacritics 2";

/**
 * Turns user text into a safe FTS5 query: every term quoted (user text is never parsed as FTS5
 * syntax), stopwords dropped, terms joined with OR so a question need not match every word.
 * Hyphenated or dotted identifiers (`2-factor`, `v1.2`) become phrases, matching how the unicode61
 * tokenizer split them at index time. With `langs`, also as the index stems
 * passages of those languages ({@link stemTerms}); adjacent words joined are another query
 * ({@link joinedQuery}). Returns `undefined` when nothing is left. With `language` (the question's),
 * that language's stopwords are dropped too ({@link queryTerms}).
 *
 * @example
 * ```ts
 * toFtsQuery('how do I save power?'); // '"save" OR "power"'
 * toFtsQuery('AND "NEAR" 2-factor');  // '"near" OR "2 factor"'
 * toFtsQuery("Wie funktioniert ein D-Flip-Flop", [], "de"); // '"funktioniert" OR "d flip flop"'
 * ```
 */
export function toFtsQuery(text: string, langs: readonly string[] = [], language?: string): string | undefined {
  const terms = stemTerms(queryTerms(text, language), langs);
  if (!terms.length) return undefined;
  return phraseQuery(terms);
}

/**
 * An FTS5 query of a question's adjacent words joined ({@link joinedPairs}), as `langs` would stem
 * them, looked for where a note writes them, not among the names the index joined itself (the
 * aliases field: "aws cli" would count twice for a title "AWS CLI …"). `undefined` without pairs.
 *
 * @example
 * ```ts
 * joinedQuery("what is a gray code"); // '{title section text} : "graycode"'
 * ```
 */
export function joinedQuery(text: string, langs: readonly string[] = [], language?: string): string | undefined {
  const own = new Set(queryTerms(text, language));
  const pairs = stemTerms(joinedPairs(text, language), langs).filter((j) => !own.has(j));
  return pairs.length ? `${JOINED_COLUMNS} : (${phraseQuery(pairs)})` : undefined;
}

/**
 * An FTS5 query of the words of a question's joined-up terms ({@link partWords}), as `langs` would
 * stem them: a note that writes "Änderung" under the title `DNS` answers "DNS-Änderung" without
 * ever writing the two together. `undefined` without such words.
 *
 * @example
 * ```ts
 * partsQuery("Docker-Volumes"); // '"docker" OR "volumes"'
 * ```
 */
export function partsQuery(text: string, langs: readonly string[] = [], language?: string): string | undefined {
  const parts = stemTerms(partWords(text, language), langs);
  return parts.length ? phraseQuery(parts) : undefined;
}

/**
 * The words of a question's terms joined by a hyphen, dot, underscore or apostrophe (`DNS-Änderung`,
 * `TCP-Handshake`), each of two letters or more and no stopword (English, and those of `language`),
 * that are not terms of the question on their own.
 *
 * @example
 * ```ts
 * partWords("warum kommt meine DNS-Änderung nicht an", "de"); // ["dns", "änderung"]
 * partWords("2-factor login"); // ["factor"]
 * ```
 */
export function partWords(text: string, language?: string): string[] {
  const terms = queryTerms(text, language);
  const own = new Set(terms);
  const stop = languageStopwords(language);
  const words = terms
    .filter((t) => t.includes(" ") && !hasCjk(t))
    .flatMap((t) => t.split(" "))
    .filter((w) => w.length >= 2 && /\p{L}/u.test(w) && !STOPWORDS.has(w) && !stop.has(w) && !own.has(w));
  return [...new Set(words)];
}

/**
 * Weight of the words of a question's joined-up terms ({@link partsQuery}) beside its own terms: the
 * term as written, a phrase, counts fully; its words apart count as a joined pair does.
 */
export const PARTS_WEIGHT = 0.5;

/**
 * Weight of a question's joined pairs ({@link joinedQuery}) beside its own words: a note that
 * writes "graycode" for "gray code" is found, but one that says "webpage" does not outrank the
 * one that answers "a live web page" (til).
 */
export const JOINED_WEIGHT = 0.5;

/** The fields of the keyword index a question's joined pairs are looked for in (all but `aliases`). */
const JOINED_COLUMNS = "{title section text}";

/**
 * Terms as given (for FTS5's Porter stemmer to read, as it reads English and every passage too
 * short to tell its language) and as an index that stems passages of each of `langs` by its
 * Snowball stemmer holds them: each word of each term stemmed; a CJK bigram as it stands. Each
 * form once; with `minStem`, no stemmed form with a word cut shorter than that.
 *
 * @example
 * ```ts
 * stemTerms(["zählern", "d flip flop"], ["de"]); // ["zählern", "d flip flop", "zahl"]
 * ```
 */
export function stemTerms(terms: string[], langs: readonly string[], minStem = 0): string[] {
  if (!langs.length) return terms;
  const out = new Set(terms);
  for (const lang of langs)
    for (const t of terms) {
      if (hasCjk(t)) continue;
      const stem = stemText(t, lang);
      if (minStem && stem.split(" ").some((w, i) => w.length < minStem && w !== t.split(" ")[i])) continue;
      out.add(stem);
    }
  return [...out];
}

/**
 * The shortest stem asked in a language the words may not be in (English synonyms, a question
 * whose language is not told, counted for its synonyms): "tie" is "ti" in French, which English
 * notes hold as "TI"; "repose" is "repos", as a French recipe's "reposer".
 */
export const CROSS_STEM_MIN = 4;

/**
 * Adjacent words of a question written as one ("gray code" → "graycode"): a note may write as one
 * word what the question writes as two (the index holds each note's name joined too, see
 * fts-text.ts `ftsNames`, for the other way round). Words as {@link proximityPairs} pairs them.
 *
 * @example
 * ```ts
 * joinedPairs("what is a gray code"); // ["graycode"]
 * ```
 */
export function joinedPairs(text: string, language?: string): string[] {
  return proximityPairs(text, language)
    .filter(([a, b]) => !hasCjk(a) && !hasCjk(b) && !STOPWORDS.has(a) && !STOPWORDS.has(b))
    .map(([a, b]) => a.replace(/'/g, "") + b.replace(/'/g, ""));
}

/**
 * The terms a keyword query ranks by, as {@link toFtsQuery} quotes them: lower-cased, stopwords
 * dropped (English, and with `language` that language's: `@orama/stopwords`, see
 * `languageStopwords`; unless nothing else is left), identifiers as space-separated phrases, CJK
 * runs as their bigrams, and each quoted phrase ({@link quotedPhrases}) after the words.
 *
 * @example
 * ```ts
 * queryTerms("how do I save power? 2-factor"); // ["save", "power", "2 factor"]
 * queryTerms('"connection pool" exhausted');   // ["connection", "pool", "exhausted", "connection pool"]
 * queryTerms("wie läuft der TCP-Handshake ab", "de"); // ["läuft", "ab", "tcp handshake"]
 * ```
 */
export function queryTerms(text: string, language?: string): string[] {
  return [...new Set([...wordTerms(text, language), ...quotedPhrases(text)])];
}

/** Double quotes, straight or typographic, around a phrase the user wants as written. */
const QUOTED = /["“”„]([^"“”„]+)["“”„]/g;

/**
 * The phrases a question quotes (`"connection pool" exhausted`), each of two or more words, as
 * FTS5 reads a phrase: its words in order, stopwords kept ("to be or not to be"). One more term of
 * the query: a passage that holds the phrase as written ranks above one with its words apart.
 *
 * @example
 * ```ts
 * quotedPhrases('"connection pool" exhausted'); // ["connection pool"]
 * ```
 */
export function quotedPhrases(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(QUOTED)) {
    const words = queryTokens(m[1]).flatMap((t) => indexParts(t.replace(/’/g, "'")));
    if (words.length >= 2 && !words.some(hasCjk)) out.push(words.join(" "));
  }
  return out;
}

/** The words the index splits a token into at - _ . and ' ("2-factor" → "2", "factor"). */
const indexParts = (token: string) => token.split(/[-_.']/).filter(Boolean);

/** {@link queryTerms} without quoted phrases: the question's words, one term each. */
function wordTerms(text: string, language?: string): string[] {
  const raw = queryTokens(text).map((t) => t.replace(/’/g, "'"));
  // a contraction is a stopword as written ("won't"); a possessive is its word ("someone's" →
  // "someone"), which the index holds for both "someone" and "someone's"
  const words = raw.map((t) => t.replace(/'s$/, ""));
  const own = languageStopwords(language);
  const stop = (t: string) => STOPWORDS.has(t) || own.has(t);
  const kept = words.filter((t, i) => !stop(raw[i]) && !stop(t));
  const chosen = kept.length ? kept : words;
  // identifiers with - _ . or ' become phrases, as the index splits them ("2-factor" → "2 factor",
  // "couldn't" → "couldn t"); a CJK run becomes its bigrams, as indexed, each a term of its own as
  // a word is: "スナップショットから復元" finds a note that says "スナップショット" and "復元" apart
  return [...new Set(chosen.flatMap((t) => (hasCjk(t) ? queryBigrams(t) : [indexParts(t).join(" ")])))].filter(Boolean);
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
 * {@link queryTokens} in the case they were typed (NFKC, not lower-cased): what tells a name or an
 * acronym ("RUNX", "OmpA") from a word.
 *
 * @example
 * ```ts
 * typedTokens("Don't use RUNX!"); // ["Don't", "use", "RUNX"]
 * ```
 */
export function typedTokens(text: string): string[] {
  return text.normalize("NFKC").match(TOKEN_RE) ?? [];
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

/**
 * Tokens within which two adjacent question words count as near (FTS5 `NEAR(a b, 4)`): the
 * unordered window of sequential dependence ranking (Metzler & Croft, 2005). 4 ranks best of 3 / 4 / 6,
 * and adjacent pairs rank above pairs two or three words apart (docs/decisions/proximity.md).
 */
export const NEAR_WINDOW = 4;

/**
 * The pairs of adjacent terms of a question that near-pair ranking looks for: next to each other
 * once stopwords are dropped ("undo the last commit" pairs "undo" with "last" and "last" with
 * "commit"); phrase terms (`2-factor`) take no part.
 *
 * @example
 * ```ts
 * proximityPairs("undo the last commit"); // [["undo", "last"], ["last", "commit"]]
 * ```
 */
export function proximityPairs(text: string, language?: string): [string, string][] {
  const words = queryTerms(text, language).filter((t) => !t.includes(" "));
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < words.length; i++) out.push([words[i], words[i + 1]]);
  return out;
}

/**
 * An FTS5 query matching chunks where a pair of {@link proximityPairs} stands within `window`
 * tokens, in either order, their words stemmed by `lang` and the stopwords of `language` (the
 * question's) left out. Returns `undefined` for fewer than two words.
 *
 * @example
 * ```ts
 * proximityQuery("undo the last commit"); // 'NEAR("undo" "last", 4) OR NEAR("last" "commit", 4)'
 * proximityQuery("sourdough");           // undefined
 * ```
 */
export function proximityQuery(
  text: string,
  window = NEAR_WINDOW,
  lang?: string,
  language?: string,
): string | undefined {
  const pairs = proximityPairs(text, language).map(([a, b]) => [stemText(a, lang), stemText(b, lang)]);
  const w = Math.max(0, Math.floor(window));
  return pairs.length
    ? pairs.map(([a, b]) => `NEAR(${phraseQuery([a])} ${phraseQuery([b])}, ${w})`).join(" OR ")
    : undefined;
}
