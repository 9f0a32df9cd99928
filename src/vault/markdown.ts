import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";
import { mathBlock, type MathEnv } from "./math-block.js";
import { WIKILINK_RE, wikilinkShown } from "./wikilink.js";

/*
 * One CommonMark parser (markdown-it) for the whole project. markdown-it, not
 * micromark/mdast: mdast-util-from-markdown takes 1.2 s for a 100 KB note
 * and grows faster than linearly (8 s at 400 KB), while markdown-it's block pass reads 5 MB in well
 * under a second. Block tokens carry source line maps, which is all the chunker needs.
 */
const blockParser = new MarkdownIt("commonmark", { html: true });
blockParser.core.ruler.disable(["inline", "text_join"]);
// GitHub's tables, as Obsidian writes them (CommonMark has none: it would read a table as a
// paragraph and cut it between its rows, a tail of rows without the header row)
blockParser.block.ruler.enable("table");
// Obsidian's display math: a `$$` block is one block, never a setext heading or two paragraphs
blockParser.block.ruler.before("fence", "math_block", mathBlock, {
  alt: ["paragraph", "reference", "blockquote", "list"],
});

const inlineParser = new MarkdownIt("commonmark", { html: true, linkify: false });
// escapes stay their own tokens (`text_special`): `\#ffffff` is no tag and `\[\[x]]` no link
inlineParser.core.ruler.disable("text_join");

export type { Token };

/** The block structure of a note body, kept compact (no token objects survive the scan). */
export interface BlockScan {
  /** Number of lines in the scanned text. */
  lineCount: number;
  /** Start line (0-based) of each top-level block, in order. */
  starts: number[];
  /** Per top-level block: heading level 1–6, or 0 when it is not a heading. */
  levels: number[];
  /** Per top-level block: heading text (trimmed) for headings, "" otherwise. */
  texts: string[];
  /** Per top-level block: never split it (a fence, code, HTML, table or `$$` math block, or a container holding one). */
  atomic: boolean[];
  /** Per top-level block: a table, whose first two lines are its header and delimiter rows. */
  tables: boolean[];
  /** Inline text of every paragraph or heading, at any depth, that holds `#` or `[` (tag and link sources). */
  refTexts: string[];
  /**
   * The items of each top-level list that holds code or math (by block index): each item's first
   * line and whether it holds code itself. The chunker keeps such a list's items whole, not the
   * whole list.
   */
  items: Record<number, ListItems>;
  /**
   * The note's link reference definitions (`[label]: other.md`), as the parser files them: what
   * {@link parseInline} needs to read `[text][label]` as a link. The first definition of a label wins.
   */
  references: LinkReferences;
}

/** The items of one top-level list: each one's first line (0-based), and whether it holds code. */
export interface ListItems {
  starts: number[];
  atomic: boolean[];
}

/** Link reference definitions by normalised label, as markdown-it keeps them in its `env`. */
export type LinkReferences = Record<string, { href: string; title: string }>;

/** Characters per parse slice: small enough that its tokens die in the young generation (measured: 16–64 KB slices scan a dense 5 MB note in half the time of 256 KB ones). */
export const SLICE_CHARS = 32 * 1024;

/**
 * Scans the block structure of a Markdown text with the CommonMark parser. Long texts are parsed in
 * slices that each end at the start of a top-level block or of an item of a top-level list, so no
 * slice boundary can change a result: block parsing reads forward, and such a line closes everything
 * before it (a slice that starts inside a list continues the list's block).
 * Each slice's tokens are read into compact arrays and dropped, which keeps a 5 MB note's 700,000
 * tokens out of the old generation. The last scan is remembered, so the note parser and the chunker
 * share one parse.
 *
 * @example
 * ```ts
 * const scan = scanBlocks("# Hi\n\ntext\n");
 * scan.starts; // [0, 2]
 * scan.levels; // [1, 0]
 * scan.texts;  // ["Hi", ""]
 * ```
 */
