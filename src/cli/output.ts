import type { FlatHit } from "../library.js";

/** What a hit shows: a handle's search hit, or an answer's source hit. */
type ShownHit = Pick<FlatHit, "path" | "label" | "text" | "score" | "distance" | "ranks" | "named"> & {
  meta: { start_line: number };
};
import { paint as makePaint, queryTerms, termPattern, type Paint } from "./color.js";
import { osc8 } from "./hyperlink.js";
import { printable } from "./printable.js";

export { printable };

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

/**
 * The body of a chunk on one line, as a reader of the rendered note sees it: no heading lines, HTML
 * tags or Markdown marks (links as their text, embeds left out, table cells apart), whitespace
 * collapsed, no control characters. HTML comments are left out too, unless `comments` keeps their words.
 *
 * @example
 * ```ts
 * flatBody("Log into [your account](https://x.io). Under **Billing**, …"); // "Log into your account. Under Billing, …"
 * flatBody("Water weekly. <!-- ask Sam -->", true); // "Water weekly. ask Sam"
 * ```
 */
export function flatBody(text: string, comments = false): string {
  const source = text.slice(0, SNIPPET_SOURCE_CHARS).replace(/^(\s*#{1,6}\s[^\n]*(\n+|$))+/, "");
  // what a fenced code block holds is shown as written: `![[Document.pdf]]` in a block that shows
  // how to embed is the answer, not an embed (else a snippet reads "To embed a PDF: ```md ```")
  const t = outsideCode(source, (prose) => {
    let p = prose.replace(INLINE_TAG, "").replace(HTML_TAG, " ");
    if (comments) p = p.replace(COMMENT_WORDS[0], COMMENT_WORDS[1] as string);
    for (const [mark, by] of MARKS) p = p.replace(mark, by as string);
    return p;
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
 * One-line snippet of a chunk's text, without the heading line and HTML tags. With a pattern, the
 * snippet starts a little before the first match when that lies beyond the first part of the text;
 * when the pattern matches only inside an HTML comment, the comment's words are shown, so that a
 * hit always shows why it was found.
 *
 * @example
 * ```ts
 * snippet("## Motors\n\nTwo N20 motors.", 100); // "Two N20 motors."
 * snippet('<div class="tip">Use <Teleport> here.</div>', 100); // "Use <Teleport> here."
 * ```
 */
export function snippet(text: string, width = 100, pattern?: RegExp): string {
  let body = flatBody(text);
  if (pattern && body.search(pattern) < 0 && text.includes("<!--")) {
    const open = flatBody(text, true);
    if (open.search(pattern) >= 0) body = open;
  }
  if (pattern && body.length > width) {
    const at = bestWindow(body, width, pattern);
    if (at !== undefined && at > width * 0.6) {
      let start = Math.max(0, at - Math.floor(width * 0.3));
      const space = body.lastIndexOf(" ", start);
      start = space > 0 && start - space < 20 ? space + 1 : start;
      body = "…" + body.slice(start);
    }
  }
  return body.length > width ? body.slice(0, width - 1) + "…" : body;
}

/** At most this many matches are weighed for a snippet's window. */
const MAX_WINDOW_MATCHES = 500;

/**
 * Where the window of `width` characters that holds the most distinct query terms starts its
 * first match (the earliest of equals), or `undefined` when none matches: a command page's snippet
 * then shows the example that says `stash pop`, not the description that says `stash`.
 */
function bestWindow(body: string, width: number, pattern: RegExp): number | undefined {
  const found: { at: number; term: string }[] = [];
  pattern.lastIndex = 0;
  for (let m = pattern.exec(body); m && found.length < MAX_WINDOW_MATCHES; m = pattern.exec(body)) {
    found.push({ at: m.index, term: m[0].toLowerCase() });
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

/** Options of {@link formatHits}. */
export interface FormatOptions {
  /** The query, whose words are highlighted in the snippets. */
  query?: string;
  /** Colour (default: none). */
  color?: boolean;
  /** Also print each hit's score and distance, and a hybrid hit's place in each list. */
  verbose?: boolean;
  /** Number the hits `[1]`, `[2]`… (chat, where they are the sources). */
  numbered?: boolean;
  /** Make each `path:line` an OSC 8 link to this URL (see `hyperlink.ts`); only on a terminal with colour. */
  link?: (notePath: string) => string;
}

/**
 * A hybrid hit's place in each list, as `--verbose` shows it: `; dense #3, keyword #1` (`keyword –`
 * for none), and why a hit the query names ranks above its lists' places.
 */
function ranksOf(h: ShownHit): string {
  const at = (n?: number) => (n === undefined ? "–" : `#${n}`);
  const lists = h.ranks ? `; dense ${at(h.ranks.dense)}, keyword ${at(h.ranks.keyword)}` : "";
  return h.named ? `${lists}; moved up: the query is this note's name` : lists;
}

/**
 * Human output of hits, in ripgrep's convention: `path:line` first (clickable in most terminals and
 * editors), then the breadcrumb, then a one-line snippet with the query's words marked. Colour only
 * when asked (see {@link useColor}). The score is shown only with `verbose`: it is relative to the
 * candidates of one search and reads as nothing on its own.
 *
 * @example
 * ```ts
 * formatHits(hits, { query: "motor driver" });
 * // robots/SMARS.md:12  SMARS Robot > SMARS > Motors
 * //     The SMARS uses two N20 geared micro motors, one per track…
 * ```
 */
export function formatHits(hits: ShownHit[], opts: FormatOptions = {}): string {
  const p: Paint = makePaint(!!opts.color);
  const pattern = opts.query ? termPattern(queryTerms(opts.query)) : undefined;
  const mark = (s: string) => (pattern && p.on ? s.replace(pattern, (m) => p.match(m)) : s);
  return hits
    .map((h, i) => {
      const at = `${p.path(printable(h.path))}:${p.line(String(h.meta.start_line))}`;
      const where = opts.link ? osc8(opts.link(h.path), at) : at;
      const score = opts.verbose
        ? `  ${p.dim(`score ${h.score.toFixed(3)}, distance ${h.distance.toFixed(3)}${ranksOf(h)}`)}`
        : "";
      return `${opts.numbered ? `[${i + 1}] ` : ""}${where}  ${p.label(printable(h.label))}${score}\n    ${mark(snippet(h.text, 100, pattern))}`;
    })
    .join("\n");
}
