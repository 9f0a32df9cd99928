import { hashText, type Attachment } from "../vault/index.js";
import { chunkNote } from "./chunker.js";
import type { ChunkOptions } from "./defaults.js";
import type { Chunk } from "./types.js";

/**
 * A page's place in a breadcrumb: `p. 14`.
 *
 * @example
 * ```ts
 * pageLabel(14); // "p. 14"
 * ```
 */
export function pageLabel(page: number): string {
  return `p. ${page}`;
}

/**
 * Cuts an attachment into passages: each part (a PDF page, a Canvas card, a Word document) as a note
 * is cut ({@link chunkNote}: paragraphs, headings, at most `maxWords`), never one passage across two
 * parts. A passage's breadcrumb is the title, the part's trail (a PDF's outline entries, a card's
 * group label), the headings inside the part, and a PDF page's `p. 14`:
 * `Attention Is All You Need > 3 Model Architecture > p. 4`. Each passage carries the file's type (`file_type`)
 * and its `page` (0 when the file has none).
 *
 * @example
 * ```ts
 * const chunks = chunkAttachment((await readAttachment(file)).attachment);
 * chunks[0].meta.section; // "Greenhouse Controller Manual > Installation > p. 1"
 * chunks[0].meta.page;    // 1
 * ```
 */
export function chunkAttachment(a: Attachment, options: ChunkOptions = {}): Chunk[] {
  const out: Chunk[] = [];
  const { title } = a.note;
  for (const part of a.parts) {
    const cut = chunkNote({ ...a.note, body: part.text, bodyStartLine: 1 }, options);
    for (const c of cut) {
      const s = c.meta.section;
      // the headings inside the part, below the title the chunker put first
      const inner = s.startsWith(`${title} > `) ? s.slice(title.length + 3) : s === title ? "" : s;
      const below = [...part.trail, inner].filter(Boolean);
      const section = [title, ...below, ...(part.page ? [pageLabel(part.page)] : [])].join(" > ");
      // the model reads the headings below the title, as a note's passage (not the page number)
      const lines = c.embedText.split("\n");
      const embedText = [below.join(" > "), ...lines.slice(1)].join("\n");
      const hash = hashText(embedText);
      const ordinal = out.length;
      out.push({
        id: hashText(`${a.note.path}\u0000${ordinal}\u0000${hash}`).slice(0, 32),
        text: c.text,
        embedText,
        meta: { ...c.meta, section, hash, ordinal, file_type: a.type, page: part.page ?? 0 },
      });
    }
  }
  return out;
}
