import fs from "node:fs";
import wordListPath from "word-list";
import { STOPWORDS, typedTokens, type Spelling, type Store } from "../store/index.js";
import { baseForms, type WordNet } from "./wordnet.js";

/**
 * Spelling defaults, in one place. A word is fixed only when no passage holds it and it is no
 * English word (neither WordNet nor the `word-list` package's 275,000 words know it: a paraphrase's
 * "hogging" is left to the synonyms, not turned into "logging", and "threw", an inflection WordNet's
 * base forms miss, is not "three"); the fix is a word of the vault within this many edits of it
 * that begins with the same letter, as most typos do ("laggy" is not "maggie").
 */
export const SPELLING_DEFAULTS = {
  /** Words shorter than this are never fixed ("teh" has too many neighbours to pick from). */
  minLength: 4,
  /** Edits allowed in a word shorter than `longFrom` letters ("cuont" → "count"). */
  edits: 1,
  /** From this many letters one more edit is allowed ("aproximatly" → "approximately"). */
  longFrom: 8,
  /** Words of the vault within reach that are weighed against each other (the store gives at most 20). */
  candidates: 10,
  /**
   * What an edit costs a fix, against the natural log of the passages that hold it: a word two edits
   * away wins over one a single edit away only when e^1.5 ≈ 4.5 times as many passages hold it.
   */
  editCost: 1.5,
  /**
   * What each letter typed and dropped by the fix costs: a typist misses a letter more often than
   * adding a stray one, so "mutx" is "mutex" (a letter missed) before "mut" (an "x" thrown away)
   * unless e ≈ 2.7 times as many passages hold "mut".
   */
  dropCost: 1,
};
export type SpellingOptionsWithDefaults = typeof SPELLING_DEFAULTS;

let english: string | undefined;
let englishProblem = false;

/**
 * Whether a word is one of the `word-list` package's 275,000 English words, or undefined when the
 * list cannot be read. The list (2.8 MB, a word a line) is read once and searched as text: a few ms
 * a word, where a Set of its words took 300 ms and 30 MB to build.
 */
function isEnglish(word: string): boolean | undefined {
  if (english === undefined && !englishProblem)
    try {
      english = `\n${fs.readFileSync(wordListPath, "utf8")}\n`;
    } catch {
      englishProblem = true;
    }
  return english === undefined ? undefined : english.includes(`\n${word}\n`);
}

/** A word of the question that no passage holds, and the vault's word it was read as. */
export interface SpellingFix {
  from: string;
  to: string;
}

/**
 * The question's misspelt words and their fixes: each word of plain letters that no passage holds
 * and that is no English word ({@link SPELLING_DEFAULTS}), read as the vault's word closest in
 * spelling with the same first letter, weighed by how often the vault uses it ({@link likeliest}).
 * Without WordNet or the word list nothing is fixed: a real word could not be
 * told from a typo.
 *
 * @example
 * ```ts
 * await spellingFixes(store, "aproximate cuont of rows", sharedWordNet());
 * // [{ from: "aproximate", to: "approximate" }, { from: "cuont", to: "count" }]
 * ```
 */
export async function spellingFixes(
  store: Store,
  question: string,
  wn: WordNet | undefined,
  o: SpellingOptionsWithDefaults = SPELLING_DEFAULTS,
): Promise<SpellingFix[]> {
  if (!wn) return [];
  const words = [...new Set(typedWords(question))].filter((w) => w.length >= o.minLength && !STOPWORDS.has(w));
  if (!words.length) return [];
  const { counts } = await store.keywordStats(words, { cap: 1 });
  const fixes: SpellingFix[] = [];
  for (const [i, w] of words.entries()) {
    if (counts[i] > 0 || baseForms(wn, w).length) continue;
    const edits = w.length >= o.longFrom ? o.edits + 1 : o.edits;
    const best = likeliest(w, await store.keywordSpellings(w, edits, { sameStart: true, limit: o.candidates }), o);
    // the word list last: read only when a word of the vault is near enough to be the fix
    if (best && isEnglish(w) === false) fixes.push({ from: w, to: best.word });
  }
  return fixes;
}

/**
 * The fix most likely meant by a typed word, of the vault's words spelled like it: the one with the
 * best `ln(1 + passages that hold it) − editCost × edits − dropCost × letters typed and dropped`,
 * so how often the vault uses a word counts beside how near it is ("mutx" reads as "mutex", used in
 * several notes, not as "mut"). Ties go to the fewer edits, then the order the store gave.
 *
 * @example
 * ```ts
 * likeliest("mutx", [{ word: "mut", chunks: 2, edits: 1 }, { word: "mutex", chunks: 2, edits: 1 }]); // the "mutex" one
 * ```
 */
export function likeliest(
  typed: string,
  spellings: readonly Spelling[],
  o: Pick<SpellingOptionsWithDefaults, "editCost" | "dropCost"> = SPELLING_DEFAULTS,
): Spelling | undefined {
  let best: Spelling | undefined;
  let bestScore = -Infinity;
  for (const s of spellings) {
    const score = Math.log1p(s.chunks) - o.editCost * s.edits - o.dropCost * Math.max(0, typed.length - s.word.length);
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  return best;
}

/**
 * The words of a question that may be misspelt, lower-cased: its tokens as the keyword index
 * reads them ({@link typedTokens}) that are plain letters, typed in lower case, or capitalised as
 * the question's first word. A word with a capital elsewhere is a name or an acronym, not a typo
 * ("RUNX", "OmpA", "Ketel": SciFact's genes and proteins, which a vault of other papers lacks).
 */
function typedWords(question: string): string[] {
  return typedTokens(question).flatMap((w, i) => {
    const lower = w.toLowerCase();
    return /^[a-z]+$/.test(lower) && (w === lower || (i === 0 && w === w[0] + lower.slice(1))) ? [lower] : [];
  });
}

/**
 * The question with each fixed word in its place, for the keyword index ("aproximate cuont" →
 * "approximate count"); every other character as typed.
 *
 * @example
 * ```ts
 * withFixes("Aproximate cuont", [{ from: "aproximate", to: "approximate" }]); // "approximate cuont"
 * ```
 */
export function withFixes(question: string, fixes: SpellingFix[]): string {
  if (!fixes.length) return question;
  const to = new Map(fixes.map((f) => [f.from, f.to]));
  return question.normalize("NFKC").replace(/\p{L}+/gu, (w) => to.get(w.toLowerCase()) ?? w);
}

/**
 * What a search says when it read misspelt words as the vault's words.
 *
 * @example
 * ```ts
 * spellingNotice([{ from: "cuont", to: "count" }]);
 * // 'no passage holds the word "cuont" — searched for "count" instead'
 * ```
 */
export function spellingNotice(fixes: SpellingFix[]): string {
  const list = (xs: string[], and: string) =>
    xs.length === 1 ? xs[0] : `${xs.slice(0, -1).join(", ")} ${and} ${xs.at(-1)}`;
  const from = list(
    fixes.map((f) => JSON.stringify(f.from)),
    "or",
  );
  const to = list(
    fixes.map((f) => JSON.stringify(f.to)),
    "and",
  );
  return `no passage holds the word${fixes.length > 1 ? "s" : ""} ${from} — searched for ${to} instead`;
}
