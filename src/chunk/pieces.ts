import { countWords, isAstralHan, isCjk, isSpace } from "./words.js";

/** A piece of section text with its source lines (0-based, inclusive). */
export interface Piece {
  text: string;
  start: number;
  end: number;
  words: number;
  atomic: boolean;
  /** How this piece joins the one before it in the same chunk. */
  join: string;
  /** Where `text` lies verbatim in the body ([from, to) char offsets), or -1 when it does not. */
  from: number;
  to: number;
}

/**
 * The lines of a body as offsets into it (no array of line strings for a 5 MB note).
 *
 * @example
 * ```ts
 * const src = new Lines("# A\n\ntext");
 * src.text(2, 2); // "text"
 * ```
 */
export class Lines {
  /** Start offset of each line, plus one past the end. */
  private readonly starts: Int32Array;
  constructor(readonly body: string) {
    let n = 1;
    for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) n++;
    this.starts = new Int32Array(n + 1);
    let k = 1;
    for (let i = body.indexOf("\n"); i >= 0; i = body.indexOf("\n", i + 1)) this.starts[k++] = i + 1;
    this.starts[n] = body.length + 1;
  }
  /** Char offset where line `i` starts (for `i` = line count: one past the end). */
  offset(i: number): number {
    return this.starts[i];
  }
  /** Lines `from`..`to` (inclusive), joined by newlines as in the body. */
  text(from: number, to: number): string {
    return this.body.slice(this.starts[from], this.starts[to + 1] - 1);
  }
  /** Whether a line is empty or whitespace only. */
  blank(i: number): boolean {
    const end = this.starts[i + 1] - 1;
    for (let p = this.starts[i]; p < end; p++) {
      const c = this.body.charCodeAt(p);
      if (c === 32 || (c >= 9 && c <= 13)) continue;
      return c < 128 ? false : this.text(i, i).trim() === "";
    }
    return true;
  }
}

/** Whether a code unit is a closing quote or bracket that may follow a sentence's end mark: `"'')]」』）】`. */
const isCloser = (c: number) =>
  c === 34 || c === 39 || c === 41 || c === 93 || c === 0x300d || c === 0x300f || c === 0xff09 || c === 0x3011;

/** Whether a code unit ends a Chinese or Japanese sentence (`。`, `！`, `？`, half-width `｡`), which the next follows without a space. */
const isCjkStop = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff61;

/** Where a sentence's end in `line` stops, from just after its first mark: past more marks (`！？`, `。。。`) and closing brackets. */
function endOfStop(line: string, p: number): number {
  for (let c = line.charCodeAt(p); p < line.length; c = line.charCodeAt(++p))
    if (!isCjkStop(c) && !isCloser(c) && c !== 33 && c !== 63) break;
  return p;
}

/** Whether the word line[from, to) ends a sentence: `.`, `!`, `?`, `。`, `！` or `？`, then any closing quotes or brackets. */
function endsSentence(line: string, from: number, to: number): boolean {
  let q = to - 1;
  while (q >= from && isCloser(line.charCodeAt(q))) q--;
  if (q < from) return false;
  const c = line.charCodeAt(q);
  return c === 46 || c === 33 || c === 63 || isCjkStop(c);
}

/**
 * Turns one unit into pieces no larger than `max` words (unless atomic), appended to `out`; `table`:
 * its first two lines are a table's header. A unit within its cap is one piece; a code block or
 * table over it is cut into runs of whole lines ({@link blockPieces}), any other text at sentence
 * ends ({@link sentencePieces}).
 *
 * @example
 * ```ts
 * const out: Piece[] = [];
 * unitPieces(new Lines("One. Two."), 0, 1, false, 1, 400, out); // out: "One." and "Two."
 * ```
 */
export function unitPieces(
  src: Lines,
  from: number,
  to: number,
  atomic: boolean,
  max: number,
  maxBlock: number,
  out: Piece[],
  table = false,
): void {
  // trim blank lines at the edges so line ranges point at text
  let start = from;
  let end = to - 1;
  while (start <= end && src.blank(start)) start++;
  while (end >= start && src.blank(end)) end--;
  if (start > end) return;
  const text = src.text(start, end);
  const words = countWords(text, atomic ? maxBlock : max);
  if (words <= max || (atomic && words <= maxBlock)) {
    out.push({ text, start, end, words, atomic, join: "\n\n", from: src.offset(start), to: src.offset(end + 1) - 1 });
    return;
  }
  if (atomic) blockPieces(src, start, end, max, maxBlock, out, table);
  else sentencePieces(src, start, end, max, out);
}

/**
 * A code block or table over the cap (lines `start`..`end`, trimmed): runs of whole lines of at
 * most `max` words each; a table's later runs repeat its header and delimiter rows, so every piece
 * says what its columns are; a single line over the cap is cut between words.
 */
function blockPieces(
  src: Lines,
  start: number,
  end: number,
  max: number,
  maxBlock: number,
  out: Piece[],
  table: boolean,
): void {
  const header = table && start + 1 <= end ? src.text(start, start + 1) : undefined;
  let runStart = start;
  let runWords = 0;
  for (let i = start; i <= end + 1; i++) {
    const w = i <= end ? countWords(src.text(i, i), maxBlock) : 0;
    if (i > end || (runWords > 0 && runWords + w > max) || w > maxBlock) {
      if (runWords > 0 || i > runStart) {
        const repeat = header !== undefined && runStart > start + 1;
        out.push({
          text: repeat ? `${header}\n${src.text(runStart, i - 1)}` : src.text(runStart, i - 1),
          start: runStart,
          end: i - 1,
          words: runWords,
          atomic: true,
          join: runStart === start ? "\n\n" : "\n",
          from: repeat ? -1 : src.offset(runStart),
          to: repeat ? -1 : src.offset(i) - 1,
        });
      }
      runStart = i;
      runWords = 0;
      if (i <= end && w > maxBlock) {
        unitPieces(src, i, i + 1, false, max, maxBlock, out);
        runStart = i + 1;
        continue;
      }
    }
    runWords += w;
  }
}

