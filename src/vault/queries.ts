/*
 * Obsidian's queries and templates: text a note holds that reading view never shows as written.
 * A ```` ```dataview ```` block shows the table its query makes, a Templater tag (`<% tp.file.title %>`)
 * is filled in when a note is made from a template, and an embedded image shows the picture, not
 * its file name. None of it is prose a question is asked of, so, as for comments, vault-rag leaves it
 * out of what it indexes and shows, and a passage that held nothing else holds its headings alone.
 */
import { FENCE, codeSpans } from "./comments.js";

/** What of a note's body is left out besides comments: the languages of code blocks and the headings whose sections go. */
export interface LeaveOut {
  /** Code blocks in these languages (lower case) are queries, not code a reader reads. */
  codeLanguages: readonly string[];
  /** Sections under these headings (any level, compared in lower case) are left out whole. */
  headings: readonly string[];
}

/**
 * The code blocks reading view runs rather than shows: Dataview (`dataview`, `dataviewjs`), Obsidian's
 * embedded search (`query`) and the Tasks plugin (`tasks`). No sections are left out by default.
 */
export const LEAVE_OUT_DEFAULTS: LeaveOut = {
  codeLanguages: ["dataview", "dataviewjs", "query", "tasks"],
  headings: [],
};

// an inline Dataview query's code (`= this.file.name`, `$= dv.current()`); `` `=` `` alone is a key
const INLINE_QUERY = /^(?:=\s+\S|\$=\s*\S)/;
// an ATX heading: its level and its text
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
// an embedded picture, sound or video (`![[Pasted image 2025.png]]`, `![[talk.mp3|300]]`); a note's
// or a PDF's embed stays: it names what it shows
const MEDIA_EMBED =
  /!\[\[[^\]\n]*?\.(?:png|jpe?g|gif|webp|svg|bmp|avif|heic|tiff?|mp3|wav|m4a|ogg|flac|3gp|webm|mp4|mov|mkv|ogv)(?:[|#][^\]\n]*)?\]\]/gi;

/**
 * A note's body (comments already left out) without its queries and templates, on the same lines:
 * - a fenced code block in one of `leaveOut.codeLanguages` (its fences too) becomes blank lines;
 * - a Templater tag (`<% … %>`, `<%* … %>`, across lines too) outside code is left out;
 * - an inline Dataview query (`` `= this.file.name` ``, `` `$= dv.current()` ``) is left out;
 * - an embedded picture, sound or video (`![[photo.png]]`) is left out;
 * - the section under a heading named in `leaveOut.headings` (to the next heading of its level or
 *   above) becomes blank lines, its heading too.
 * Every line keeps its number. One pass, linear in the text.
 *
 * @example
 * ```ts
 * withoutQueries("# Books\n```dataview\nTABLE rating\n```\nRead more.\n");
 * // "# Books\n\n\n\nRead more.\n"
 * withoutQueries("Made <% tp.date.now() %> by `= this.author`\n![[Pasted image 1.png]]\n");
 * // "Made  by \n\n"
 * ```
 */
export function withoutQueries(text: string, leaveOut: LeaveOut = LEAVE_OUT_DEFAULTS): string {
  const languages = new Set(leaveOut.codeLanguages.map((l) => l.toLowerCase()));
  const headings = new Set(leaveOut.headings.map(headingKey));
  if (!mayHoldQueries(text, headings.size > 0)) return text;
  const lines = text.split("\n");
  let fence: { char: string; length: number; drop: boolean } | undefined;
  let template = false; // inside a Templater tag, across lines
  let dropLevel = 0; // inside the section of a heading left out (its level), or 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      const m = FENCE.exec(line);
      if (m && m[1][0] === fence.char && m[1].length >= fence.length && !m[2].trim()) {
        if (fence.drop || dropLevel) lines[i] = "";
        fence = undefined;
      } else if (fence.drop || dropLevel) lines[i] = "";
      continue;
    }
    const m = FENCE.exec(line);
    if (!template && m && !(m[1][0] === "`" && m[2].includes("`"))) {
      const lang = m[2].trim().split(/[\s{]/)[0].toLowerCase();
      fence = { char: m[1][0], length: m[1].length, drop: languages.has(lang) };
      if (fence.drop || dropLevel) lines[i] = "";
      continue;
    }
    const h = template ? null : HEADING.exec(line);
    if (h) {
      const level = h[1].length;
      if (dropLevel && level <= dropLevel) dropLevel = 0;
      if (!dropLevel && headings.has(headingKey(h[2] ?? ""))) dropLevel = level;
    }
    if (dropLevel) {
      lines[i] = "";
      continue;
    }
    const read = readLine(line, template);
    lines[i] = read.text;
    template = read.template;
  }
  return lines.join("\n");
}

/** Whether a text may hold anything {@link withoutQueries} leaves out (a cheap test before the pass). */
function mayHoldQueries(text: string, headings: boolean): boolean {
  return (
    headings ||
    text.includes("```") ||
    text.includes("~~~") ||
    text.includes("<%") ||
    text.includes("`") ||
    text.includes("![[")
  );
}

/** A heading's text as the `headings` setting is compared with it: trimmed, in lower case, spaces folded. */
function headingKey(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

/** One line without its Templater tags, inline queries and media embeds; `template`: it starts inside a tag. */
function readLine(line: string, template: boolean): { text: string; template: boolean } {
  let out = line;
  if (template || out.includes("<%")) {
    const read = withoutTemplates(out, template, out.includes("`") ? codeSpans(out) : []);
    out = read.text;
    template = read.template;
  }
  if (out.includes("`")) {
    const spans = codeSpans(out);
    for (let s = spans.length - 1; s >= 0; s--) {
      const [start, end] = spans[s];
      const inner = out
        .slice(start, end)
        .replace(/^`+|`+$/g, "")
        .trimStart();
      if (INLINE_QUERY.test(inner)) out = out.slice(0, start) + out.slice(end);
    }
  }
  if (out.includes("![[")) out = out.replace(MEDIA_EMBED, "");
  return { text: out, template };
}

/**
 * A line without the Templater tags on it; `template`: it starts inside a tag, and the answer: it
 * ends inside one. A `<%` inside a code span (`spans`, a note that shows Templater's syntax) is text.
 */
function withoutTemplates(
  line: string,
  template: boolean,
  spans: [number, number][],
): { text: string; template: boolean } {
  let out = "";
  let i = 0;
  if (template) {
    const close = line.indexOf("%>");
    if (close < 0) return { text: "", template: true };
    i = close + 2;
  }
  for (;;) {
    let open = line.indexOf("<%", i);
    for (const [start, end] of spans) if (open >= start && open < end) open = line.indexOf("<%", end);
    if (open < 0) return { text: out + line.slice(i), template: false };
    out += line.slice(i, open);
    const close = line.indexOf("%>", open + 2);
    if (close < 0) return { text: out, template: true };
    i = close + 2;
  }
}
