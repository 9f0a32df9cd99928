import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { hasCjk } from "../shared/cjk.js";

/**
 * The language of a text and the Snowball stem of a word in it: the keyword index stems a passage's
 * words by its language, and a question's by its own (docs/decisions/languages.md).
 *
 * Detection is `eld` (its extra-small n-gram set), chosen over `tinyld` and `franc-min` for its
 * accuracy on short questions; stems are `@orama/stemmers`, the Snowball algorithms compiled to
 * JavaScript. English is left to FTS5's own Porter stemmer, which every field already passes through.
 */

const require = createRequire(import.meta.url);

/** Snowball stemmers by the ISO 639-1 code `eld` gives, as `@orama/stemmers` names them. English is FTS5's Porter. */
const SNOWBALL: Readonly<Record<string, string>> = {
  da: "danish",
  de: "german",
  es: "spanish",
  fi: "finnish",
  fr: "french",
  it: "italian",
  nl: "dutch",
  no: "norwegian",
  pt: "portuguese",
  ru: "russian",
  sv: "swedish",
};

/** The languages whose words the keyword index stems itself (English is stemmed by FTS5's Porter). */
export const STEMMED_LANGUAGES: readonly string[] = Object.keys(SNOWBALL);

/**
 * Whether the keyword index stems a language itself ({@link STEMMED_LANGUAGES}).
 *
 * @example
 * ```ts
 * isStemmedLanguage("de"); // true
 * isStemmedLanguage("en"); // false: FTS5's Porter
 * ```
 */
export function isStemmedLanguage(lang: string | undefined): boolean {
  return lang !== undefined && Object.hasOwn(SNOWBALL, lang);
}

interface Detector {
  detect(text: string): { language: string; isReliable(): boolean };
}

let detector: Detector | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the language detector (`eld`, an ES module: it cannot be loaded in the middle of a
 * synchronous SQL function). Index writers and searches await it before they read a language;
 * once per process.
 *
 * @example
 * ```ts
 * await loadLanguageDetector();
 * detectLanguage("Wie funktioniert ein D-Flip-Flop"); // "de"
 * ```
 */
export function loadLanguageDetector(): Promise<void> {
  loading ??= import("eld/extrasmall").then((m: { eld: Detector }) => {
    detector = m.eld;
  });
  return loading;
}

/** The versions of the detector and stemmers: a rule of the keyword index's text (KEYWORD_TEXT_RULES). */
export const LANGUAGE_TOOLS = `eld ${versionOf(fileURLToPath(import.meta.resolve("eld/extrasmall")))} stemmers ${versionOf(
  require.resolve("@orama/stemmers/german"),
)}`;

/** The version in the nearest package.json above a package's file (neither package exports its package.json). */
function versionOf(file: string): string {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const p = path.join(dir, "package.json");
    if (fs.existsSync(p)) return (JSON.parse(fs.readFileSync(p, "utf8")) as { version: string }).version;
  }
  return "unknown";
}

