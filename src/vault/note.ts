import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { excalidrawText, isExcalidraw } from "./excalidraw.js";
import { FOLDER_PAGE_NAMES, hashText, noteFolder } from "./note-path.js";
import { withoutComments } from "./comments.js";
import { withoutDataPayloads } from "./data-uri.js";
import { LEAVE_OUT_DEFAULTS, withoutQueries, type LeaveOut } from "./queries.js";
import { MAX_FRONTMATTER_BYTES, splitFrontmatter } from "./frontmatter.js";
import { scanBlocks } from "./markdown.js";
import { noteDate, readProperties } from "./properties.js";
import type { ObsidianType } from "./property-types.js";
import { findInlineRefs, frontmatterLinks, frontmatterList, normaliseTags } from "./tags.js";
import type { Note } from "./types.js";

export { FOLDER_PAGE_NAMES, hashText, noteFolder };

/** How notes are read: the frontmatter keys a note's date comes from, first found first (see {@link noteDate}). */
export interface NoteOptions {
  dateKeys?: readonly string[];
  /** The queries and sections left out of the body besides comments (see {@link withoutQueries}). */
  leaveOut?: LeaveOut;
  /** The vault's declared property types (`.obsidian/types.json`, see `readPropertyTypes`). */
  propTypes?: ReadonlyMap<string, ObsidianType>;
}

/**
 * Parses one note's text into a {@link Note}: frontmatter (title, tags, aliases), inline tags and
 * wikilinks. Invalid YAML never stops a note: the body is still used and a `frontmatter_invalid`
 * warning names the file and line; frontmatter over {@link MAX_FRONTMATTER_BYTES} is left unread,
 * with a `frontmatter_too_large` warning. An Excalidraw drawing keeps only its words ({@link excalidrawText}),
 * and a pasted image's base64 is left out ({@link withoutDataPayloads}).
 * The title is the frontmatter's `title`, else the file name; a folder's page (`index.md`,
 * `README.md`) takes its first `#` heading, else its folder's name.
 *
 * @example
 * ```ts
 * const note = parseNote("kitchen/Sourdough.md", "---\ntags: baking\n---\n# Starter\n", 1760000000);
 * note.title; // "Sourdough"
 * note.tags;  // ["baking"]
 * ```
 */
export function parseNote(
  path: string,
  text: string,
  mtime: number,
  log: Logger = silentLogger,
  opts: NoteOptions = {},
): Note {
  const fm = splitFrontmatter(text);
  if (fm.error) {
    log.warn(
      "frontmatter_invalid",
      `vault-rag: invalid frontmatter in "${path}" at line ${fm.error.line}: ${fm.error.message} — the note is indexed without it`,
      {
        path,
        line: fm.error.line,
      },
    );
  }
  if (fm.oversized !== undefined) {
    log.warn(
      "frontmatter_too_large",
      `vault-rag: the frontmatter of "${path}" is ${fm.oversized} bytes, over the ${MAX_FRONTMATTER_BYTES}-byte limit — the note is indexed without it`,
      { path, bytes: fm.oversized },
    );
  }
  const data = fm.data;
  const drawing = isExcalidraw(path, data);
  // a drawing's name is its title without the plugin's `.excalidraw`
  const fileName = path
    .split("/")
    .pop()!
    .replace(drawing ? /(?:\.excalidraw)?\.md$/i : /\.md$/i, "");
  // every chunk carries its note's aliases and tags, as its links: a note of thousands keeps the first
  // MAX_NOTE_NAMES of each (uncapped, a note of 50,000 tags makes a 95 MB index, and hits of megabytes)
  // of a list longer than that (or one repeated by YAML aliases), the first MAX_FRONTMATTER_VALUES
  // values are read, before they are normalised
  const rawAliases = frontmatterList(data.aliases ?? data.alias, false, MAX_FRONTMATTER_VALUES + 1);
  const aliasesListed = rawAliases.length > MAX_FRONTMATTER_VALUES;
  const aliasNames = [...new Set(rawAliases.slice(0, MAX_FRONTMATTER_VALUES))];
  const aliases = capped(aliasNames, "aliases", path, log, aliasesListed);
  // line endings normalised once, here: the tag scan and the chunker then read the same string (one parse)
  const unixBody = fm.body.includes("\r") ? fm.body.replace(/\r\n?/g, "\n") : fm.body;
  const { body, properties } = readableParts(drawing, unixBody, fm.yaml, opts.leaveOut);
  const rawTitle = data.title;
  const title =
    typeof rawTitle === "string" && rawTitle.trim()
      ? rawTitle.trim()
      : typeof rawTitle === "number"
        ? String(rawTitle)
        : FOLDER_PAGE.test(fileName)
          ? folderPageTitle(path, body, fileName)
          : fileName;
  // Markdown links are relative to the note's folder; wikilinks to the vault
  const inline = findInlineRefs(body, noteFolder(path));
  const rawTags = frontmatterList(data.tags ?? data.tag, true, MAX_FRONTMATTER_VALUES + 1);
  const tagsListed = rawTags.length > MAX_FRONTMATTER_VALUES;
  const tags = capped(
    normaliseTags([...rawTags.slice(0, MAX_FRONTMATTER_VALUES), ...inline.tags]),
    "tags",
    path,
    log,
    tagsListed,
  );
  // every chunk carries its note's links (filters and related read them there): a note of
  // thousands keeps the first MAX_NOTE_LINKS, so that its index does not grow as chunks × links
  // Obsidian's properties link too (`author: "[[Kevin Kelly]]"`): the frontmatter's wikilinks first
  let links = [...new Set([...frontmatterLinks(data), ...inline.links])];
  if (links.length > MAX_NOTE_LINKS) {
    log.warn(
      "links_truncated",
      `vault-rag: "${path}" links to ${links.length} notes; the first ${MAX_NOTE_LINKS} are kept as its links`,
      { path, links: links.length },
    );
    links = links.slice(0, MAX_NOTE_LINKS);
  }
  const props = drawing ? {} : readProperties(data, opts.propTypes);
  const dated = noteDate(path, props, Math.floor(mtime), opts.dateKeys);
  return {
    path,
    title,
    aliases,
    tags,
    links,
    linkTexts: inline.linkTexts,
    mtime: Math.floor(mtime),
    body,
    bodyStartLine: fm.bodyStartLine,
    properties,
    props,
    date: dated.date,
    dateSource: dated.source,
    hash: hashText(text),
  };
}

