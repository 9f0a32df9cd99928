import { hashText, type Note } from "../vault/index.js";
import { MIN_FIT_WORDS, withChunkDefaults, type ChunkOptions, type ChunkOptionsWithDefaults } from "./defaults.js";
import { splitSections, type Unit } from "./sections.js";
import type { Chunk, ChunkMeta } from "./types.js";

/** A piece of section text with its source lines (0-based, inclusive). */
interface Piece {
  text: string;
  start: number;
  end: number;
  words: number;
  atomic: boolean;
  /** How this piece joins the one before it in the same chunk. */
  join: string;
}

interface Draft {
  trail: string[];
  level: number;
  pieces: Piece[];
  words: number;
}

/** Number of whitespace-separated words in a text. */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // ASCII whitespace plus the Unicode spaces that matter in notes (NBSP, ideographic space)
    const space = c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0xfeff || c === 0x1680;
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      n++;
    }
  }
  return n;
}

/**
 * Cuts a note into heading-aware chunks: one per section, labelled with its breadcrumb
 * (`Title > H1 > H2`); long sections split at block, line, then sentence boundaries with overlap;
 * tiny sections merged into a neighbour; code fences never split. Frontmatter is never chunk text.
 *
 * @example
 * ```ts
 * const chunks = chunkNote(parseNote("robots/SMARS.md", text, mtime));
 * chunks[0].meta.section; // "SMARS Robot > Motors"
 * ```
 */
export function chunkNote(note: Note, options: ChunkOptions = {}): Chunk[] {
  const opts = withChunkDefaults(options);
  let chunks = cutNote(note, opts);
  const { maxTokens, countTokens } = opts;
  if (!maxTokens || !countTokens) return chunks;
  // a token budget: cut this note finer until every chunk fits the model's window
  let max = opts.maxWords;
  while (max > MIN_FIT_WORDS && chunks.some((c) => countTokens(c.embedText) > maxTokens)) {
    max = Math.max(MIN_FIT_WORDS, Math.floor(max * 0.8));
    chunks = cutNote(note, { ...opts, maxWords: max, overlapWords: Math.min(opts.overlapWords, Math.floor((max - 1) / 2)), minWords: Math.min(opts.minWords, Math.floor(max / 2)) });
  }
  return chunks;
}

function cutNote(note: Note, opts: ChunkOptionsWithDefaults): Chunk[] {
  const body = note.body.includes("\r") ? note.body.replace(/\r\n?/g, "\n") : note.body;
  const lines = body.split("\n");
  const sections = splitSections(body);

  const drafts: Draft[] = [];
  for (const section of sections) {
    const pieces: Piece[] = [];
    // (no spread: one unit of a huge note can yield hundreds of thousands of pieces)
    for (const unit of section.units) for (const p of unitPieces(lines, unit, opts.maxWords)) pieces.push(p);
    if (!pieces.length) {
      continue;
    }
    packSection(section.trail, section.level, pieces, opts.maxWords, opts.overlapWords, drafts);
  }
  const merged = mergeTiny(drafts, opts.minWords, opts.maxWords);

  const folder = note.path.includes("/") ? note.path.slice(0, note.path.lastIndexOf("/")) : "";
  const topFolder = note.path.includes("/") ? note.path.slice(0, note.path.indexOf("/")) : "";
  const offset = note.bodyStartLine;
  return merged.map((d, ordinal) => {
    const text = joinPieces(d.pieces);
    const trail = d.trail.length && d.trail[0].toLowerCase() === note.title.toLowerCase() ? d.trail.slice(1) : d.trail;
    const section = [note.title, ...trail].join(" > ");
    const embedText = `${section}\n${stripLeadingHeadings(text)}`;
    const hash = sha(embedText);
    const meta: ChunkMeta = {
      path: note.path,
      title: note.title,
      section,
      tags: note.tags,
      folder,
      top_folder: topFolder,
      mtime: note.mtime,
      word_count: d.words,
      links: note.links,
      aliases: note.aliases,
      ordinal,
      start_line: d.pieces[0].start + offset,
      end_line: d.pieces[d.pieces.length - 1].end + offset,
      hash,
    };
    return { id: sha(`${note.path}\u0000${ordinal}\u0000${hash}`).slice(0, 32), text, embedText, meta };
  });
}

const sha = hashText;