export function scanBlocks(text: string, sliceChars = SLICE_CHARS): BlockScan {
  if (lastScan && text === lastScan.text && sliceChars === lastScan.sliceChars) return lastScan.scan;
  const raw = text;
  // the normalisation markdown-it's core would do (\r\n and a lone \r end lines; NUL is replaced),
  // done once here so the line arithmetic below agrees with the parser's
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  if (text.includes("\0")) text = text.replace(/\0/g, "\uFFFD");
  const scan: BlockScan = {
    lineCount: 1,
    starts: [],
    levels: [],
    texts: [],
    atomic: [],
    tables: [],
    refTexts: [],
    items: {},
    references: {},
  };
  let at = 0; // char offset of the current slice
  let line = 0; // its first line
  let size = sliceChars;
  let continues = false; // the slice starts at an item of a top-level list
  const track: ListTrack = {};
  for (;;) {
    let end = Math.min(text.length, at + size);
    if (end < text.length) end = text.indexOf("\n", end) + 1 || text.length;
    const final = end === text.length;
    const tokens: Token[] = [];
    const env: { references?: LinkReferences } & MathEnv = {};
    const state = new blockParser.block.State(at === 0 && final ? text : text.slice(at, end), blockParser, env, tokens);
    keepNoTableParts(state);
    env.rootLines = state.lineMax;
    blockParser.block.tokenize(state, state.line, state.lineMax);
    // cut before the last top-level block or top-level list item: everything before it is final.
    // A `$$` whose closing line may lie past this slice is read again: the cut goes before the block
    // that holds it, and the next slice reads it with more text after it
    const limit = env.ranOutLine ?? Infinity;
    let cut = tokens.length;
    if (!final) {
      cut = -1;
      for (let i = tokens.length - 1; i > 0; i--) {
        const t = tokens[i];
        if (
          t.map &&
          t.map[0] > 0 &&
          t.map[0] <= limit &&
          ((t.level === 0 && t.nesting >= 0) || (t.level === 1 && t.type === "list_item_open"))
        ) {
          cut = i;
          break;
        }
      }
      if (cut < 0) {
        size *= 2; // no top-level block starts after the first: read a longer slice
        continue;
      }
    }
    readTokens(tokens, cut, line, continues, scan, track);
    // a definition is a top-level block, wholly before or after a cut: one after it is filed again by
    // the next slice, with the same value
    for (const [label, ref] of Object.entries(env.references ?? {}))
      if (scan.references[label] === undefined) scan.references[label] = ref;
    if (final) break;
    const cutLine = tokens[cut].map![0];
    continues = tokens[cut].level === 1;
    at += state.bMarks[cutLine];
    line += cutLine;
    size = sliceChars;
  }
  for (let i = text.indexOf("\n", at); i >= 0; i = text.indexOf("\n", i + 1)) line++;
  scan.lineCount = line + 1;
  // only a list that holds code is cut at its items; any other is read as text
  settleList(track, scan);
  lastScan = { text: raw, sliceChars, scan };
  return scan;
}

/** The tokens of a table's rows and cells, which the scan never reads. */
const TABLE_PARTS = new Set(["thead", "tbody", "tr", "th", "td"].flatMap((t) => [`${t}_open`, `${t}_close`]));

/**
 * Makes a block state drop a table's row and cell tokens as they are made, and each cell's text
 * unless it may hold a tag or link: a table is one block, which no slice can cut, and a 20 MB table
 * (3 million rows) would keep 26 million tokens at once (4.5 GB, out of memory); a few are kept per table.
 * A cell's text is set after its token is made, so it is judged when the next token comes.
 */
function keepNoTableParts(state: InstanceType<typeof blockParser.block.State>): void {
  const push = state.push;
  let inTable = 0;
  state.push = function (type, tag, nesting) {
    const tokens = this.tokens;
    const last = tokens[tokens.length - 1];
    if (inTable && last?.type === "inline" && !last.content.includes("#") && !last.content.includes("[")) tokens.pop();
    const token = push.call(this, type, tag, nesting);
    if (type === "table_open") inTable++;
    else if (type === "table_close") inTable--;
    else if (inTable && TABLE_PARTS.has(type)) tokens.pop();
    return token;
  };
}

/** Blocks never split (up to `maxBlockWords`), and that keep whole the container (callout, list item, quote) holding them. */
const KEEP_WHOLE = new Set(["fence", "code_block", "math_block", "table_open"]);

/** The top-level list being read, whose items are kept only if it turns out to hold code. */
interface ListTrack {
  list?: { block: number; items: ListItems };
}

/** Files the tracked list's items when the list holds code, and stops tracking it. */
function settleList(track: ListTrack, scan: BlockScan): void {
  if (track.list && scan.atomic[track.list.block]) scan.items[track.list.block] = track.list.items;
  track.list = undefined;
}

