import type MarkdownIt from "markdown-it";

type BlockRule = Parameters<MarkdownIt["block"]["ruler"]["before"]>[2];
type BlockState = Parameters<BlockRule>[0];

/** Lines a `$$` block may span before its closing `$$`; beyond it the opening line is text. */
export const MAX_MATH_LINES = 200;

const DOLLARS = 0x24;

/** What this rule tells a parse through markdown-it's `env`. */
export interface MathEnv {
  /** Set by the caller: the text's line count (a container's own end is not the text's). */
  rootLines?: number;
  /** Set by the rule: the first line of a `$$` that found no closing `$$` before the end of the text, which text that goes on could close. */
  ranOutLine?: number;
  /** The rule's table of each line's next line ending in `$$`. */
  closers?: Int32Array;
}

/**
 * A markdown-it block rule for display math as Obsidian writes it: a line that starts with `$$`
 * opens a block that ends at the first line ending in `$$` (the same line for `$$ x = 1 $$`), in
 * the same container (a list item, a callout). The block becomes one `math_block` token, so its
 * `=` and `---` lines are never read as setext headings, its blank lines never split it, and its
 * `#` and `[` are no tags or links. It interrupts a paragraph, as Obsidian's does.
 *
 * Hand-written rather than taken from `@mdit/plugin-tex`: there an unclosed `$$`
 * (a price at a line's start) runs to the end of the note and takes every heading after it. Here an
 * opening `$$` without a closing one within {@link MAX_MATH_LINES} lines is plain text, which also
 * bounds the scan (no quadratic cost for a note of `$$` lines).
 *
 * @example
 * ```ts
 * const md = new MarkdownIt("commonmark");
 * md.block.ruler.before("fence", "math_block", mathBlock, { alt: ["paragraph", "reference", "blockquote", "list"] });
 * md.parse("$$\na\n=\nb\n$$\n", {})[0].type; // "math_block"
 * ```
 */
export const mathBlock: BlockRule = (state: BlockState, startLine: number, endLine: number, silent: boolean) => {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false; // indented code
  const start = state.bMarks[startLine] + state.tShift[startLine];
  const max = state.eMarks[startLine];
  if (max - start < 2 || state.src.charCodeAt(start) !== DOLLARS || state.src.charCodeAt(start + 1) !== DOLLARS)
    return false;
  const first = state.src.slice(start + 2, max).trimEnd();
  const env = state.env as MathEnv;
  let last = -1;
  // the scan ran into the end of the text, not into the container's end or the cap
  let ranOut = false;
  if (first.length >= 2 && first.endsWith("$$")) last = startLine;
  else if (first.includes("$$"))
    return false; // `$$a$$ and more`: inline math in a paragraph
  else {
    const textEnd = env.rootLines ?? endLine;
    const stop = Math.min(endLine, startLine + MAX_MATH_LINES);
    // the first line after this one that ends in `$$`, from a table built once per parse: each line
    // of a paragraph asks whether a `$$` may interrupt it, so a scan per ask would be quadratic
    const closer = (env.closers ??= closingLines(state, textEnd))[startLine + 1] ?? textEnd;
    // a line less indented than the container ends it (a list item), as for fences
    let ended = false;
    if (state.blkIndent > 0)
      for (let line = startLine + 1; line < Math.min(closer, stop) && !ended; line++)
        ended = state.bMarks[line] + state.tShift[line] < state.eMarks[line] && state.sCount[line] < state.blkIndent;
    if (!ended && closer < stop) last = closer;
    else if (!ended && closer >= textEnd && stop === textEnd) ranOut = true;
  }
  if (last < 0) {
    // in a slice of a longer note, the closing `$$` may lie past the slice's end: say so, and the
    // slice is cut before this line's block, which the next slice reads again with more text after
    // it (a block's reading never depends on where a slice ends)
    if (ranOut) env.ranOutLine = Math.min(env.ranOutLine ?? Infinity, startLine);
    return false;
  }
  if (silent) return true;
  const token = state.push("math_block", "math", 0);
  token.block = true;
  token.markup = "$$";
  token.map = [startLine, last + 1];
  token.content = state.getLines(startLine, last + 1, state.blkIndent, true);
  state.line = last + 1;
  return true;
};

/** For each line, the first line at or after it whose text ends in `$$` (trailing blanks aside), or `lines`. */
function closingLines(state: BlockState, lines: number): Int32Array {
  const next = new Int32Array(lines + 1).fill(lines);
  const src = state.src;
  for (let i = lines - 1; i >= 0; i--) {
    let k = state.eMarks[i] - 1;
    while (k >= state.bMarks[i] && (src.charCodeAt(k) === 0x20 || src.charCodeAt(k) === 0x09)) k--;
    const closes = k - 1 >= state.bMarks[i] && src.charCodeAt(k) === DOLLARS && src.charCodeAt(k - 1) === DOLLARS;
    next[i] = closes ? i : next[i + 1];
  }
  return next;
}
