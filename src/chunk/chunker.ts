import { hashText, nameWords, noteFolder, type Note } from "../vault/index.js";
import { withChunkDefaults, type ChunkOptions, type ChunkOptionsWithDefaults } from "./defaults.js";
import { walkSections } from "./sections.js";
import type { Chunk, ChunkMeta } from "./types.js";
import { countWords, isSpace, lastWords } from "./words.js";
import { Lines, unitPieces, type Piece } from "./pieces.js";

export { countWords, lastWords };

interface Draft {
  trail: string[];
  /** The body line of each heading in `trail`: the section's identity, as two headings may read alike. */
  heads: number[];
  level: number;
  pieces: Piece[];
  words: number;
  /** Headings of later sibling sections merged into this draft, named in its breadcrumb. */
  also?: string[];
  /**
   * Headings of earlier sibling sections merged in front of it, by the place in its trail whose
   * heading they are named before (its own, or an ancestor's it was merged on below): `Tiny · Main topic`.
   */
  lead?: Record<number, string[]>;
}

/**
 * Cuts a note into passages a reader would quote: one per heading section, labelled with its
 * breadcrumb (`Title > H1 > H2`); a long section is split into runs of whole paragraphs, list items
 * and blocks, and a paragraph only at sentence ends; tiny sections are merged into a neighbour and a
 * heading with no text never stands alone; a code block or table stays whole up to
 * `maxBlockWords`. Frontmatter is chunk text only of a note with no body (see propertiesDrafts).
 * The chunker knows no embedding model: fitting a passage into a model's window is the embedder's
 * business.
 *
 * @example
 * ```ts
 * const chunks = chunkNote(parseNote("robots/SMARS.md", text, mtime));
 * chunks[0].meta.section; // "SMARS Robot > SMARS" (its title, then the note's first heading)
 * ```
 */
export function chunkNote(note: Note, options: ChunkOptions = {}): Chunk[] {
  const opts = withChunkDefaults(options);
  return cutNote(note, new Lines(note.body), opts); // line endings are already \n (parseNote)
}

function cutNote(note: Note, src: Lines, opts: ChunkOptionsWithDefaults): Chunk[] {
  const body = src.body;
  const build = chunkBuilder(note, body);
  const chunks: Chunk[] = [];
  // one pass, section by section: nothing per block or draft outlives its section but the chunks
  const merger = tinyMerger(opts.minWords, opts.maxWords, (d) => {
    for (const part of withinChars(d, MAX_CHUNK_CHARS)) chunks.push(build(part, chunks.length));
  });
  const pieces: Piece[] = [];
  const drafts: Draft[] = [];
  let trail: string[] = [];
  let heads: number[] = [];
  let level = 0;
  const endSection = () => {
    if (!pieces.length) return;
    drafts.length = 0;
    packSection(trail, heads, level, pieces, opts.maxWords, opts.overlapWords, opts.minWords, drafts);
    for (const d of drafts) merger.push(d);
    pieces.length = 0;
  };
  walkSections(body, {
    section(t, l, lines) {
      endSection();
      trail = t;
      heads = lines;
      level = l;
    },
    block(start, end, atomic, item, table) {
      const first = pieces.length;
      unitPieces(src, start, end, atomic, opts.maxWords, opts.maxBlockWords, pieces, table);
      // an item right below the one before it (a tight list) joins it with a line break, as written
      if (item && pieces.length > first && start > 0 && !src.blank(start - 1)) pieces[first].join = "\n";
    },
  });
  endSection();
  merger.end();
  if (!chunks.length && note.properties)
    for (const d of propertiesDrafts(note.properties, note.bodyStartLine, opts.maxWords))
      chunks.push(build(d, chunks.length));
  return chunks;
}

/**
 * The passages of a note that has properties and no body (a book, a person, a meeting note made of
 * fields, as many Obsidian vaults keep them): its frontmatter as written, so that it is found by its
 * title and fields and its hit shows what it holds. Runs of whole lines of up to `maxWords` words,
 * as a body's paragraphs are cut; a longer line (a long description) is cut into runs of its words.
 */
function propertiesDrafts(yaml: string, bodyStartLine: number, maxWords: number): Draft[] {
  const drafts: Draft[] = [];
  const start = (text: string, line: number, words: number): Draft => {
    const piece: Piece = { text, start: line, end: line, words, atomic: true, join: "", from: -1, to: -1 };
    const d: Draft = { trail: [], heads: [], level: 0, pieces: [piece], words };
    drafts.push(d);
    return d;
  };
  let open: Draft | undefined; // the passage the next short line joins
  yaml
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .forEach((l, i) => {
      // lines as the builder counts them, from the body's first line: the YAML starts on the file's line 2
      const line = 2 + i - bodyStartLine;
      const w = countWords(l);
      if (!w) return;
      if (w > maxWords) {
        // each run of a long line is a passage of its own
        const all = l.trim().split(/\s+/);
        for (let k = 0; k < all.length; k += maxWords)
          start(all.slice(k, k + maxWords).join(" "), line, Math.min(maxWords, all.length - k));
        open = undefined;
      } else if (open && open.words + w <= maxWords) {
        const piece = open.pieces[0];
        piece.text += `\n${l}`;
        piece.end = line;
        piece.words += w;
        open.words += w;
      } else open = start(l, line, w);
    });
  return drafts;
}

