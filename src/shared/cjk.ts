/**
 * How the keyword index reads Chinese, Japanese and Korean: as overlapping character bigrams. Shared
 * by the index, its queries and the highlighting of hits (in the CLI and in the web app), so a
 * snippet marks the bigrams a hit was found by. No Node and no imports: the web build compiles it.
 */

/** Runs of Chinese, Japanese and Korean characters (which have no spaces between words). */
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+/gu;

/**
 * Rewrites CJK runs as overlapping character bigrams, so that a word inside a run is findable: the
 * unicode61 tokenizer would otherwise index "醤油ラーメン" as one token and never match "ラーメン".
 * Applied to every indexed field and to queries alike.
 *
 * @example
 * ```ts
 * cjkBigrams("醤油ラーメン is good"); // " 醤油 油ラ ラー ーメ メン  is good"
 * ```
 */
export function cjkBigrams(text: string): string {
  if (!text) return text;
  return text.replace(CJK_RUN, (run) => {
    const chars = Array.from(run);
    if (chars.length === 1) return ` ${run} `;
    const grams: string[] = [];
    for (let i = 0; i + 1 < chars.length; i++) grams.push(chars[i] + chars[i + 1]);
    return ` ${grams.join(" ")} `;
  });
}

/** True when a token holds CJK characters. */
export function hasCjk(token: string): boolean {
  CJK_RUN.lastIndex = 0;
  return CJK_RUN.test(token);
}

/** Hiragana (U+3040–U+309F): in Japanese, mostly the particles and endings between words. */
const HIRAGANA = /^[\u3040-\u309f]+$/;
/** The script of a character, as far as a bigram's sense goes: hiragana, katakana (with ー) or other. */
const scriptOf = (c: string) => (/[\u3040-\u309f]/.test(c) ? 1 : /[\u30a0-\u30ff\uff66-\uff9f]/.test(c) ? 2 : 0);

/**
 * A CJK run's bigrams as a query ranks by them: those within one script and not hiragana alone.
 * "から" or "には" (particles), "トか" or "ら復" (across a word's edge) would match nearly any
 * Japanese note; "京都から東京へ" ranks by 京都 and 東京. When nothing else is left, all of them.
 *
 * @example
 * ```ts
 * queryBigrams("京都から東京へ"); // ["京都", "東京"]
 * ```
 */
export function queryBigrams(token: string): string[] {
  const grams = cjkBigrams(token).trim().split(/\s+/);
  const kept = grams.filter((g) => {
    const chars = Array.from(g);
    if (chars.length !== 2) return true; // a word beside the run, or a one-character run
    return !HIRAGANA.test(g) && scriptOf(chars[0]) === scriptOf(chars[1]);
  });
  return kept.length ? kept : grams;
}