/** Text over the cap (lines `start`..`end`, trimmed) cut into sentences, and a sentence over it between words. */
function sentencePieces(src: Lines, start: number, end: number, max: number, out: Piece[]): void {
  // Too big: cut into sentences. Soft-wrapped paragraph lines run on into one sentence; list items,
  // table rows and quote lines start a new piece; a blank line starts a new block.
  // the words of the sentence being read, each with its word count and what followed it (a space,
  // or nothing after a Chinese or Japanese sentence)
  let buf: string[] = [];
  let bufWords: number[] = [];
  let glue: string[] = [];
  let bufStart = start;
  let bufEnd = start;
  let join = "\n\n";
  // every word counts one and is followed by a space: the common case, cut by count with slice and
  // join (measured on a 5 MB list note: 160 ms this way, 245 ms through the general loop below)
  let plain = true;
  const flush = (nextJoin: string) => {
    // one sentence over `max` words is cut between words, at most `max` words a piece
    if (plain)
      for (let k = 0; k < buf.length; k += max) {
        const part = buf.slice(k, k + max);
        out.push({
          text: part.join(" "),
          start: bufStart,
          end: bufEnd,
          words: part.length,
          atomic: false,
          join: k === 0 ? join : " ",
          from: -1,
          to: -1,
        });
      }
    for (let k = 0; !plain && k < buf.length;) {
      let j = k;
      let words = 0;
      let text = "";
      while (j < buf.length && (j === k || words + bufWords[j] <= max)) {
        text += (j > k ? glue[j - 1] : "") + buf[j];
        words += bufWords[j++];
      }
      out.push({
        text,
        start: bufStart,
        end: bufEnd,
        words,
        atomic: false,
        join: k === 0 ? join : glue[k - 1] || "",
        from: -1,
        to: -1,
      });
      k = j;
    }
    if (buf.length) join = nextJoin;
    buf = [];
    bufWords = [];
    glue = [];
    plain = true;
  };
  for (let i = start; i <= end; i++) {
    const line = src.text(i, i);
    if (!line.trim()) {
      flush("\n\n");
      join = "\n\n";
      continue;
    }
    // a list item's number (`4.`) is no sentence's end: it goes with its item's first words
    const numbered = /^\s*\d+[.)]\s/.test(line);
    if (numbered || /^\s*(?:[-*+]\s|\||>)/.test(line)) flush("\n");
    for (let p = 0, first = true; p < line.length; first = false) {
      while (p < line.length && isSpace(line.charCodeAt(p))) p++;
      if (p === line.length) break;
      const from = p;
      const scanned = scanWord(line, p, max);
      p = scanned.end;
      const wide = scanned.wide;
      if (!buf.length) bufStart = i;
      const word = line.slice(from, p);
      const spaced = p >= line.length || isSpace(line.charCodeAt(p));
      const count = wide ? countWords(word) : 1;
      if (count === 0 && buf.length) {
        // punctuation alone (a clause's comma after a cut): it goes with the word before
        const last = buf.length - 1;
        buf[last] += glue[last] + word;
        glue[last] = spaced ? " " : "";
        if (glue[last] === "") plain = false;
      } else {
        buf.push(word);
        bufWords.push(count);
        glue.push(spaced ? " " : "");
        if (count !== 1 || !spaced) plain = false;
      }
      bufEnd = i;
      if (endsSentence(line, from, p) && !(first && numbered)) flush(spaced ? " " : "");
    }
    if (join !== "\n\n" && buf.length === 0) join = "\n";
  }
  flush("\n\n");
}

/**
 * Where the word at `line[p]` ends for the sentence cutter, and whether it holds a character of the
 * CJK blocks (U+3000 on), so may count as several words: at white space, and within a Chinese or
 * Japanese run at a sentence's end, a clause's comma, or every 2 × `max` characters.
 */
function scanWord(line: string, p: number, max: number): { end: number; wide: boolean } {
  let wide = false; // holds a character of the CJK blocks (U+3000 on), so may count as several words
  let chars = 0; // Chinese or Japanese characters in this word
  for (let c = line.charCodeAt(p); p < line.length && !isSpace(c); c = line.charCodeAt(p)) {
    p++;
    if (c < 0x3000) {
      // `!` or `?` right after Japanese ends its sentence too
      if ((c === 33 || c === 63) && wide && isCjk(line.charCodeAt(p - 2))) {
        p = endOfStop(line, p);
        break;
      }
      continue;
    }
    wide = true;
    // a character beyond the BMP is two code units, never cut apart
    const astral = c >= 0xd800 && c <= 0xdbff && p < line.length;
    if (astral) p++;
    // a Chinese or Japanese sentence ends at its mark (and any more marks and closing brackets),
    // though no space follows; a clause at its comma; a run without either every 2 × max
    // characters, so that no piece of text outgrows `max` words
    if (isCjkStop(c)) {
      p = endOfStop(line, p);
      break;
    }
    if (c === 0x3001 || c === 0xff64 || ((isCjk(c) || (astral && isAstralHan(c))) && ++chars >= 2 * max)) break;
  }
  return { end: p, wide };
}
