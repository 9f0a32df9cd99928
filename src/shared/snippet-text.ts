/**
 * What a hit shows of its passage: a one-line snippet as the rendered note reads, centred on the
 * words the query matched, and the pattern that marks them. One module for the CLI and the web app
 * (`web/`, whose build compiles it): no Node and no imports beyond `src/shared/`.
 */
import { isAscii } from "./ascii.js";
import { CJK_RUN, queryBigrams } from "./cjk.js";
import { STOPWORDS } from "./stopwords.js";

/**
 * A text as one line of a terminal shows it safely: control characters (a line break in a file
 * name, an escape sequence in a note) and bidi overrides written as escapes, so a hit stays one
 * line, a note cannot drive the terminal, and a name cannot show its line backwards.
 *
 * @example
 * ```ts
 * printable("weird\nname.md"); // "weird\\nname.md"
 * ```
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\t"
        ? "\\t"
        : c === "\r"
          ? "\\r"
          : c >= "\u2000"
            ? // a bidi override or isolate: a file name "\u202eRTL.md" would show the rest of its line backwards
              `\\u${c.charCodeAt(0).toString(16)}`
            : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

// HTML a reader does not see: a tag with attributes (`<ScrimbaLink href="…" title="…">`,
// `<sup class="badge" />`), a closing tag, a bare layout tag; `<script setup>` and `<Teleport>` stay
const HTML_TAG =
  /<[A-Za-z][\w.:-]*\s[^<>=]*=[^<>]*>|<\/[A-Za-z][\w.:-]*\s*>|<(?:div|span|br|hr|p|sup|sub|details|summary|pre|ul|ol|li|table|thead|tbody|tr|td|th)\s*\/?>/gi;
// inline formatting tags, gone without a space: <kbd>Ctrl</kbd>+<kbd>P</kbd> reads Ctrl+P
const INLINE_TAG = /<\/?(?:code|kbd|b|i|em|strong|u|s|mark|small)\s*>/gi;

/** A Markdown mark a snippet leaves out, and what stands in its place (text, or the parts it keeps). */
type Mark = [RegExp, string | ((match: string, ...groups: string[]) => string)];

/**
 * Markdown marks a reader of the rendered note does not see, each with what stands in its place.
 * Each pattern looks at most a few hundred characters ahead of where it starts (a link's text, a
 * URL), so a line of 20,000 `[[` costs milliseconds, not seconds. Inline code keeps its backticks.
 */
