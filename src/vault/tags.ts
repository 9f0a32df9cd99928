import path from "node:path";
import { ATTACHMENT_TYPES } from "./attachments/types.js";
import { linkSentences, MAX_LINK_TEXTS, type LinkSpan, type LinkText } from "./link-text.js";
import { parseInline, scanBlocks, type LinkReferences, type Token } from "./markdown.js";
import { TAG_RE } from "./tag-pattern.js";
import { WIKILINK_RE, wikilinkShown, wikilinkTarget } from "./wikilink.js";

/**
 * Normalises tag values from any source: strips `#`, lowercases, drops empties, and adds the
 * parents of nested tags (`projects/robots` also yields `projects`). Order is first-seen.
 *
 * @example
 * ```ts
 * normaliseTags(["#Projects/Robots", "pico"]); // ["projects/robots", "projects", "pico"]
 * ```
 */
export function normaliseTags(raw: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const r of raw) {
    // composed, so that a tag is one string however its accents were typed
    const t = r.trim().replace(/^#+/, "").replace(/\/+$/, "").normalize("NFC").toLowerCase();
    if (!t) continue;
    out.add(t);
    const parts = t.split("/");
    for (let i = parts.length - 1; i > 0; i--) out.add(parts.slice(0, i).join("/"));
  }
  return [...out];
}

/**
 * Reads the frontmatter `tags` (or `tag`) value in any of its shapes: a list, a single string,
 * or a comma/space separated string. At most `limit` values are read (the first, in order): a
 * list may hold tens of thousands, or repeat one such list through YAML aliases.
 *
 * @example
 * ```ts
 * frontmatterList("robots, pico #esp32"); // ["robots", "pico", "#esp32"]
 * frontmatterList(["a", ["b", "c"]], true, 2); // ["a", "b"]
 * ```
 */
export function frontmatterList(value: unknown, splitSpaces = true, limit = Infinity): string[] {
  const out: string[] = [];
  // depth first, in order, without recursion: lists in lists are read as one list
  const stack: unknown[] = [value];
  while (stack.length > 0 && out.length < limit) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      // the list's items, the first on top; at most as many as may still be read
      for (let i = Math.min(v.length, limit - out.length) - 1; i >= 0; i--) stack.push(v[i]);
    } else if (typeof v === "string") {
      for (const part of v.split(splitSpaces ? /[,\s]+/ : /,/)) {
        const p = part.trim();
        if (p && out.length < limit) out.push(p);
      }
    } else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  }
  return out;
}