/**
 * What of a note's body and frontmatter is read, by the index and by `get_note` alike: an
 * Excalidraw drawing by its words, not its JSON ({@link excalidrawText}), and not by the plugin's
 * properties (`excalidraw-plugin: parsed`, no text of the user's); a note by its words, not the
 * base64 of an image pasted into it ({@link withoutDataPayloads}), and without its Obsidian comments
 * (`%%…%%`, {@link withoutComments}), which Obsidian shows only to the note's author in its editor,
 * nor its queries, Templater tags and embedded pictures ({@link withoutQueries}), which reading view
 * shows as what they make.
 *
 * @example
 * ```ts
 * readableParts(false, "![x](data:image/png;base64,iVBORw0K…)\n", "tags: [a]").properties; // "tags: [a]"
 * readableParts(false, "Plan %%draft, do not share%% here\n", "").body; // "Plan here\n"
 * ```
 */
export function readableParts(
  drawing: boolean,
  body: string,
  yaml: string,
  leaveOut: LeaveOut = LEAVE_OUT_DEFAULTS,
): { body: string; properties: string } {
  return drawing
    ? { body: excalidrawText(body), properties: "" }
    : {
        body: withoutDataPayloads(withoutQueries(withoutComments(body), leaveOut)),
        properties: withoutDataPayloads(yaml),
      };
}

// its file name says nothing of it
const FOLDER_PAGE = new RegExp(`^(?:${FOLDER_PAGE_NAMES.join("|")})$`, "i");

/** The title of a folder's page (`guide/index.md`): its first `#` heading, else its folder's name. */
function folderPageTitle(path: string, body: string, fileName: string): string {
  const scan = scanBlocks(body);
  const h1 = scan.levels.indexOf(1);
  if (h1 >= 0 && scan.texts[h1]) return scan.texts[h1];
  const folder = noteFolder(path);
  return folder ? folder.slice(folder.lastIndexOf("/") + 1) : fileName;
}

/** At most this many distinct tags, and aliases, of a note are kept (see `tags_truncated`, `aliases_truncated`). */
export const MAX_NOTE_NAMES = 200;

/** The most values of a frontmatter list (`tags`, `aliases`) read; the rest are not (see `tags_truncated`). */
export const MAX_FRONTMATTER_VALUES = 1000;

/**
 * The first {@link MAX_NOTE_NAMES} of a note's tags or aliases, with a warning when there were more
 * (or when its frontmatter listed more than {@link MAX_FRONTMATTER_VALUES}: `listed`).
 */
function capped(names: string[], what: "tags" | "aliases", path: string, log: Logger, listed = false): string[] {
  if (names.length <= MAX_NOTE_NAMES && !listed) return names;
  const count = listed ? `over ${MAX_FRONTMATTER_VALUES} ${what} in its frontmatter` : `${names.length} ${what}`;
  log.warn(
    `${what}_truncated`,
    `vault-rag: "${path}" has ${count}; the first ${Math.min(names.length, MAX_NOTE_NAMES)} are kept as its ${what}`,
    { path, [what]: names.length },
  );
  return names.slice(0, MAX_NOTE_NAMES);
}

/** At most this many distinct links of a note are kept as its `links` (see `links_truncated`). */
export const MAX_NOTE_LINKS = 1000;