/**
 * The most characters a chunk holds, whatever its words: a "word" may be a 5 MB line of base64 or
 * minified code, and every filter test, window and answer's context reads a chunk whole (a
 * `whereDocument` regex on one such chunk ran for 63 s, past its 5 s budget, which is checked
 * between chunks). Real passages stay far below it: the longest on til, SciFact and examples is
 * 2,251 characters, on the Rust book a table of 10,265.
 */
export const MAX_CHUNK_CHARS = 20_000;

/**
 * A draft as drafts of at most `max` characters each: whole pieces while they fit, and a piece
 * longer than that cut at white space near the limit, else at the limit.
 */
function withinChars(d: Draft, max: number): Draft[] {
  let total = 0;
  for (const p of d.pieces) total += p.text.length + 2;
  if (total <= max) return [d];
  const parts: Draft[] = [];
  let cur: Draft = { ...d, pieces: [], words: 0 };
  let chars = 0;
  const push = (p: Piece) => {
    if (cur.pieces.length && chars + p.text.length + 2 > max) {
      parts.push(cur);
      cur = { ...d, pieces: [], words: 0, also: undefined, lead: undefined };
      chars = 0;
    }
    cur.pieces.push(p);
    cur.words += p.words;
    chars += p.text.length + 2;
  };
  for (const p of d.pieces) {
    if (p.text.length <= max) {
      push(p);
      continue;
    }
    // cut at the last white space in the last fifth before the limit, else at the limit; lines
    // counted as the cuts go (a 5 MB piece is read once)
    let line = p.start;
    for (let at = 0; at < p.text.length;) {
      let to = Math.min(at + max, p.text.length);
      if (to < p.text.length)
        for (let k = to - 1; k > at + max * 0.8; k--)
          if (isSpace(p.text.charCodeAt(k))) {
            to = k;
            break;
          }
      const text = p.text.slice(at, to);
      const start = line;
      for (let k = at; k < to; k++) if (p.text.charCodeAt(k) === 10) line++;
      push({
        ...p,
        text,
        start,
        end: Math.min(p.end, line),
        words: countWords(text),
        join: at ? "\n" : p.join,
        from: -1,
        to: -1,
      });
      at = to;
      while (at < p.text.length && isSpace(p.text.charCodeAt(at))) {
        if (p.text.charCodeAt(at) === 10) line++;
        at++;
      }
      line = Math.min(p.end, line);
    }
  }
  if (cur.pieces.length) parts.push(cur);
  return parts;
}

/** Merged siblings named in a breadcrumb at most; more are counted (`· 12 more`). */
const MAX_NAMED = 5;

const sha = hashText;