/** Turns one unit into pieces no larger than `max` words (unless atomic). */
function unitPieces(lines: string[], unit: Unit, max: number): Piece[] {
  // trim blank lines at the edges so line ranges point at text
  let start = unit.start;
  let end = unit.end - 1;
  while (start <= end && !lines[start].trim()) start++;
  while (end >= start && !lines[end].trim()) end--;
  if (start > end) return [];
  const text = lines.slice(start, end + 1).join("\n");
  const words = countWords(text);
  if (words <= max || unit.atomic) return [{ text, start, end, words, atomic: unit.atomic, join: "\n\n" }];
  // Too big: cut into sentences. Soft-wrapped paragraph lines run on into one sentence; list items,
  // table rows and quote lines start a new piece; a blank line starts a new block.
  const out: Piece[] = [];
  let buf: string[] = [];
  let bufStart = start;
  let bufEnd = start;
  let join = "\n\n";
  const flush = (nextJoin: string) => {
    if (buf.length) {
      for (let k = 0; k < buf.length; k += max) {
        const part = buf.slice(k, k + max);
        out.push({ text: part.join(" "), start: bufStart, end: bufEnd, words: part.length, atomic: false, join: k === 0 ? join : " " });
      }
      join = nextJoin;
    }
    buf = [];
  };
  for (let i = start; i <= end; i++) {
    const line = lines[i];
    if (!line.trim()) {
      flush("\n\n");
      join = "\n\n";
      continue;
    }
    if (/^\s*(?:[-*+]\s|\d+[.)]\s|\||>)/.test(line)) flush("\n");
    for (const w of line.split(/\s+/)) {
      if (!w) continue;
      if (!buf.length) bufStart = i;
      buf.push(w);
      bufEnd = i;
      if (/[.!?。]["')\]]*$/.test(w)) flush(" ");
    }
    if (join !== "\n\n" && buf.length === 0) join = "\n";
  }
  flush("\n\n");
  return out;
}

function packSection(trail: string[], level: number, pieces: Piece[], max: number, overlap: number, out: Draft[]): void {
  let cur: Draft = { trail, level, pieces: [], words: 0 };
  for (const piece of pieces) {
    if (cur.pieces.length && cur.words + piece.words > max) {
      out.push(cur);
      // carry the last words of the previous chunk as overlap (never from a code block)
      const carry: Piece[] = [];
      let carried = 0;
      const last = cur.pieces[cur.pieces.length - 1];
      if (!last.atomic && overlap > 0 && piece.words + Math.min(overlap, last.words) <= max) {
        const ws = last.text.split(/\s+/).filter(Boolean);
        const tail = ws.slice(Math.max(0, ws.length - overlap));
        carry.push({ text: tail.join(" "), start: tail.length === ws.length ? last.start : last.end, end: last.end, words: tail.length, atomic: false, join: "\n\n" });
        carried = tail.length;
      }
      cur = { trail, level, pieces: carry, words: carried };
    }
    cur.pieces.push(piece);
    cur.words += piece.words;
  }
  if (cur.pieces.length) out.push(cur);
}

/** Merges tiny single-chunk sections forward into a child section, or back into the previous chunk. */
function mergeTiny(drafts: Draft[], min: number, max: number): Draft[] {
  const out: Draft[] = [];
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    const next = drafts[i + 1];
    const soleOfSection = (!drafts[i - 1] || drafts[i - 1].trail !== d.trail) && (!next || next.trail !== d.trail);
    if (d.words < min && soleOfSection) {
      if (next && next.level > d.level && next.words + d.words <= max + min) {
        next.pieces = [...d.pieces, ...next.pieces];
        next.words += d.words;
        continue;
      }
      const prev = out[out.length - 1];
      if (prev && prev.words + d.words <= max) {
        prev.pieces = [...prev.pieces, ...d.pieces.map((p, k) => (k === 0 ? { ...p, join: "\n\n" } : p))];
        prev.words += d.words;
        continue;
      }
    }
    out.push(d);
  }
  return out;
}

function joinPieces(pieces: Piece[]): string {
  let s = "";
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) {
      const p = pieces[i];
      const prev = pieces[i - 1];
      // joined as in the source: a space within a line, a newline between lines, a blank line between blocks
      s += p.start === prev.end && p.start === p.end ? " " : p.join === " " ? "\n" : p.join;
    }
    s += pieces[i].text;
  }
  return s;
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
