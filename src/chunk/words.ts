// Word counting for chunk sizes, and for the cap on a search query's words: no imports, so a search
// can use it without loading the chunker (which brings the Markdown parser).

/** Whether a UTF-16 code unit is whitespace as `\s` and `String.prototype.trim` see it. */
export function isSpace(c: number): boolean {
  if (c > 32 && c < 0xa0) return false; // printable ASCII and C1 controls: the common case first
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x3000 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0xfeff ||
    c === 0x1680
  );
}

/**
 * Whether a UTF-16 code unit is a Chinese or Japanese character (Han, Hiragana, Katakana, also
 * half-width), the scripts written without spaces between words. Korean spaces its words.
 */
export function isCjk(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff66 && c <= 0xff9f)
  );
}

/** Whether a high surrogate starts a Han character beyond the BMP (U+20000–U+3FFFF, the CJK extensions B on). */
export function isAstralHan(c: number): boolean {
  return c >= 0xd840 && c <= 0xd8bf;
}

/** Whether a code unit is Chinese or Japanese punctuation (`、。「」`, full-width `！？（）：`), which is no word. */
export function isCjkPunctuation(c: number): boolean {
  return (c >= 0x3000 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20);
}

/**
 * Number of words in a text: whitespace-separated words, and in Chinese or Japanese (beyond the BMP too), which have no
 * spaces, one word per two characters (a reader's measure: 200 words of English hold about as much
 * as 400 characters of Japanese); their punctuation is no word. With `limit`, counting stops once it
 * is passed (a 5 MB unit need not be counted to know it must be split).
 *
 * @example
 * ```ts
 * countWords("two  words\n"); // 2
 * countWords("醤油ラーメン is good"); // 5: three for six characters, two English words
 * ```
 */
export function countWords(text: string, limit = Infinity): number {
  let n = 0;
  let inWord = false;
  let cjkRun = 0; // characters of the current Chinese or Japanese run
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x3000 && c <= 0xff9f && (isCjk(c) || isAstralHan(c))) {
      if (c >= 0xd800) i++; // the low surrogate of the same character
      inWord = false;
      if (cjkRun++ % 2 === 0 && ++n > limit) return n;
      continue;
    }
    cjkRun = 0;
    if (isSpace(c) || (c >= 0x3000 && isCjkPunctuation(c))) inWord = false;
    else if (!inWord) {
      inWord = true;
      if (++n > limit) return n;
    }
  }
  return n;
}

/**
 * The last `n` words of a text joined by single spaces, and whether that is every word of it
 * (`text.split(/\s+/).filter(Boolean).slice(-n).join(" ")` without splitting the whole text).
 *
 * @example
 * ```ts
 * lastWords("one two\n three", 2); // { tail: "two three", count: 2, all: false }
 * ```
 */
export function lastWords(text: string, n: number): { tail: string; count: number; all: boolean } {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  let at = end;
  let count = 0;
  while (count < n && at > 0) {
    while (at > 0 && !isSpace(text.charCodeAt(at - 1))) at--;
    count++;
    while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
  }
  // `at` sits after the whitespace before the first tail word, or at 0
  let start = at;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  const raw = text.slice(start, end);
  let single = true;
  for (let i = 0; i < raw.length && single; i++) {
    const c = raw.charCodeAt(i);
    if (isSpace(c) && (c !== 32 || isSpace(raw.charCodeAt(i + 1)))) single = false;
  }
  return { tail: single ? raw : raw.split(/\s+/).join(" "), count, all: at === 0 };
}