/** Turns final drafts of one note into chunks (breadcrumb, embed text, hashes, metadata). */
function chunkBuilder(note: Note, body: string): (d: Draft, ordinal: number) => Chunk {
  const folder = noteFolder(note.path);
  const topFolder = note.path.includes("/") ? note.path.slice(0, note.path.indexOf("/")) : "";
  const offset = note.bodyStartLine;
  const titleWords = nameWords(note.title);
  let trailOf: string[] | undefined;
  let section = "";
  let subTrail = "";
  return (d, ordinal) => {
    const text = joinPieces(d.pieces, body);
    if (d.trail !== trailOf || d.also || d.lead) {
      // drafts of one section share their trail: build its breadcrumb once
      trailOf = d.trail;
      // a first heading that repeats the title stands for it (`# Check If A File Changed` for
      // check-if-a-file-changed.md): the breadcrumb reads as the note's own heading, once
      const repeats = d.trail.length > 0 && nameWords(d.trail[0]) === titleWords;
      // earlier siblings merged in front are named before the section's own heading: "Tiny · Main topic"
      const shown = [...d.trail];
      for (const [at, names] of Object.entries(d.lead ?? {}))
        shown[Number(at)] = [...names.slice(-MAX_NAMED), shown[Number(at)]].join(" · ");
      // an empty heading (`#` alone) has no place in a breadcrumb: "Title >  > Topic" named nothing
      const named = shown.filter((x) => x.trim());
      section =
        repeats && !d.lead?.[0]
          ? named.join(" > ")
          : named.length
            ? `${note.title} > ${named.join(" > ")}`
            : note.title;
      subTrail = (repeats ? d.trail.slice(1) : d.trail).filter((x) => x.trim()).join(" > ");
      // later siblings merged in are named after the first: "Obsidian URI > Open note · Open vault"
      if (d.also)
        section += ` · ${d.also.slice(0, MAX_NAMED).join(" · ")}${d.also.length > MAX_NAMED ? ` · ${d.also.length - MAX_NAMED} more` : ""}`;
      if (d.also || d.lead) trailOf = undefined;
    }
    // The model reads the passage under its headings below the title, not the title itself: the
    // title is a keyword field, weighted there (figures: docs/decisions/windows.md).
    // A passage of headings alone (a stub note that is one `## Knapsack Problem`) is read as its
    // title and headings: with no text under them every such passage got one vector, the same for
    // all, which stands nearest to questions the model cannot place (on a student's vault, four
    // of them at dense ranks 1–4 for "react state props", blank snippets).
    const under = stripLeadingHeadings(text);
    const embedText = under.trim()
      ? `${subTrail}\n${under}`
      : `${[note.title, subTrail].filter(Boolean).join(" > ")}\n`;
    const hash = sha(embedText);
    const meta: ChunkMeta = {
      path: note.path,
      title: note.title,
      section,
      tags: note.tags,
      folder,
      top_folder: topFolder,
      mtime: note.mtime,
      date: note.date,
      date_source: note.dateSource,
      props: note.props,
      word_count: d.words,
      links: note.links,
      aliases: note.aliases,
      ordinal,
      start_line: d.pieces[0].start + offset,
      end_line: d.pieces[d.pieces.length - 1].end + offset,
      hash,
    };
    return { id: sha(`${note.path}\u0000${ordinal}\u0000${hash}`).slice(0, 32), text, embedText, meta };
  };
}

function packSection(
  trail: string[],
  heads: number[],
  level: number,
  pieces: Piece[],
  max: number,
  overlap: number,
  min: number,
  out: Draft[],
): void {
  let cur: Draft = { trail, heads, level, pieces: [], words: 0 };
  let before: Draft | undefined; // the section's previous run, when it has been cut
  let carried = 0;
  for (const piece of pieces) {
    // a run is cut once the next piece would take it past `max`, but not before it holds `min`
    // words of its own: a heading, or a sentence that opens a list ("It has a few limitations:"),
    // goes with the block after it, even a long code block or list, rather than stand alone
    if (cur.pieces.length && cur.words + piece.words > max && cur.words - carried >= min) {
      out.push(cur);
      before = cur;
      // carry the last words of the previous chunk as overlap (never from a code block)
      const carry: Piece[] = [];
      carried = 0;
      const last = cur.pieces[cur.pieces.length - 1];
      if (!last.atomic && overlap > 0 && piece.words + Math.min(overlap, last.words) <= max) {
        const { tail, count, all } = lastWords(last.text, overlap);
        carry.push({
          text: tail,
          start: all ? last.start : last.end,
          end: last.end,
          words: count,
          atomic: false,
          join: "\n\n",
          from: -1,
          to: -1,
        });
        carried = count;
      }
      cur = { trail, heads, level, pieces: carry, words: carried };
    }
    cur.pieces.push(piece);
    cur.words += piece.words;
  }
  // a short last run of a long section ("h/t Jake Worth" after 200 words) joins the run before
  // it (under max + min words) rather than standing alone as a passage that says nothing
  if (before && cur.words - carried < min) {
    const own = cur.pieces.slice(carried ? 1 : 0);
    before.pieces.push(...own);
    before.words += cur.words - carried;
    return;
  }
  if (cur.pieces.length) out.push(cur);
}

/** Whether drafts `a` and `b` lie under the same first `n` headings (the same headings, not headings that read alike). */
function samePrefix(a: Draft, b: Draft, n: number): boolean {
  for (let i = 0; i < n; i++) if (a.heads[i] !== b.heads[i]) return false;
  return true;
}

/**
 * Merges tiny single-chunk sections into a neighbour under the same parent heading: forward into
 * a section below it, else back into its parent's text or an earlier sibling's (whose breadcrumb
 * then names it too: `Title > Open note · Open vault`), never into another parent's section, whose
 * breadcrumb and line would point a reader elsewhere. A tiny section with no such neighbour stands
 * alone; a bare heading never does. Drafts arrive one at a time; a draft is passed on once no
 * later draft can merge into it.
 */
