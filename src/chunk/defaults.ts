import { VaultRagError } from "../errors.js";

/**
 * Chunking options. Sizes are in words (whitespace-separated).
 *
 * Why these defaults: a chunk is what a reader would quote and what `ask` hands the model, so it is
 * a heading section or a run of whole paragraphs and blocks, never a shard. Chunks cut to
 * fit the bundled model's 128-token window turn a real 1,871-note vault (til) into 15,685
 * chunks of 16–60 words, many starting mid-sentence, for hybrid nDCG@10 0.618 (0.215 on
 * paraphrased questions). Passages of up to 200 words with no overlap (median 129 words on til, 152 on
 * SciFact), windowed by the embedder, give 0.729 (0.431). Sections under 30
 * words merge into a neighbour; a code block or table stays whole up to 1,000 words.
 */
export interface ChunkOptions {
  /** Largest chunk, in words, before a section is split. */
  maxWords?: number;
  /** Words repeated at the start of the next piece when a section is split. */
  overlapWords?: number;
  /** Sections smaller than this are merged into a neighbour; so is a shorter last run of a long section. */
  minWords?: number;
  /** A code block or table stays whole up to this many words; a longer one is cut at line ends. */
  maxBlockWords?: number;
}

/** {@link ChunkOptions} with every size filled in. */
export type ChunkOptionsWithDefaults = Required<ChunkOptions>;

/** The defaults, in one place; the CLI's help reads them from here. */
export const CHUNK_DEFAULTS: ChunkOptionsWithDefaults = {
  maxWords: 200,
  overlapWords: 0,
  minWords: 30,
  maxBlockWords: 1000,
};

