import { searchProfile } from "../embed/profiles.js";
import { STOPWORDS, typedTokens } from "../store/index.js";
import { readableWordNet } from "./expand.js";
import { detectLanguage, languageDetectorLoaded, loadLanguageDetector } from "../store/language.js";
import { baseForms, type WordNet } from "./wordnet.js";
import { isAscii } from "../shared/ascii.js";

/**
 * What the bundled model can read: related notes (docs/decisions/related-notes.md) and the dense
 * half of a search (docs/decisions/unreadable-passages.md) read what it cannot by its words.
 */
export const READABLE_DEFAULTS = {
  /** Below this share of English words (stopwords or words WordNet knows), the English-only model cannot read a text. */
  englishShare: 0.5,
  /** Fewer words than this (code and acronyms left out) say too little to judge: the text counts as readable. */
  minWords: 5,
  /**
   * Below this share of English words, a passage the language detector reliably reads as a
   * language the model does not rank is not read either (docs/decisions/languages.md).
   */
  detectedShare: 0.7,
};

/** CJK ideographs, kana and hangul: text the bundled model has no tokens for. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

const ANY_CJK = new RegExp(CJK.source, "u");

/** Fenced code blocks and inline code: no language to read, whatever words they hold. */
const CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))|`[^`\n]+`/gm;

/** `typedTokens`' token rule, for ASCII text (the typographic apostrophe is not ASCII). */
const ASCII_TOKEN = /[A-Za-z0-9]+(?:['\-_.][A-Za-z0-9]+)*/g;
/** A word as {@link modelCannotRead} counts it: letters, lower case after the first (not "GPIO", "iPhone"). */
const ASCII_WORD = /^[A-Za-z][a-z]+$/;

/** The lower-cased words of a text that {@link modelCannotRead} counts, from its tokens as the keyword index reads them. */
function unicodeWords(prose: string): string[] {
  return typedTokens(prose)
    .filter((w) => /^\p{L}\p{Ll}+$/u.test(w))
    .map((w) => w.toLowerCase());
}

/** {@link unicodeWords} of an ASCII text, the same words without the Unicode-aware regular expressions (a third of the time). */
function asciiWords(prose: string): string[] {
  const out: string[] = [];
  for (const w of prose.match(ASCII_TOKEN) ?? []) if (ASCII_WORD.test(w)) out.push(w.toLowerCase());
  return out;
}

/** Whether a word is English, by word (most words recur across passages; bounded). */
const englishWords = new Map<string, boolean>();

function isEnglish(wn: WordNet, word: string): boolean {
  let known = englishWords.get(word);
  if (known === undefined) {
    // a word WordNet knows as it stands needs no look-up of its base forms
    known = STOPWORDS.has(word) || wn.has(word) || baseForms(wn, word).length > 0;
    if (englishWords.size >= 50_000) englishWords.clear();
    englishWords.set(word, known);
  }
  return known;
}

/**
 * Whether the index's model ranks English only, by its profile ({@link searchProfile}'s
 * `languages`): the models {@link modelCannotRead} judges (the bundled one, all-MiniLM-L6-v2).
 *
 * @example
 * ```ts
 * readsEnglishOnly("universal-sentence-encoder-lite"); // true
 * readsEnglishOnly("nomic-embed-text"); // false
 * ```
 */
export function readsEnglishOnly(model: string): boolean {
  const languages = modelLanguages(model);
  return languages !== "any" && languages.length === 1 && languages[0] === "en";
}

/**
 * The languages the index's model ranks, by its profile ({@link searchProfile}), or `any`: passages
 * and questions in others are ranked by their words.
 *
 * @example
 * ```ts
 * modelLanguages("universal-sentence-encoder-lite"); // ["en"]
 * ```
 */
export function modelLanguages(model: string): readonly string[] | "any" {
  return searchProfile(model).languages;
}

/**
 * Whether the index's model cannot read a text: its model ranks English only ({@link readsEnglishOnly}) and
 * under `englishShare` of the text's words are English (stopwords or words WordNet knows), or most
 * of its letters are CJK. Code (fenced or inline) and words written with a capital after their first
 * letter (acronyms such as "GPIO", names such as "iPhone") are no language and are not counted; with
 * fewer than `minWords` words left the text counts as readable. Any other model is trusted to read
 * what it was given.
 *
 * @example
 * ```ts
 * modelCannotRead("universal-sentence-encoder-lite", "Il protocollo TCP garantisce la consegna dei pacchetti"); // true
 * modelCannotRead("universal-sentence-encoder-lite", "TCP resends the packets the other side did not acknowledge"); // false
 * ```
 */
export function modelCannotRead(model: string, text: string, o = READABLE_DEFAULTS): boolean {
  const languages = modelLanguages(model);
  if (languages === "any") return false;
  const prose = text.replace(CODE, " ");
  const ascii = isAscii(prose);
  if (!ascii && ANY_CJK.test(prose)) {
    const letters = prose.replace(/[^\p{L}]/gu, "");
    if ((letters.match(CJK)?.length ?? 0) > letters.length / 2) return true;
  }
  const wn = readableWordNet();
  if (!wn) return false;
  const words = proseWords(prose);
  if (words.length < o.minWords) return false;
  const share = englishShare(wn, words, o.detectedShare);
  if (share < o.englishShare) return true;
  // a passage the detector reliably reads as a language the model does not rank, with fewer English
  // words than `detectedShare` (German shares many words with English: "die", "was", "also", "hat")
  if (share >= o.detectedShare || !languageDetectorLoaded()) return false;
  const lang = detectLanguage(prose);
  return lang !== undefined && lang !== "en" && !languages.includes(lang);
}

/**
 * Words of prose: acronyms ("GPIO") and names written with a capital inside ("iPhone") left out,
 * lower-cased; from the tokens as the keyword index reads them (ASCII text without the Unicode-aware
 * regular expressions: the same words in a third of the time).
 */
function proseWords(prose: string): string[] {
  return isAscii(prose) ? asciiWords(prose) : unicodeWords(prose);
}

/**
 * The share of `words` that are English (stopwords, or words WordNet knows), counted until it
 * reaches `enough` (then `enough` is returned): stopwords first, then the other words, the most
 * frequent first.
 */
function englishShare(wn: WordNet, words: string[], enough: number): number {
  if (!words.length) return 1;
  const need = enough * words.length;
  let english = 0;
  const rest = new Map<string, number>();
  for (const w of words) {
    if (STOPWORDS.has(w)) english++;
    else rest.set(w, (rest.get(w) ?? 0) + 1);
  }
  for (const [w, n] of [...rest].sort((a, b) => b[1] - a[1])) {
    if (english >= need) return enough;
    if (isEnglish(wn, w)) english += n;
  }
  return Math.min(enough, english / words.length);
}

/**
 * The language of a question, as far as search needs it: what the detector reliably tells
 * ({@link detectLanguage}), unless half its words or more are English (stopwords or words WordNet
 * knows: "resistor colours" is English, however the detector reads two words). `undefined` when
 * it cannot tell, and for one word that is not English. Loads the detector on first use, unless
 * `held` (the languages the index stems, its `keywordLanguages`) is given and empty: in an index
 * of English passages no question is stemmed, so a question half English or more is English and
 * any other is not told, and the detector's load (a quarter of a second of CPU) is spared.
 *
 * @example
 * ```ts
 * await questionLanguage("Wie funktioniert ein D-Flip-Flop"); // "de"
 * await questionLanguage("Wie funktioniert ein D-Flip-Flop", []); // undefined: no German passage
 * await questionLanguage("resistor colours"); // "en"
 * await questionLanguage("DRV8833"); // undefined
 * ```
 */
export async function questionLanguage(question: string, held?: readonly string[]): Promise<string | undefined> {
  const wn = readableWordNet();
  const words = proseWords(question.replace(CODE, " "));
  // no word of prose (codes, acronyms) tells nothing; English words only are English: neither
  // needs the detector, which a search in English then does not load
  if (!words.length) return undefined;
  const share = wn ? englishShare(wn, words, 1) : 0;
  if (share === 1 && isAscii(question)) return "en";
  // one word is too little to tell a language by ("affordances" reads as French)
  if (words.length < 2) return undefined;
  if (held?.length === 0) return share >= READABLE_DEFAULTS.englishShare ? "en" : undefined;
  await loadLanguageDetector();
  const lang = detectLanguage(question);
  if (!lang || lang === "en") return lang;
  return share >= READABLE_DEFAULTS.englishShare ? "en" : lang;
}

/**
 * Whether the index's model cannot read a question: one in a language its profile does not list
 * (`language` from {@link questionLanguage}) that the vault's passages are written in (`held`: the
 * index's `keywordLanguages`; "Manteigaria pastéis de nata", told as Portuguese in a
 * vault of English notes, is a name the model reads well enough), or one {@link modelCannotRead}
 * judges so.
 *
 * @example
 * ```ts
 * questionUnread("universal-sentence-encoder-lite", "Wie funktioniert ein D-Flip-Flop", "de", ["de"]); // true
 * ```
 */
export function questionUnread(
  model: string,
  question: string,
  language: string | undefined,
  held: readonly string[],
): boolean {
  const languages = modelLanguages(model);
  if (languages === "any") return false;
  if (language && language !== "en" && !languages.includes(language) && held.includes(language)) return true;
  return language !== "en" && modelCannotRead(model, question);
}

/** Passages judged, by text (a search judges the same candidates again and again; bounded by their length). */
const judged = new Map<string, boolean>();
let judgedChars = 0;
const JUDGED_CHARS = 20_000_000;

/**
 * The ids of the passages the model cannot read ({@link modelCannotRead}); a passage's text is
 * judged once per process.
 *
 * @example
 * ```ts
 * unreadPassages("universal-sentence-encoder-lite", hits); // Set { "reti/DNS.md#0-…" }
 * ```
 */
export function unreadPassages(model: string, passages: readonly { id: string; text: string }[]): Set<string> {
  const out = new Set<string>();
  if (modelLanguages(model) === "any") return out;
  for (const p of passages) {
    let unread = judged.get(p.text);
    if (unread === undefined) {
      unread = modelCannotRead(model, p.text);
      if (judgedChars + p.text.length > JUDGED_CHARS) {
        judged.clear();
        judgedChars = 0;
      }
      judged.set(p.text, unread);
      judgedChars += p.text.length;
    }
    if (unread) out.add(p.id);
  }
  return out;
}

/**
 * {@link unreadPassages}, after loading the language detector if a passage needs it: one whose
 * English share is between `englishShare` and `detectedShare`, not judged before (a search of
 * English notes then does not load it).
 *
 * @example
 * ```ts
 * await judgePassages("universal-sentence-encoder-lite", hits); // Set { "de/Kette.md#0-…" }
 * ```
 */
export async function judgePassages(
  model: string,
  passages: readonly { id: string; text: string }[],
  o = READABLE_DEFAULTS,
): Promise<Set<string>> {
  const wn = readableWordNet();
  if (wn && !languageDetectorLoaded() && modelLanguages(model) !== "any") {
    const inBand = (text: string) => {
      const words = proseWords(text.replace(CODE, " "));
      if (words.length < o.minWords) return false;
      const share = englishShare(wn, words, o.detectedShare);
      return share >= o.englishShare && share < o.detectedShare;
    };
    if (passages.some((p) => !judged.has(p.text) && inBand(p.text))) await loadLanguageDetector();
  }
  return unreadPassages(model, passages);
}