function tinyMerger(min: number, max: number, emit: (d: Draft) => void): { push(d: Draft): void; end(): void } {
  let prevInput: Draft | undefined; // the input draft before `cur`
  let cur: Draft | undefined; // waiting for the draft after it
  let last: Draft | undefined; // the last output, which `cur` may still join
  // the passage stays next's (its headings, which the sections after it are placed by); a sibling
  // merged in front is named before next's heading (`Tiny · Main topic`), with the siblings it holds
  const forward = (d: Draft, next: Draft, sibling = false): void => {
    next.pieces = d.pieces.concat(next.pieces); // next has one section's pieces: d's go before them once
    next.words += d.words;
    // a section below d keeps d's siblings in front named at d's heading, and a sibling adds d's own
    if (d.lead) next.lead = { ...d.lead };
    if (sibling) {
      const at = d.trail.length - 1;
      (next.lead ??= {})[at] = [...(d.lead?.[at] ?? []), d.trail[at], ...(d.also ?? [])];
    }
  };
  const back = (d: Draft, into: Draft, sibling: boolean) => {
    // appended in place: a run of 100,000 empty sibling headings costs their count, not its square
    into.pieces.push({ ...d.pieces[0], join: "\n\n" });
    for (let k = 1; k < d.pieces.length; k++) into.pieces.push(d.pieces[k]);
    into.words += d.words;
    if (sibling) (into.also ??= []).push(d.trail[d.trail.length - 1]);
  };
  const settle = (d: Draft, next: Draft | undefined): void => {
    const soleOfSection = (!prevInput || prevInput.trail !== d.trail) && (!next || next.trail !== d.trail);
    if (d.words < min && soleOfSection) {
      // a heading with no text of its own never stands alone, whatever the sizes
      const bare = d.pieces.every((p) => isHeadingOnly(p.text));
      const depth = d.trail.length;
      const below = next && next.trail.length > depth && samePrefix(next, d, depth);
      const nextSibling = !!next && depth > 0 && next.trail.length === depth && samePrefix(next, d, depth - 1);
      // the parent section's own text (or an ancestor's, which its parent went into), or an earlier
      // sibling (not a sibling's subsection)
      const parent = !!last && depth > 0 && last.trail.length < depth && samePrefix(last, d, last.trail.length);
      const sibling = !!last && depth > 0 && last.trail.length === depth && samePrefix(last, d, depth - 1);
      // into the section below, unless d holds the more of the two: then d stays (a note's opening
      // list above an empty "References" is the note's, not "References") and the section below
      // joins it as its parent's text; an empty heading below takes d on to where it goes
      const childBare = !!next && next.pieces.every((p) => isHeadingOnly(p.text));
      if (next && below && (bare || next.words + d.words <= max + min) && (bare || childBare || d.words < next.words))
        return forward(d, next);
      if (last && (parent || sibling) && (bare || last.words + d.words <= max)) return back(d, last, sibling);
      // with nothing before it to join, into its next sibling, both named (`Title > Tiny · Main topic`)
      if (!bare && nextSibling && next!.words + d.words <= max + min) return forward(d, next!, true);
      if (bare) {
        // an empty heading goes with its next sibling (under the same parent) before any other
        // neighbour: it must not stand alone, and had better not end another parent's passage
        if (next && (nextSibling || !last)) return forward(d, next);
        if (last) return back(d, last, false);
      }
    }
    if (last) emit(last);
    last = d;
  };
  return {
    push(d) {
      if (cur) settle(cur, d);
      prevInput = cur;
      cur = d;
    },
    end() {
      if (cur) settle(cur, undefined);
      if (last) emit(last);
      prevInput = cur = last = undefined;
    },
  };
}

function joinPieces(pieces: Piece[], body: string): string {
  // blocks that follow each other in the body, one blank line apart: one slice of the body
  let verbatim = pieces[0].from >= 0;
  for (let i = 1; i < pieces.length && verbatim; i++)
    verbatim =
      pieces[i].from >= 0 &&
      pieces[i].from === pieces[i - 1].to + pieces[i].join.length &&
      (pieces[i].join === "\n\n" || pieces[i].join === "\n");
  if (verbatim) return body.slice(pieces[0].from, pieces[pieces.length - 1].to);
  let s = "";
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) {
      const p = pieces[i];
      const prev = pieces[i - 1];
      // joined as in the source: a space within a line, a newline between lines, a blank line between blocks
      // (nothing between Chinese or Japanese sentences, as written)
      s += p.join === "" ? "" : p.start === prev.end && p.start === p.end ? " " : p.join === " " ? "\n" : p.join;
    }
    s += pieces[i].text;
  }
  return s;
}

/** Whether a piece of text is nothing but ATX heading lines. */
function isHeadingOnly(text: string): boolean {
  return stripLeadingHeadings(text).trim() === "";
}

function stripLeadingHeadings(text: string): string {
  let t = text;
  for (;;) {
    const m = /^ {0,3}#{1,6}(?:[ \t][^\n]*)?(?:\n|$)\s*/.exec(t);
    if (!m || m[0].length === 0) break;
    t = t.slice(m[0].length);
  }
  return t;
}
