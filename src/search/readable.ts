import { searchProfile } from "../embed/profiles.js";
import { STOPWORDS, typedTokens } from "../store/index.js";
import { readableWordNet } from "./expand.js";
import { baseForms, type WordNet } from "./wordnet.js";

/**
 * What the bundled model can read: related notes (docs/decisions/related-notes.md) and the dense
 * half of a search (docs/decisions/unreadable-passages.md) read what it cannot by its words.
 */
export const READABLE_DEFAULTS = {
  /** Below this share of English words (stopwords or words WordNet knows), the English-only model cannot read a text. */
  englishShare: 0.5,
  /** Fewer words than this (code and acronyms left out) say too little to judge: the text counts as readable. */
  minWords: 5,
};

/** CJK ideographs, kana and hangul: text the bundled model has no tokens for. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

const ANY_CJK = new RegExp(CJK.source, "u");

/** Fenced code blocks and inline code: no language to read, whatever words they hold. */
const CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))|`[^`\n]+`/gm;

/** Text of ASCII characters alone: NFKC leaves it as it is, and its letters and digits are `[A-Za-z0-9]`. */
// eslint-disable-next-line no-control-regex -- every ASCII character, control characters too
const ASCII = /^[\x00-\x7f]*$/;
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
  const { languages } = searchProfile(model);
  return languages !== "any" && languages.length === 1 && languages[0] === "en";
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
  if (!readsEnglishOnly(model)) return false;
  const prose = text.replace(CODE, " ");
  const ascii = ASCII.test(prose);
  if (!ascii && ANY_CJK.test(prose)) {
    const letters = prose.replace(/[^\p{L}]/gu, "");
    if ((letters.match(CJK)?.length ?? 0) > letters.length / 2) return true;
  }
  const wn = readableWordNet();
  if (!wn) return false;
  const words = ascii ? asciiWords(prose) : unicodeWords(prose);
  if (words.length < o.minWords) return false;
  // each word a stopword (a set lookup) or a word WordNet knows (remembered by word), in the text's
  // order, until the count decides either way: the answer is the whole count's, whatever the order
  const need = o.englishShare * words.length;
  const most = words.length - need;
  let english = 0;
  let other = 0;
  for (const w of words) {
    if (STOPWORDS.has(w) || isEnglish(wn, w)) {
      if (++english >= need) break;
    } else if (++other > most) break;
  }
  return english < need;
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
  if (!readsEnglishOnly(model)) return out;
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
