/*
 * Obsidian's comments: text between two `%%` is private to the note's author. Obsidian shows it only
 * in the editor, never in reading view (https://help.obsidian.md/syntax, "Comments"), inline
 * (`text %%hidden%% text`) or as a block (`%%` on its own line, any lines, blank ones too, `%%`).
 * vault-rag reads a note as reading view shows it, so a comment is neither indexed nor shown.
 */

// a fence's opening or closing line: any indentation (a fence in a list item is indented), after any
// quote or callout marks (`> ```js`)
export const FENCE = /^(?:[ \t]*>)*[ \t]*(`{3,}|~{3,})(.*)$/;

/**
 * A note's body without its Obsidian comments, on the same lines: each comment's text and its `%%`
 * marks are left out, its line breaks kept, so every line of the rest keeps its number (a block
 * comment leaves blank lines). The rules:
 * - a `%%` opens a comment, and the next `%%` closes it, on the same line or any later one;
 * - a `%%` with no closing one hides the rest of the note, as Obsidian's editor greys it out to the
 *   end (its documentation does not say; reading view then shows nothing after it either);
 * - a `%%` inside a fenced code block (```` ``` ```` or `~~~`) or an inline code span on one line
 *   (`` `a %% b` ``) is text, as Obsidian shows it; a fence or backticks inside a comment are part of it;
 * - an inline comment between two spaces leaves one space (`a %%x%% b` reads `a b`).
 *
 * Code indented by four spaces is not told apart from a list item's text: a `%%` there opens a
 * comment. Links and tags inside a comment are left out with it: they count for nothing, as reading
 * view shows none of them. One pass, linear in the text; a text without `%%` is returned as it is.
 *
 * @example
 * ```ts
 * withoutComments("a %%secret%% b\n%%\nplan\n%%\n`%%` stays\n"); // "a b\n\n\n\n`%%` stays\n"
 * withoutComments("kept %%hidden to the end\nof the note"); // "kept \n"
 * ```
 */
export function withoutComments(text: string): string {
  if (!text.includes("%%")) return text;
  const lines = text.split("\n");
  let comment = false; // inside a comment, across lines
  let fence: { char: string; length: number } | undefined; // inside a fenced code block
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!comment && fence) {
      const m = FENCE.exec(line);
      if (m && m[1][0] === fence.char && m[1].length >= fence.length && !m[2].trim()) fence = undefined;
      continue;
    }
    if (!comment) {
      const m = FENCE.exec(line);
      // a backtick fence's info string holds no backtick (else the line is inline code)
      if (m && !(m[1][0] === "`" && m[2].includes("`"))) {
        fence = { char: m[1][0], length: m[1].length };
        continue;
      }
    }
    if (!comment && !line.includes("%%")) continue;
    const read = readLine(line, comment);
    lines[i] = read.text;
    comment = read.comment;
  }
  return lines.join("\n");
}

/**
 * One line without its comments' text: `comment` says whether the line starts inside a comment, and
 * the answer whether it ends inside one.
 */
function readLine(line: string, comment: boolean): { text: string; comment: boolean } {
  const spans = codeSpans(line);
  let out = "";
  let at = 0; // start of the text not yet copied, or of the open comment
  let span = 0; // the next code span
  let i = 0;
  while (i < line.length) {
    if (comment) {
      const close = line.indexOf("%%", i);
      if (close < 0) return { text: out, comment: true };
      i = close + 2;
      comment = false;
      // `a %%x%% b` reads `a b`: the space before the comment stays, the one after it goes
      if (out.endsWith(" ") && (line[i] === " " || line[i] === "\t")) i++;
      at = i;
      while (span < spans.length && spans[span][0] < i) span++;
      continue;
    }
    const open = line.indexOf("%%", i);
    if (open < 0) break;
    // a `%%` inside a code span is text: go on after the span
    while (span < spans.length && spans[span][1] <= open) span++;
    if (span < spans.length && spans[span][0] <= open) {
      i = spans[span][1];
      continue;
    }
    out += line.slice(at, open);
    comment = true;
    i = open + 2;
  }
  return { text: comment ? out : out + line.slice(at), comment };
}

/**
 * The code spans of one line, as [start, end) character ranges: a run of backticks up to the next run
 * of the same length, as CommonMark pairs them; a run with none after it is text. Linear: each run
 * looks up the next one of its length in a table built from the line's end.
 */
export function codeSpans(line: string): [number, number][] {
  if (!line.includes("`")) return [];
  const runs: [number, number][] = []; // [start, length]
  for (let k = 0; k < line.length; k++) {
    if (line[k] !== "`" || (k > 0 && line[k - 1] === "\\")) continue;
    let e = k;
    while (e < line.length && line[e] === "`") e++;
    runs.push([k, e - k]);
    k = e - 1;
  }
  const next = new Array<number>(runs.length).fill(-1); // the next run of the same length
  const seen = new Map<number, number>();
  for (let r = runs.length - 1; r >= 0; r--) {
    next[r] = seen.get(runs[r][1]) ?? -1;
    seen.set(runs[r][1], r);
  }
  const spans: [number, number][] = [];
  for (let r = 0; r < runs.length; r++) {
    if (next[r] < 0) continue;
    const close = runs[next[r]];
    spans.push([runs[r][0], close[0] + close[1]]);
    r = next[r];
  }
  return spans;
}