const MARKS: Mark[] = [
  [/<!--[\s\S]{0,2000}?-->/g, " "], // an HTML comment: an author's note to themselves
  [/!\[\[[^\]\n]{0,300}\]\]/g, " "], // an embed: ![[Note#Heading]], ![[diagram.svg]]
  [/!\[([^\]\n]{0,300})\]\((?:[^()\n]|\([^()\n]{0,300}\)){0,1000}\)/g, "$1"], // an image: its alt text
  [/\[\[[^\]|\n]{0,300}\|([^\]\n]{0,300})\]\]/g, "$1"], // [[Note|shown text]]
  [/\[\[([^\]\n]{0,300})\]\]/g, "$1"], // [[Note]]
  [/\[([^\]\n]{0,300})\]\((?:[^()\s]|\([^()\s]{0,300}\)){0,1000}(?:\s+"[^"\n]{0,300}")?\)/g, "$1"], // [text](url "title")
  [/\*\*([^*\n]{1,300})\*\*/g, "$1"], // **strong**
  [/(^|\s)__([^_\n]{1,300})__(?=\s|$|[.,;:!?])/gm, "$1$2"], // __strong__, not snake__case
  [/^[ \t]*>[ \t>]*\[!([\w-]+)\][-+]?/gm, "$1:"], // a callout's first line: > [!note] → note:
  [/^[ \t]*>[ \t>]*/gm, ""], // quote marks
  [/^[ \t]{0,3}#{1,6}[ \t]+/gm, ""], // a heading's marks within a passage (its text stays)
  [/^[ \t]*:{3,}[ \t]*$/gm, ""], // a container's end: :::
  [/^[ \t]*:{3,}[ \t]*([\w-]+)[ \t]*/gm, "$1: "], // a container (VitePress, Docusaurus): ::: tip Title → tip: Title
  [/^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?$/gm, ""], // a table's delimiter row
  // a table row's cells, one after another: `| a | b |` → `a · b` (a pipe inside a line of code stays)
  [
    /^[ \t]*\|(.*)\|[ \t]*$/gm,
    (_: string, cells: string) =>
      cells
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/\\\|/g, "|"))
        .filter(Boolean)
        .join(" · "),
  ],
  [/\\([!-/:-@[-`{-~])/g, "$1"], // a backslash escape, after the table's cells: consumer\_offsets reads consumer_offsets
];

/** An HTML comment as its own words: what a snippet shows when the query matched only there (search reads comments, as Obsidian's does). */
const COMMENT_WORDS: Mark = [/<!--([\s\S]{0,2000}?)-->/g, " $1 "];

/** Above this many characters a chunk's snippet is taken from its start only (the marks are read once per character). */
const SNIPPET_SOURCE_CHARS = 20_000;

/** The heading lines a passage starts with (its place in the note, which the breadcrumb shows). */
const LEADING_HEADINGS = /^(\s*#{1,6}\s[^\n]*(\n+|$))+/;

/**
 * The body of a chunk on one line, as a reader of the rendered note sees it: no heading lines, HTML
 * tags or Markdown marks (links as their text, embeds left out, table cells apart), whitespace
 * collapsed, no control characters. HTML comments are left out too, unless `comments` keeps their
 * words. A passage of embeds alone reads as what it embeds; one with nothing to read is "".
 *
 * @example
 * ```ts
 * flatBody("Log into [your account](https://x.io). Under **Billing**, …"); // "Log into your account. Under Billing, …"
 * flatBody("Water weekly. <!-- ask Sam -->", true); // "Water weekly. ask Sam"
 * ```
 */
export function flatBody(text: string, comments = false): string {
  const source = text.slice(0, SNIPPET_SOURCE_CHARS).replace(LEADING_HEADINGS, "");
  // what a fenced code block holds is shown as written: `![[Document.pdf]]` in a block that shows
  // how to embed is the answer, not an embed (else a snippet reads "To embed a PDF: ```md ```")
  const t = outsideCode(source, (prose) => {
    // a formula is kept as written (`$\|A\|_2$` is not a backslash escape), the marks read around it
    const formulas: string[] = [];
    let p = prose.replace(MATH, (m, code?: string) => (code ? m : `\uE000${formulas.push(m) - 1}\uE001`));
    p = p.replace(INLINE_TAG, "").replace(HTML_TAG, " ");
    if (comments) p = p.replace(COMMENT_WORDS[0], COMMENT_WORDS[1] as string);
    for (const [mark, by] of MARKS) p = p.replace(mark, by as string);
    return p.replace(/\uE000(\d+)\uE001/g, (m, i: string) => formulas[Number(i)] ?? m);
  });
  const flat = t.replace(/\s+/g, " ").trim();
  // a passage of embeds alone (`![[Albums.base]]`) reads as what it embeds, not as a blank line
  return printable(flat || embedsOf(text));
}

/**
 * A text with `rewrite` applied to each stretch outside fenced code blocks (``` or ~~~, closed by
 * a fence of the same character at least as long, or by the end); the blocks, fences included,
 * as written.
 */
function outsideCode(text: string, rewrite: (prose: string) => string): string {
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | undefined;
  for (const line of text.split("\n")) {
    const m = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (m && !(m[1][0] === "`" && line.slice(m[0].length).includes("`"))) {
        out.push(rewrite(prose.join("\n")));
        prose = [];
        fence = m[1];
        out.push(line);
      } else prose.push(line);
    } else {
      out.push(line);
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && !line.slice(m[0].length).trim())
        fence = undefined;
    }
  }
  out.push(rewrite(prose.join("\n")));
  return out.join("\n");
}

/**
 * The names a text embeds (`![[Albums.base]]` → `Albums.base`), space-separated: the snippet of a
 * passage that holds nothing else.
 *
 * @example
 * ```ts
 * embedsOf("![[Albums.base]]\n![[Cover.png|200]]"); // "Albums.base Cover.png"
 * ```
 */
export function embedsOf(text: string): string {
  return [...text.slice(0, SNIPPET_SOURCE_CHARS).matchAll(/!\[\[([^[\]|\n]{1,300})(?:\|[^\]\n]{0,300})?\]\]/g)]
    .map((m) => m[1].trim())
    .join(" ");
}

