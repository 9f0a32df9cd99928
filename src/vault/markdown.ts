import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

/*
 * One CommonMark parser (markdown-it) for the whole project. markdown-it was chosen over
 * micromark/mdast after measuring both here: mdast-util-from-markdown took 1.2 s for a 100 KB note
 * and grew faster than linearly (8 s at 400 KB), while markdown-it's block pass reads 5 MB in well
 * under a second. Block tokens carry source line maps, which is all the chunker needs.
 */
const blockParser = new MarkdownIt("commonmark", { html: true });
blockParser.core.ruler.disable(["inline", "text_join"]);

const inlineParser = new MarkdownIt("commonmark", { html: true, linkify: false });

export type { Token };

/**
 * Block-level tokens of a Markdown text (headings, paragraphs, fences, lists, blockquotes...), each
 * opening token with `map = [startLine, endLine)` (0-based, relative to `text`).
 *
 * @example
 * ```ts
 * parseBlocks("# Hi\n\ntext\n").filter((t) => t.type === "heading_open")[0].map; // [0, 1]
 * ```
 */
export function parseBlocks(text: string): Token[] {
  // the note parser and the chunker both read the same body: parse it once
  if (text === last.text) return last.tokens;
  const tokens = blockParser.parse(text, {});
  last = { text, tokens };
  return tokens;
}

let last: { text: string; tokens: Token[] } = { text: "", tokens: [] };

/**
 * Inline tokens of one line of Markdown text (code spans, links, text...).
 *
 * @example
 * ```ts
 * parseInline("see `#x` and #tag")[0].children!.map((t) => t.type); // ["text", "code_inline", "text"]
 * ```
 */
export function parseInline(text: string): Token[] {
  return inlineParser.parseInline(text, {});
}