/** Fenced code blocks and inline code: no language to read, whatever words they hold. */
const CODE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\n]*$|(?![\s\S]))|`[^`\n]+`/gm;

/** Characters of a passage read to tell its language (more cost time and change nothing, measured on the dev sets). */
const DETECT_CHARS = 2000;

/**
 * The ISO 639-1 code of a text's language, or `undefined` when the detector cannot tell reliably
 * (a word or two, code, names). Code blocks and inline code are left out. Throws when
 * {@link loadLanguageDetector} has not finished: a guess made without it would differ from one
 * made with it, and the keyword index must read a text the same way every time.
 *
 * @example
 * ```ts
 * detectLanguage("Wie funktioniert ein D-Flip-Flop"); // "de"
 * detectLanguage("DRV8833"); // undefined
 * ```
 */
export function detectLanguage(text: string): string | undefined {
  if (!detector) throw new Error("vault-rag: the language detector is not loaded (loadLanguageDetector)");
  const prose = text.replace(CODE, " ").slice(0, DETECT_CHARS);
  if (!/\p{L}/u.test(prose)) return undefined;
  const r = detector.detect(prose);
  return r.language && r.isReliable() ? r.language : undefined;
}

/**
 * Words common in English prose and rare in the other languages the index stems (no "in", "an",
 * "was", "will" or "die", which German, Dutch or Scandinavian prose also writes).
 */
const ENGLISH_MARKERS = new Set(
  "the and of to is that it for with are this be by from which have you we they not or can how what when there their been has were would should could these those its into than then also".split(
    " ",
  ),
);

/** Share of {@link ENGLISH_MARKERS} among a text's words from which {@link plainlyEnglish} calls it English. */
const ENGLISH_SHARE = 0.1;

/** Characters of a text {@link plainlyEnglish} reads. */
const ENGLISH_CHARS = 1000;

/**
 * Whether a text is plainly English: at least 8 words outside code, of which one in ten or more is
 * an English function word ({@link ENGLISH_MARKERS}). Hand-written because it measurably wins: on the
 * passages of til, SciFact train, examples/vault, the German fixture and 10,000 generated notes it
 * agrees with {@link detectLanguage} on every passage the index would stem (one SciFact abstract,
 * English under a German title, is English here and German to the detector), and it reads a
 * passage in a sixth of the detector's time. The keyword index asks it first, so English passages
 * skip the detector (docs/decisions/languages.md).
 *
 * @example
 * ```ts
 * plainlyEnglish("Oil the chain every 300 km and check it for wear"); // true
 * plainlyEnglish("Die Kette alle 300 km ölen und den Verschleiß messen"); // false
 * ```
 */
export function plainlyEnglish(text: string): boolean {
  const prose = text.slice(0, ENGLISH_CHARS).replace(CODE, " ");
  let words = 0;
  let markers = 0;
  WORD.lastIndex = 0;
  for (let m = WORD.exec(prose); m; m = WORD.exec(prose)) {
    words++;
    if (m[0].length <= MAX_MARKER_LENGTH && ENGLISH_MARKERS.has(m[0].toLowerCase())) markers++;
  }
  return words >= 8 && markers >= words * ENGLISH_SHARE;
}

/** A word of letters, as {@link plainlyEnglish} counts them. */
const WORD = /\p{L}+/gu;

/** The longest of {@link ENGLISH_MARKERS}: longer words are not looked up. */
const MAX_MARKER_LENGTH = Math.max(...[...ENGLISH_MARKERS].map((w) => w.length));

/** Whether {@link detectLanguage} can be called. */
export function languageDetectorLoaded(): boolean {
  return detector !== undefined;
}

const stemmers = new Map<string, (word: string) => string>();

/** The Snowball stemmer of a language the index stems ({@link STEMMED_LANGUAGES}), or English's, loaded on first use. */
function stemmerOf(lang: string): ((word: string) => string) | undefined {
  const name = lang === "en" ? "english" : SNOWBALL[lang];
  if (!name) return undefined;
  let s = stemmers.get(lang);
  if (!s) stemmers.set(lang, (s = (require(`@orama/stemmers/${name}`) as { stemmer: (w: string) => string }).stemmer));
  return s;
}

/**
 * The language a keyword index stems a text by: the detected language when the index stems it
 * itself, else `undefined` (English, or none told: FTS5's Porter stemmer only).
 *
 * @example
 * ```ts
 * stemmingLanguage("Die Kette alle 300 km ölen und den Verschleiß messen"); // "de"
 * stemmingLanguage("Oil the chain every 300 km"); // undefined
 * ```
 */
export function stemmingLanguage(text: string): string | undefined {
  const lang = detectLanguage(text);
  return lang && SNOWBALL[lang] ? lang : undefined;
}

/** A token as FTS5's unicode61 reads one: letters, marks and digits. */
const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * A text with each word of letters replaced by its Snowball stem in `lang` (lower case), the rest
 * as it stands: tokens with digits (`74HC595`), CJK and the spaces between tokens, so FTS5 reads
 * as many tokens at the same places. No `lang`, or one not stemmed here: the text unchanged.
 *
 * @example
 * ```ts
 * stemText("Zählern aus Flip-Flops", "de"); // "zahl aus flip-flops"
 * stemText("Zählern", undefined);          // "Zählern"
 * ```
 */
export function stemText(text: string, lang: string | undefined): string {
  const stem = lang && lang !== "en" ? stemmerOf(lang) : undefined;
  if (!stem) return text;
  return text.replace(TOKEN, (t) => (/\p{N}/u.test(t) || hasCjk(t) ? t : stem(t.toLowerCase()) || t));
}

/**
 * A lower-cased word's Snowball stem in `lang`, or in English when the index does not stem `lang`
 * itself (or none is told): for comparing a question's words with a note's name, not for the index.
 *
 * @example
 * ```ts
 * wordStem("eigenvalues", undefined); // "eigenvalu"
 * wordStem("zählern", "de");          // "zahl"
 * ```
 */
export function wordStem(word: string, lang: string | undefined): string {
  if (/\p{N}/u.test(word) || hasCjk(word)) return word;
  const stem = stemmerOf(lang && SNOWBALL[lang] ? lang : "en")!;
  return stem(word) || word;
}

const stopwordSets = new Map<string, ReadonlySet<string>>();

/**
 * The question words the Snowball lists leave out (they are made for documents, not questions):
 * "wann" names no topic, as "when" does not in English (STOPWORDS). Spanish's list holds them all.
 */
const QUESTION_WORDS: Readonly<Record<string, readonly string[]>> = {
  de: ["wann", "warum", "wieso", "weshalb", "wozu", "woher", "wohin", "wer", "wen", "wem", "wessen"],
  fr: ["quand", "pourquoi", "comment", "où", "quoi", "combien"],
  it: ["quando", "cosa"],
  pt: ["porque", "onde", "quanto"],
  nl: ["wanneer", "waarom", "waar", "welke"],
};

/**
 * The stopwords of a language the index stems (`@orama/stopwords`, the lists of the Snowball
 * project, and its question words that those lists leave out), loaded on first use; an empty set
 * for any other language (English's are STOPWORDS).
 *
 * @example
 * ```ts
 * languageStopwords("de").has("ein"); // true
 * languageStopwords("de").has("wann"); // true
 * ```
 */
export function languageStopwords(lang: string | undefined): ReadonlySet<string> {
  const name = lang ? SNOWBALL[lang] : undefined;
  if (!lang || !name) return EMPTY;
  let set = stopwordSets.get(name);
  if (!set) {
    const listed = (require(`@orama/stopwords/${name}`) as { stopwords: string[] }).stopwords;
    stopwordSets.set(name, (set = new Set([...listed, ...(QUESTION_WORDS[lang] ?? [])])));
  }
  return set;
}

const EMPTY: ReadonlySet<string> = new Set();