/**
 * The text of the heading lines a passage starts with, on one line ("## 敏捷组织" → "敏捷组织").
 *
 * @example
 * ```ts
 * headingsOf("# Plans\n## 2026\n\n![](a.png)"); // "Plans 2026"
 * ```
 */
export function headingsOf(text: string): string {
  const lead = LEADING_HEADINGS.exec(text.slice(0, SNIPPET_SOURCE_CHARS))?.[0] ?? "";
  return printable(
    lead
      .replace(/^\s*#{1,6}\s+/gm, "")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

/**
 * A formula as Obsidian writes it, or a code span (group 1), which holds none: `$$…$$` (across lines),
 * or `$…$` on one line whose `$`s touch the formula (no space inside them) and whose closing `$` is
 * not followed by a digit, so "from $5 to $10" holds none. `\$` is a dollar sign.
 */
const MATH =
  /(`+)[^`]{0,2000}?\1|\$\$(?:[^$\\]|\\[\s\S]){1,2000}?\$\$|(?<![\\$])\$(?![\s$])(?:[^$\\\n]|\\[^\n]){1,500}?(?<!\s)\$(?![\d$])/g;

/** A formula in a text: where it starts and ends, its TeX without the `$`s, and whether it was `$$…$$`. */
export interface MathSpan {
  start: number;
  end: number;
  tex: string;
  display: boolean;
}

/**
 * The formulas of a text (`$…$` and `$$…$$`, none inside a code span), in order: what the web app
 * renders with KaTeX, and what a snippet is never cut inside.
 *
 * @example
 * ```ts
 * mathSpans("so $a \\rightarrow b$, from $5 to $10"); // [{ start: 3, end: 20, tex: "a \\rightarrow b", display: false }]
 * ```
 */
export function mathSpans(text: string): MathSpan[] {
  const spans: MathSpan[] = [];
  for (const m of text.matchAll(MATH)) {
    if (m[1]) continue;
    const display = m[0].startsWith("$$");
    const tex = m[0].slice(display ? 2 : 1, display ? -2 : -1);
    spans.push({ start: m.index, end: m.index + m[0].length, tex, display });
  }
  return spans;
}

/** Options of {@link snippet}. */
export interface SnippetOptions {
  /** Marks the query's terms ({@link termPattern}): the snippet is centred on where most of them meet. */
  pattern?: RegExp;
  /**
   * What the snippet of a passage with nothing to read shows (a heading and images only): the
   * hit's breadcrumb. The passage's own headings follow it when they add words.
   */
  fallback?: string;
  /**
   * The note's first readable words (`lead` of a hit): what a passage with nothing to read shows
   * when its breadcrumb and headings have nothing to show either.
   */
  lead?: string;
}

/**
 * One-line snippet of a chunk's text, without the heading line and HTML tags. With a pattern, the
 * snippet starts a little before the window where most matched terms meet, when that lies beyond
 * the first part of the text; when the pattern matches only inside an HTML comment, the comment's
 * words are shown, so that a hit always shows why it was found. A passage with nothing to read
 * (a heading and images) shows the `fallback` and its headings, else the note's first words
 * (`lead`), never an empty line.
 *
 * @example
 * ```ts
 * snippet("## Motors\n\nTwo N20 motors.", 100); // "Two N20 motors."
 * snippet('<div class="tip">Use <Teleport> here.</div>', 100); // "Use <Teleport> here."
 * snippet("## 敏捷组织\n\n![](a.png)", 100, { fallback: "团队 > 敏捷组织" }); // "团队 > 敏捷组织"
 * snippet("![](a.png)", 100, { fallback: "", lead: "Photos of the coast." }); // "Photos of the coast."
 * ```
 */
export function snippet(text: string, width = 100, opts: SnippetOptions | RegExp = {}): string {
  const { pattern, fallback, lead } =
    opts instanceof RegExp ? { pattern: opts, fallback: undefined, lead: undefined } : opts;
  let body = flatBody(text);
  if (pattern && body.search(pattern) < 0 && text.includes("<!--")) {
    const open = flatBody(text, true);
    if (open.search(pattern) >= 0) body = open;
  }
  if (!visible(body)) body = emptyPassage(text, fallback, lead);
  if (pattern && body.length > width) {
    const at = bestWindow(body, width, pattern);
    if (at !== undefined && at > width * 0.6) {
      let start = Math.max(0, at - Math.floor(width * 0.3));
      const space = body.lastIndexOf(" ", start);
      start = space > 0 && start - space < 20 ? space + 1 : start;
      // never in the middle of a formula: it starts with the formula
      start = mathSpans(body).find((f) => f.start < start && start < f.end)?.start ?? start;
      body = "…" + body.slice(start);
    }
  }
  if (body.length <= width) return body;
  // nor ends in one: the cut goes before it, unless it is all the snippet shows
  let end = width - 1;
  const cut = mathSpans(body).find((f) => f.start < end && end < f.end);
  if (cut) end = body.slice(0, cut.start).trim().replace(/^…$/, "") ? cut.start : cut.end;
  return (cut ? body.slice(0, end).trimEnd() : body.slice(0, end)) + "…";
}

/** A character a reader sees as text: a letter, digit, punctuation mark or symbol. */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * An ASCII character a reader sees (every one from `!` to `~` is a letter, digit, punctuation mark
 * or symbol). Tried before {@link VISIBLE}: compiling a Unicode property class costs a new process
 * about a millisecond each (the CLI's first snippet), and nearly every snippet holds one of these.
 */
const ASCII_VISIBLE = /[!-~]/;

/** Whether a text holds a character a reader sees ({@link VISIBLE}). */
const visible = (text: string) => ASCII_VISIBLE.test(text) || VISIBLE.test(text);

/**
 * What a passage with nothing to read shows: the breadcrumb, then its headings where they add
 * words; else the note's first words (`lead`).
 */
function emptyPassage(text: string, fallback?: string, lead?: string): string {
  const crumb = printable((fallback ?? "").replace(/\s+/g, " ").trim());
  const heads = headingsOf(text);
  const shown = !crumb ? heads : heads && !crumb.includes(heads) ? `${crumb} · ${heads}` : crumb;
  return visible(shown) || !lead ? shown : printable(lead.replace(/\s+/g, " ").trim());
}

/**
 * Whether a passage has nothing to show in a snippet: no words of its own, and a breadcrumb
 * (`fallback`) and headings with nothing visible (a heading and images in a note whose title is
 * blank). Such a hit shows its note's first words (`lead`).
 *
 * @example
 * ```ts
 * nothingToShow("![](a.png)", ""); // true
 * nothingToShow("![](a.png)", "Trips > Coast"); // false
 * ```
 */
export function nothingToShow(text: string, fallback?: string): boolean {
  return !visible(snippet(text, Infinity, { fallback }));
}

/** At most this many matches are weighed for a snippet's window. */
const MAX_WINDOW_MATCHES = 500;

/**
 * Where the window of `width` characters that holds the most distinct query terms (a word and its
 * plural one term) starts its
 * first match (the earliest of equals), or `undefined` when none matches: a command page's snippet
 * then shows the example that says `stash pop`, not the description that says `stash`.
 */
function bestWindow(body: string, width: number, pattern: RegExp): number | undefined {
  const found: { at: number; term: string }[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(body); m && found.length < MAX_WINDOW_MATCHES; m = pattern.exec(body)) {
    // a word and its plural are one term, as the pattern finds both ("bed" and "beds")
    found.push({ at: m.index, term: m[0].toLowerCase().replace(/e?s$/, "") });
    if (m[0] === "") pattern.lastIndex++;
  }
  pattern.lastIndex = 0;
  let best: number | undefined;
  let bestCount = 0;
  for (let i = 0; i < found.length; i++) {
    const terms = new Set<string>();
    for (let j = i; j < found.length && found[j].at < found[i].at + width * 0.7; j++) terms.add(found[j].term);
    if (terms.size > bestCount) {
      bestCount = terms.size;
      best = found[i].at;
    }
  }
  return best;
}

/**
 * Longest word a highlight looks for, and most words it looks for: a longer word is in no note
 * worth marking, and a pattern of one 13,000-letter word overflowed V8's regex compiler (a crash).
 */
const HIGHLIGHT_MAX_WORD = 64;
const HIGHLIGHT_MAX_WORDS = 64;

/**
 * The terms of a query worth highlighting, as the keyword index matches them: lowercased words
 * without the stop words a keyword query drops ({@link STOPWORDS}, unless nothing else is left),
 * one-letter words and words over {@link HIGHLIGHT_MAX_WORD} letters; a CJK run as itself and the
 * bigrams the keyword query ranks by ({@link queryBigrams}), so a passage found by 图片 of 图片整理
 * marks 图片. The first {@link HIGHLIGHT_MAX_WORDS}.
 *
 * @example
 * ```ts
 * highlightTerms("How do the SMARS motors work?"); // ["smars", "motors", "work"]
 * highlightTerms("图片整理"); // ["图片整理", "图片", "片整", "整理"]
 * ```
 */
export function highlightTerms(query: string): string[] {
  const q = query.normalize("NFKC").toLowerCase();
  // an ASCII query's words without compiling a Unicode class (the same words: ASCII has no CJK, and
  // its letters and digits are a-z and 0-9 once lowercased)
  const ascii = isAscii(q);
  const runs = ascii ? [] : (q.match(CJK_RUN) ?? []);
  const words =
    (ascii ? q.match(/[a-z0-9][a-z0-9_-]*/g) : q.replace(CJK_RUN, " ").match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu)) ?? [];
  const sized = words.filter((w) => w.length > 1 && w.length <= HIGHLIGHT_MAX_WORD);
  const kept = sized.filter((w) => !STOPWORDS.has(w));
  const cjk = runs
    .filter((r) => r.length <= HIGHLIGHT_MAX_WORD)
    .flatMap((r) => (Array.from(r).length > 1 ? [r, ...queryBigrams(r)] : [r]));
  return [...new Set([...(kept.length || cjk.length ? kept : sized), ...cjk])].slice(0, HIGHLIGHT_MAX_WORDS);
}

/** A term that is one CJK run (compiled once, and only for a term that is not ASCII). */
const CJK_TERM = new RegExp(`^(?:${CJK_RUN.source})$`, "u");

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A regular expression for the terms, longest first: a word at word starts and ends, a plural `s`
 * optional ("motor" finds "motors", "motors" finds "motor"); a CJK term anywhere, as CJK writes no
 * spaces between words. `undefined` for no terms.
 *
 * @example
 * ```ts
 * "Two motors".replace(termPattern(["motor"])!, "[$&]"); // "Two [motors]"
 * "整理图片的方法".replace(termPattern(["图片"])!, "[$&]"); // "整理[图片]的方法"
 * ```
 */
export function termPattern(terms: string[]): RegExp | undefined {
  if (!terms.length) return undefined;
  const sorted = [...terms].sort((a, b) => b.length - a.length);
  const isCjk = (t: string) => !isAscii(t) && CJK_TERM.test(t);
  const words = sorted
    .filter((t) => !isCjk(t))
    .map((t) => escapeRe(t.length > 3 && t.endsWith("s") ? t.slice(0, -1) : t) + "(?:e?s)?");
  const cjk = sorted.filter(isCjk).map(escapeRe);
  const parts = [
    ...(words.length ? [`(?<![\\p{L}\\p{N}])(?:${words.join("|")})(?![\\p{L}\\p{N}])`] : []),
    ...(cjk.length ? [`(?:${cjk.join("|")})`] : []),
  ];
  return new RegExp(parts.join("|"), "giu");
}
