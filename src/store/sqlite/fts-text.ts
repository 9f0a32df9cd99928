import type Database from "better-sqlite3";
import { cjkBigrams, hasCjk } from "../../shared/cjk.js";
import { plainlyEnglish, stemmingLanguage, stemText } from "../language.js";
import { decodeList } from "./compile.js";

/**
 * What FTS5 indexes for a field, as SQL's `vr_fts` gives it (the 'delete' command must be given
 * exactly the same values): NFKC, as queries are read ("ﬁle" copied from a PDF is "file", "Ｗｉｄｅ"
 * is "Wide"), and CJK bigrams. Writers that bind the indexed text call it themselves, sparing SQLite
 * a call back into JavaScript per field.
 *
 * @example
 * ```ts
 * ftsText("ﬁle 醤油"); // "file  醤油 "
 * ```
 */
export function ftsText(text: unknown, lang?: string): string {
  return stemText(cjkBigrams(String(text ?? "").normalize("NFKC")), lang);
}

/**
 * What FTS5 indexes in the `aliases` field, as SQL's `vr_fts_names` gives it: the aliases as
 * {@link ftsText} reads them, then each name of two or more words (the title and each alias)
 * written joined, whole and by adjacent pairs, so a question that writes the name joined finds it
 * ("graycode" for `Gray Code`, "flipflop" for `D-Flip-Flop`); the other way round, a question's
 * adjacent words are joined at query time (see fts-query.ts `joinedPairs`).
 *
 * @example
 * ```ts
 * ftsNames("D-Flip-Flop", "", undefined); // " dflipflop dflip flipflop"
 * ```
 */
export function ftsNames(title: unknown, aliases: unknown, lang?: string): string {
  const names = [String(title ?? ""), ...decodeList(String(aliases ?? ""))];
  const joined = new Set<string>();
  for (const name of names) {
    const words = name.normalize("NFKC").toLowerCase().match(NAME_WORD) ?? [];
    if (words.length < 2 || words.length > MAX_JOINED_WORDS) continue;
    joined.add(words.join(""));
    for (let i = 0; i + 1 < words.length; i++) joined.add(words[i] + words[i + 1]);
  }
  const extra = [...joined].filter((w) => !hasCjk(w));
  return ftsText(aliases, lang) + (extra.length ? " " + stemText(extra.join(" "), lang) : "");
}

/** A word of a note's name, as FTS5's unicode61 splits it. */
const NAME_WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Names of more words than this are sentences, not names: nothing is joined. */
const MAX_JOINED_WORDS = 5;

/** The last passage judged by {@link passageLanguage}: a note's fields are read several times in a row. */
let lastPassage: { key: string; lang: string | undefined } | undefined;

/**
 * The language the keyword index stems a passage by ({@link stemmingLanguage}): told from its
 * title, breadcrumb and text together, and only when its text holds at least {@link MIN_LANGUAGE_WORDS}
 * words (fewer are too easily taken for another language: `# 123 | Bob | Burger flipper`).
 *
 * @example
 * ```ts
 * passageLanguage("Kette", "Fahrrad reparieren", "Die Kette alle 300 km ölen …"); // "de"
 * ```
 */
export function passageLanguage(title: string, section: string, text: string): string | undefined {
  const told = primedLanguage(title, section, text);
  if (told) {
    if (told.lang) languagesSeen.add(told.lang);
    return told.lang;
  }
  const key = `${title}\u0000${section}\u0000${text}`;
  if (lastPassage?.key === key) return lastPassage.lang;
  const all = `${title}\n${section}\n${text}`;
  const detect = hasWords(text, MIN_LANGUAGE_WORDS) && !plainlyEnglish(all);
  if (detect) detectorPassages++;
  const lang = detect ? stemmingLanguage(all) : undefined;
  lastPassage = { key, lang };
  if (lang) languagesSeen.add(lang);
  return lang;
}

/** A passage's language told ahead of its write ({@link primePassageLanguages}). */
export interface ToldLanguage {
  title: string;
  section: string;
  text: string;
  lang: string | undefined;
}

/** The languages of a batch's passages told ahead of its write, in the order it writes them; `primedAt` the next. */
let primed: readonly ToldLanguage[] | undefined;
let primedAt = 0;

/**
 * A passage's language as {@link primePassageLanguages} told it: the next passage told, or the
 * last again (the writer's own strings, compared by reference at no cost). Another passage is
 * read as ever.
 */
function primedLanguage(title: string, section: string, text: string): ToldLanguage | undefined {
  if (!primed) return undefined;
  const same = (p: ToldLanguage | undefined) => p && p.text === text && p.title === title && p.section === section;
  if (same(primed[primedAt])) return primed[primedAt++];
  return same(primed[primedAt - 1]) ? primed[primedAt - 1] : undefined;
}

/** Passages {@link passageLanguage} gave to the detector in this process (not plainly English). */
let detectorPassages = 0;

/**
 * How many passages {@link passageLanguage} has given to the language detector in this thread:
 * the rest were too short or plainly English.
 */
export function detectorPassageCount(): number {
  return detectorPassages;
}

/**
 * Tells {@link passageLanguage} the languages of the passages about to be written, in the order
 * they are written, each as it gave it (language-thread.ts tells them, part on a thread of its
 * own): it answers from them instead of reading each passage again, and adds them to the languages
 * seen as it answers. `undefined` forgets them (each call replaces the last's).
 *
 * @example
 * ```ts
 * primePassageLanguages([{ title: "Kette", section: "Fahrrad", text: "Die Kette alle 300 km ölen …", lang: "de" }]);
 * ```
 */
export function primePassageLanguages(passages: readonly ToldLanguage[] | undefined): void {
  primed = passages;
  primedAt = 0;
}

/** Whether a text holds at least `n` words of two letters or more (counted up to `n`). */
function hasWords(text: string, n: number): boolean {
  WORD2.lastIndex = 0;
  for (let i = 0; i < n; i++) if (!WORD2.exec(text)) return false;
  return true;
}

const WORD2 = /\p{L}{2,}/gu;

/** Every language {@link passageLanguage} gave in this process: what {@link recordLanguages} adds to an index. */
const languagesSeen = new Set<string>();

/**
 * Adds to the index's record of the languages its passages are stemmed by (`meta.keyword_languages`)
 * those this process has stemmed. A language whose passages are all deleted stays listed: a query in
 * it is stemmed as its passages would be, and matches what it would have.
 *
 * @example
 * ```ts
 * db.transaction(() => { rebuildKeywordIndex(db); recordLanguages(db); }).immediate();
 * ```
 */
export function recordLanguages(db: Database.Database): void {
  const had = indexLanguages(db);
  const all = [...new Set([...had, ...languagesSeen])].sort();
  if (all.length === had.length) return;
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('keyword_languages', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(all.join(" "));
}

/**
 * The languages the index stems passages by ({@link recordLanguages}): a question in another is
 * read by FTS5's Porter stemmer alone, as an English one ("Manteigaria pastéis de nata", told as
 * Portuguese, in a vault of English notes).
 *
 * @example
 * ```ts
 * indexLanguages(db); // ["de", "fr"]
 * ```
 */
export function indexLanguages(db: Database.Database): string[] {
  const v = db.prepare("SELECT value FROM meta WHERE key = 'keyword_languages'").pluck().get() as string | undefined;
  return v ? v.split(" ").filter(Boolean) : [];
}

/** Fewer words of letters than this, and a passage is not stemmed by a language of its own. */
export const MIN_LANGUAGE_WORDS = 8;
