/** Runs of Chinese, Japanese and Korean characters (which have no spaces between words). */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+/gu;

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