/**
 * Bumped whenever chunk boundaries, ids or the metadata a note yields change for the same input;
 * stored in the index manifest, so the next `index` re-chunks every note (re-using every vector
 * whose window text is unchanged).
 *
 * - 7: Markdown links to notes count as links.
 * - 8: each link's sentence is stored as backlink text of the note it points to.
 * - 9: reference-style links (`[text][label]`) and Markdown links without `.md`
 *   (`[setup](guide/setup)`) count as links; an Excalidraw drawing is read without its drawing data.
 * - 10: `$$` display math is one block (no setext headings made of its `=` lines).
 * - 11: headings read as a reader sees them in breadcrumbs (no `{#id}`, inline HTML or emphasis
 *   marks), and a heading's `{#id}` is no tag.
 * - 12: a link to a documentation site's page (`setup.html`, `guide/`) is a link to the note it is
 *   built from (`setup.md`, `guide/index.md`).
 * - 13: a run of a section is not cut before it holds `minWords` of its own (a heading goes with the
 *   long list or code block after it).
 * - 14: a folder's page (`index.md`, `README.md`) is titled by its first `#` heading, else its folder.
 * - 15: a list that holds code is cut between its items, each kept whole, instead of being one
 *   block of up to `maxBlockWords`.
 * - 16: a table is one block, kept whole up to `maxBlockWords` like a code block, not a paragraph
 *   cut between its rows.
 * - 17: a tiny section merges only into a neighbour under the same parent heading (its parent's
 *   text, an earlier sibling, or a section below it), and a sibling merged in is named in the
 *   breadcrumb (`Hotkeys > Remove a hotkey · Filter hotkeys`), not joined to whatever chunk comes
 *   before, whose breadcrumb and line would point elsewhere. A first heading that repeats a file
 *   name spelt with decomposed accents is read as the title.
 * - 18: Chinese and Japanese count one word per two characters (not one word per run of
 *   text without spaces, which merges a note's sections into passages of 5,000 characters), and a
 *   paragraph of them is cut after `。`, `！` or `？`.
 * - 19: a tag holds its letters' combining marks (`#café` with a decomposed accent, Devanagari
 *   vowel signs) and is stored composed (NFC); a table over `maxBlockWords` repeats its header in
 *   each piece; an empty heading goes with its next sibling; sections are told apart by their
 *   heading's line, not its text; at most five merged siblings are named; Chinese or Japanese
 *   without sentence marks is cut every `maxWords`.
 * - 20: a note's links include its frontmatter's wikilinks (Obsidian properties: `author:
 *   "[[Kevin Kelly]]"`), for `links` filters and `related` (they hold no sentence, so they give no
 *   backlink text); a symlink to a note the vault holds is no second note. Chunks are as in 19.
 * - 21: a wikilink whose display text holds code or emphasis (``[[#Heading|`visible` predicate]]``)
 *   is one link, not a `#Heading` tag; an escaped `\#ffffff` is no tag and `\[\[x]]` no link.
 * - 22: a note with properties and no body is one chunk of its frontmatter as written (with no
 *   chunk, no search finds it, and `tags`, `folders` and `related` leave it out).
 * - 23: a tag ends at inline HTML or an emphasis mark (`#garden<br>#weekly` is two tags), as in
 *   20; the frontmatter of a note of properties alone is cut as a body is (runs of whole lines of up
 *   to `maxWords`), not kept as one chunk of any size.
 * - 24: a long base64 data URI (an image pasted into the note) is read as `data:image/png;base64,…`,
 *   not a "word" of 200,000 characters embedded and shown; a numbered item's `4.` is
 *   no sentence's end (a long list is not cut between an item's number and its text); a tiny section
 *   with nothing before it to join goes into its next sibling, both named; one that holds the most of
 *   what it merges with gives the passage its breadcrumb (a note's opening text above an empty
 *   `## References` is not labelled "References"); a tiny section may join an ancestor's text that
 *   its parent went into; a chunk holds at most `MAX_CHUNK_CHARS` (20,000) characters, whatever its
 *   words (a 5 MB "word" is not one chunk, read whole by every filter test, window and answer).
 * - 25: a tiny section merged into its next sibling keeps
 *   that sibling's headings, by which the sections after it are placed, and is named before it
 *   (`Tiny · Main topic`; with the tiny one's headings a subsection of the larger one would stand
 *   alone and the model would read the small one's heading); a tiny section that holds more than the one
 *   below it stays, and that one joins it, instead of a preamble being renamed and carried across
 *   top-level sections; siblings named in front are kept when the passage goes on below them.
 * - 26: a passage of headings alone is embedded as its title and headings (not one vector, of an
 *   empty text, for all); an Excalidraw drawing with no text elements has no passage (none of
 *   `# Text Elements`, or of the plugin's own properties), as an empty note has none.
 * - 27: a heading's wikilinks read as Obsidian shows them (`[[Dynamic Programming]] (Bottom-up)` is
 *   "Dynamic Programming (Bottom-up)", `[[algo/Graphs|graphs]]` is "graphs"): in breadcrumbs, in
 *   what is embedded and in what keyword search reads as the heading path.
 * - 28: Obsidian's comments (`%%…%%`, inline and block) are left out of every passage, with the
 *   links and tags inside them; `%%` in code stays (see `withoutComments`). Every passage carries
 *   its note's properties and date (`props`, `date`, `date_source`). An index written by 27 is read
 *   again by the next `index`; its vectors are kept by their text's hash.
 * - 29: Dataview, Tasks and embedded-search blocks, inline Dataview queries, Templater tags and
 *   embedded pictures, sounds and videos are left out of every passage (see `withoutQueries`); a
 *   passage that held nothing else holds its headings alone.
 * - 30: every passage carries its file's type (`file_type`: `note`, `pdf`, `canvas`, `docx`) and `page` (a PDF
 *   page, else 0), and PDFs, Canvas boards and Word documents are passages too (see
 *   `chunkAttachment`). A note's passages are as in 29; they are written again so that a Chroma
 *   collection's records carry `type` and `page` (its vectors are kept by their text's hash).
 * - 31: a Markdown link to a PDF, Canvas board or Word document (`[paper](papers/paper.pdf)`) is a
 *   link, as a wikilink to one is; an attachment's passages carry the tags of the notes that link to
 *   it or embed it. Every note is read again so that its links to attachments are found.
 */
export const CHUNKER_VERSION = "31";

/**
 * Fills in defaults and checks the values.
 *
 * @example
 * ```ts
 * withChunkDefaults({ maxWords: 300 }).overlapWords; // 0, the default
 * ```
 */
export function withChunkDefaults(opts: ChunkOptions = {}): ChunkOptionsWithDefaults {
  const o = {
    ...CHUNK_DEFAULTS,
    ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
  } as ChunkOptionsWithDefaults;
  if (!Number.isInteger(o.maxWords) || o.maxWords < 8)
    throw new VaultRagError("usage", `vault-rag: maxWords must be an integer of at least 8, got ${o.maxWords}`);
  if (!Number.isInteger(o.overlapWords) || o.overlapWords < 0 || o.overlapWords >= o.maxWords / 2)
    throw new VaultRagError(
      "usage",
      `vault-rag: overlapWords must be an integer from 0 to below half of maxWords (${o.maxWords}), got ${o.overlapWords}`,
    );
  if (!Number.isInteger(o.minWords) || o.minWords < 0)
    throw new VaultRagError("usage", `vault-rag: minWords must be a non-negative integer, got ${o.minWords}`);
  if (!Number.isInteger(o.maxBlockWords) || o.maxBlockWords < o.maxWords)
    throw new VaultRagError(
      "usage",
      `vault-rag: maxBlockWords must be an integer of at least maxWords (${o.maxWords}), got ${o.maxBlockWords}`,
    );
  return o;
}