const HEX_COLOUR = /^(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;

/** Inline `#tags` and wikilink targets found in a note body. */
export interface InlineRefs {
  tags: string[];
  links: string[];
  /** Each link with the sentence around it (see {@link linkSentences}), in order. */
  linkTexts: LinkText[];
}

/**
 * Finds inline `#tags` and links to other notes in Markdown, outside code fences, inline code and
 * URLs: `[[wikilinks]]` (their target as written) and Markdown links to a note
 * (`[text](../unix/Some note.md)`, resolved against `folder`, the note's own vault-relative folder,
 * to a vault-relative path). Headings are parsed as headings, so `# Title` is never a tag;
 * `#ff0000` is a colour.
 *
 * @example
 * ```ts
 * findInlineRefs("Uses #pico/w and [[Battery#Current|power]]; `#not`").tags; // ["pico/w"]
 * findInlineRefs("See [the fallback](../unix/fallback.md#top).", "neovim").links; // ["unix/fallback.md"]
 * findInlineRefs("Bake it as [[Sourdough|the loaf]] says. Then rest.").linkTexts;
 * // [{ target: "Sourdough", text: "Bake it as the loaf says.", display: "the loaf" }]
 * ```
 */
export function findInlineRefs(body: string, folder = ""): InlineRefs {
  const tags: string[] = [];
  const links: string[] = [];
  const linkTexts: LinkText[] = [];
  if (!body.includes("#") && !body.includes("[")) return { tags, links, linkTexts };
  const scan = scanBlocks(body);
  for (const content of scan.refTexts) scanInline(content, tags, links, folder, linkTexts, scan.references);
  // each target and sentence once (a list of "[[x]] [[x]] …" says one thing), and at most MAX_LINK_TEXTS
  const seen = new Set<string>();
  const unique = linkTexts.filter((l) => {
    const key = `${l.target}\u0000${l.text}`;
    if (seen.has(key) || seen.size >= MAX_LINK_TEXTS) return false;
    seen.add(key);
    return true;
  });
  return { tags, links: [...new Set(links)], linkTexts: unique };
}

/**
 * The vault-relative note a Markdown link's href points at, or undefined: a relative (or
 * vault-rooted `/`) path that stays inside the vault, to a `.md` file or to a name without an
 * extension (`[setup](../guide/setup)`, as Obsidian and documentation sites write them), which
 * gets `.md`; a page a documentation site builds (`setup.html` is `setup.md`, a folder `guide/` is
 * `guide/index.md`); a PDF, Canvas board or Word document as it is (`../papers/paper.pdf`). URLs,
 * anchors alone and other files (pictures) are not note links.
 */
function markdownLinkTarget(href: string, folder: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#")) return undefined;
  let target = href.split("#")[0].split("?")[0];
  try {
    target = decodeURIComponent(target);
  } catch {
    // a stray % is part of the name
  }
  const name = target.slice(target.lastIndexOf("/") + 1);
  // a name a file can have, without a dot: `setup`, `Some note`; not `..`, `:key` or `a|b`
  if (/^[^.:*?"<>|\\]+$/.test(name)) target += ".md";
  // a documentation site's link to the page it builds from a note (`guide/setup.html`), and to a
  // folder's page (`/examples/`, built from `examples/index.md`)
  else if (/\.html?$/i.test(name)) target = target.replace(/\.html?$/i, ".md");
  else if (!name && target.length > 1 && /[^./]\/$/.test(target)) target += "index.md";
  // a PDF, Canvas board or Word document is linked as a note is (its passages take the note's tags)
  if (!/\.md$/i.test(target) && !ATTACHMENT_TYPES[path.posix.extname(target).toLowerCase()]) return undefined;
  const joined = path.posix.normalize(target.startsWith("/") ? target.slice(1) : path.posix.join(folder, target));
  return joined.startsWith("../") || joined === ".." || path.posix.isAbsolute(joined) ? undefined : joined;
}

function scanInline(
  content: string,
  tags: string[],
  links: string[],
  folder: string,
  texts: LinkText[],
  references: LinkReferences,
): void {
  const top = parseInline(content, references)[0];
  const children: Token[] = top?.children ?? [];
  let depthInLink = 0;
  // the block as a reader sees it (links as their text), and where each link stands in it
  let plain = "";
  const spans: LinkSpan[] = [];
  let open: { start: number; target?: string } | undefined;
  // the text between Markdown links and line breaks, read for wikilinks and tags as one run: a
  // wikilink's display text may hold code or emphasis (``[[#Heading|`visible` predicate]]``), which
  // split it into several tokens. `mask` is the run with code spans and escaped characters blanked,
  // what the wikilink and tag scans read (`#x` in code and `\#ffffff` are no tags)
  let run = "";
  let mask = "";
  const flush = () => {
    if (!run) return;
    const read = readWikilinks(run, mask, plain, spans, links);
    plain = read.plain;
    scanTags(read.rest, tags);
    run = mask = "";
  };
  for (const child of children) {
    if (child.type === "link_open") {
      flush();
      depthInLink++;
      const target = markdownLinkTarget(child.attrGet("href") ?? "", folder);
      if (target) links.push(target);
      if (depthInLink === 1) open = { start: plain.length, target };
    } else if (child.type === "link_close") {
      depthInLink = Math.max(0, depthInLink - 1);
      if (depthInLink === 0 && open?.target)
        spans.push({ start: open.start, end: plain.length, target: open.target, markdown: true });
      if (depthInLink === 0) open = undefined;
    } else if (
      depthInLink === 0 &&
      (child.type === "text" || child.type === "code_inline" || child.type === "text_special")
    ) {
      run += child.content;
      mask += child.type === "text" ? child.content : "\u0001".repeat(child.content.length);
    } else if (child.type === "text" || child.type === "text_special" || child.type === "code_inline")
      plain += child.content;
    else if (child.type === "softbreak" || child.type === "hardbreak") {
      flush();
      plain += " ";
    } else if (depthInLink === 0) {
      // inline HTML (`#garden<br>#weekly`), emphasis marks (`#tag**bold**`), an image: a boundary
      // between words, as in the rendered note, but not the end of a wikilink's run
      // (`[[Motors|the **N20** motors]]`): NUL in the run, dropped from what a reader sees
      run += "\u0000";
      mask += " ";
    }
  }
  flush();
  // twice the links a note keeps, before duplicates go: a note of thousands of links costs no more
  const room = 2 * MAX_LINK_TEXTS - texts.length;
  if (spans.length && room > 0) texts.push(...linkSentences(plain, spans.slice(0, room)));
}

/**
 * The notes a note's frontmatter links to: every `[[wikilink]]` in its values (text, lists, nested
 * up to a few levels), as Obsidian's properties link (`author: "[[Kevin Kelly]]"`, `categories:
 * ["[[People]]"]`), their targets as written.
 *
 * @example
 * ```ts
 * frontmatterLinks({ author: ["[[Kevin Kelly]]"], categories: "[[People|people]]", year: 2016 }); // ["Kevin Kelly", "People"]
 * ```
 */
export function frontmatterLinks(data: Record<string, unknown>): string[] {
  const links: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (typeof v === "string") {
      if (v.includes("[["))
        for (const m of v.matchAll(WIKILINK_RE)) {
          const target = wikilinkTarget(m[1]);
          if (target) links.push(target);
        }
    } else if (depth < 4 && Array.isArray(v)) for (const x of v.slice(0, 1000)) walk(x, depth + 1);
    else if (depth < 4 && v && typeof v === "object")
      for (const x of Object.values(v).slice(0, 1000)) walk(x, depth + 1);
  };
  walk(data, 0);
  return links;
}

/**
 * Reads the wikilinks of a text in one pass, as found in `mask` (the text with code spans and
 * escapes blanked, of the same length): each target (embeds too) goes to `links`; `plain` gets the
 * text with each link as its display text, and `spans` where each link (not an embed) stands in it;
 * `rest` is the mask with every link blanked, for the tag scan (a link's `#Heading` is no tag).
 */
function readWikilinks(
  text: string,
  mask: string,
  plain: string,
  spans: LinkSpan[],
  links: string[],
): { plain: string; rest: string } {
  let at = 0;
  let rest = "";
  const shownPart = (from: number, to?: number) => text.slice(from, to).replaceAll("\u0000", "");
  for (const m of mask.matchAll(WIKILINK_RE)) {
    plain += shownPart(at, m.index);
    rest += mask.slice(at, m.index) + " ";
    at = m.index! + m[0].length;
    const inner = shownPart(m.index! + (m[0].startsWith("!") ? 3 : 2), at - 2);
    const target = wikilinkTarget(inner);
    if (target) links.push(target);
    if (m[0].startsWith("!")) continue; // an embed shows the note, not words about it
    const shown = wikilinkShown(inner);
    if (target) spans.push({ start: plain.length, end: plain.length + shown.length, target });
    plain += shown;
  }
  return { plain: plain + shownPart(at), rest: rest + mask.slice(at) };
}

/** The `#tags` of a text with its links already blanked, outside URLs. */
function scanTags(text: string, tags: string[]): void {
  // URLs are not tag sources (`https://x.org/#anchor`)
  const withoutUrls = blankUrls(text);
  for (const m of withoutUrls.matchAll(TAG_RE)) {
    const tag = m[2].replace(/\/+$/, "");
    if (!tag) continue;
    if (HEX_COLOUR.test(tag) && /\d/.test(tag)) continue; // #ff0000, #0af
    if (HEX_COLOUR.test(tag) && m[1] === "" && /:\s*$/.test(withoutUrls.slice(0, m.index))) continue;
    tags.push(tag);
  }
}

/** The longest URL scheme looked for before a `://` (`https`, `obsidian`, `x-devonthink-item`). */
const MAX_SCHEME = 64;
const isSchemeChar = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isWordChar = (c: number) => (isSchemeChar(c) && c !== 43 && c !== 45 && c !== 46) || c === 95;

/**
 * The text with each URL (`scheme://…` up to the next white space) replaced by a space, as
 * `/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi` would, in one pass from each `://`: that pattern tried every
 * word start, so a note of `a.a.a.a…` and a `#` took 46 s for 400 KB (its time grew as the square).
 *
 * @example
 * ```ts
 * blankUrls("see https://x.org/#top and #tag"); // "see   and #tag"
 * ```
 */
export function blankUrls(text: string): string {
  let at = text.indexOf("://");
  if (at < 0) return text;
  let out = "";
  let last = 0;
  for (; at >= 0; at = text.indexOf("://", at + 3)) {
    if (at < last) continue;
    // the scheme: the letters, digits, `+`, `-` and `.` before `://`, from a letter at a word's start
    let from = at;
    while (from > last && at - from < MAX_SCHEME && isSchemeChar(text.charCodeAt(from - 1))) from--;
    while (from < at && !(isLetter(text.charCodeAt(from)) && (from === 0 || !isWordChar(text.charCodeAt(from - 1)))))
      from++;
    let to = at + 3;
    while (to < text.length && !/\s/.test(text[to])) to++;
    if (from === at || to === at + 3) continue; // no scheme, or nothing after `://`
    out += `${text.slice(last, from)} `;
    last = to;
    at = to - 3;
  }
  return out + text.slice(last);
}