function readTokens(
  tokens: Token[],
  count: number,
  lineOffset: number,
  continues: boolean,
  scan: BlockScan,
  track: ListTrack,
): void {
  let depth = 0;
  let current = -1;
  for (let i = 0; i < count; i++) {
    const t = tokens[i];
    if (continues && i === 0) {
      current = scan.starts.length - 1; // the rest of the list the last slice cut: the same block
    } else if (depth === 0 && t.map && t.nesting >= 0) {
      current = scan.starts.length;
      settleList(track, scan);
      if (t.type === "bullet_list_open" || t.type === "ordered_list_open")
        track.list = { block: current, items: { starts: [], atomic: [] } };
      scan.starts.push(t.map[0] + lineOffset);
      const heading = t.type === "heading_open";
      scan.levels.push(heading ? Number(t.tag.slice(1)) : 0);
      scan.texts.push(heading ? headingText(tokens[i + 1]?.content ?? "") : "");
      scan.atomic.push(KEEP_WHOLE.has(t.type) || t.type === "html_block");
      scan.tables.push(t.type === "table_open");
    } else if (depth > 0 && current >= 0 && KEEP_WHOLE.has(t.type)) {
      scan.atomic[current] = true; // a fence or math inside a callout, list or quote: keep the container whole
      const items = track.list?.block === current ? track.list.items : undefined;
      if (items?.atomic.length) items.atomic[items.atomic.length - 1] = true; // and the list item holding it
    } else if (t.type === "list_item_open" && t.level === 1 && t.map && track.list?.block === current) {
      track.list.items.starts.push(t.map[0] + lineOffset);
      track.list.items.atomic.push(false);
    }
    if (t.type === "inline" && (t.content.includes("#") || t.content.includes("["))) {
      // a heading's `{#id}` is no tag
      const content = tokens[i - 1]?.type === "heading_open" ? withoutAttrs(t.content) : t.content;
      if (content.includes("#") || content.includes("[")) scan.refTexts.push(content);
    }
    depth += t.nesting;
  }
}

let lastScan: { text: string; sliceChars: number; scan: BlockScan } | undefined;

// a trailing attribute block: `{#basic-usage}` (VitePress, MkDocs, Pandoc), `{: #id .class}` (kramdown);
// matched from the last `{` (a pattern that starts with \s* is quadratic on a long run of spaces)
const HEADING_ATTRS = /^\{:?\s*[#.][^{}\n]*\}\s*$/;

/** A heading's text without a trailing attribute block. */
function withoutAttrs(raw: string): string {
  const at = raw.lastIndexOf("{");
  return at >= 0 && HEADING_ATTRS.test(raw.slice(at)) ? raw.slice(0, at).trimEnd() : raw;
}
// characters that may be Markdown or HTML in a heading; a heading without any is its own text
const INLINE_MARKUP = /[\\*_`<&[!]/;

/**
 * A heading as a reader sees it, for breadcrumbs and for finding a section by name: without a
 * trailing attribute block (`{#basic-usage}`), inline HTML (`<sup class="badge" />`), emphasis
 * marks, backticks or escapes, and a link (Markdown or wiki) as its text.
 *
 * @example
 * ```ts
 * headingText("Basic Usage {#basic-usage}"); // "Basic Usage"
 * headingText("`<script setup>` **Props** <sup class=\"vt-badge\" />"); // "<script setup> Props"
 * headingText("[[Dynamic Programming]] (bottom-up)"); // "Dynamic Programming (bottom-up)"
 * ```
 */
export function headingText(raw: string): string {
  // on one line: a setext heading's text may run over several; a wikilink outside code as
  // Obsidian shows it (an embed shows its note, no words), which Markdown would leave in brackets
  const text = withoutAttrs(raw)
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2 ? part : part.replace(WIKILINK_RE, (m, inner: string) => (m.startsWith("!") ? "" : wikilinkShown(inner))),
    )
    .join("")
    .replace(/\s+/g, " ")
    .trim();
  if (!INLINE_MARKUP.test(text)) return text;
  let out = "";
  for (const t of parseInline(text)[0]?.children ?? [])
    if (t.type === "text" || t.type === "text_special" || t.type === "code_inline") out += t.content;
    else if (t.type === "softbreak" || t.type === "hardbreak") out += " ";
    else if (t.type === "image") out += t.content;
  return out.replace(/\s+/g, " ").trim() || text;
}

/**
 * Inline tokens of one line of Markdown text (code spans, links, text...). With the note's
 * `references` ({@link BlockScan.references}), `[text][label]` and `[label]` read as the links they define.
 *
 * @example
 * ```ts
 * parseInline("see `#x` and \\#no")[0].children!.map((t) => t.type); // ["text", "code_inline", "text", "text_special", "text"]
 * parseInline("[the loaf][l]", scanBlocks("[l]: Sourdough.md\n").references)[0].children![0].attrGet("href"); // "Sourdough.md"
 * ```
 */
export function parseInline(text: string, references?: LinkReferences): Token[] {
  return inlineParser.parseInline(text, references ? { references } : {});
}
