import type { Note } from "../types.js";

/** What kind of file a passage is of: a Markdown note or one of the attachments vault-rag reads. */
export type FileType = "note" | "pdf" | "canvas" | "docx";

/** The attachment types, by the file extension (lowercase, with its dot) that names them. */
export const ATTACHMENT_TYPES: Readonly<Record<string, Exclude<FileType, "note">>> = {
  ".pdf": "pdf",
  ".canvas": "canvas",
  ".docx": "docx",
};

/** Every file type, as `--type` and the `type` field take them. */
export const FILE_TYPES: readonly FileType[] = ["note", "pdf", "canvas", "docx"];

/**
 * One run of an attachment's text that is cut into passages on its own (no passage holds two): a
 * PDF page, a Canvas text card, a Word document whole.
 */
export interface AttachmentPart {
  /** The headings above it, outermost first: a PDF's outline entries, a card's group label. */
  trail: string[];
  /** Its text, Markdown (a Word document's headings as `#` lines, a card as written). */
  text: string;
  /** The PDF page, from 1. */
  page?: number;
}

/** An attachment read: the note it stands as (title, links, date, hash) and its parts. */
export interface Attachment {
  type: Exclude<FileType, "note">;
  /** Its title, links, dates and hash; its `body` is empty (the text is in `parts`). */
  note: Note;
  parts: AttachmentPart[];
}

/**
 * Why an attachment could not be read: `encrypted` (a password), `scanned` (pages with no text
 * layer), `damaged` (the library's message in `detail`), `oversized` (over the size limit), `timeout`
 * (over the time limit, `detail` says which), `memory` (its reader went over the memory limit,
 * `detail` says which).
 */
export interface Unreadable {
  reason: "encrypted" | "scanned" | "damaged" | "oversized" | "timeout" | "memory";
  detail?: string;
}

/**
 * The type of a vault-relative path by its extension, or `undefined` for a file vault-rag does not read.
 *
 * @example
 * ```ts
 * fileTypeOf("papers/Attention.PDF"); // "pdf"
 * fileTypeOf("robots/SMARS.md");      // "note"
 * fileTypeOf("photo.jpg");            // undefined
 * ```
 */
export function fileTypeOf(path: string): FileType | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  const ext = path.slice(dot).toLowerCase();
  return ext === ".md" ? "note" : ATTACHMENT_TYPES[ext];
}

/**
 * The notes and the attachments among vault paths, counted apart by their extensions (a path of
 * no known type counts as a note).
 *
 * @example
 * ```ts
 * countFiles(["robots/SMARS.md", "manuals/drv8833.pdf"]); // { notes: 1, attachments: 1 }
 * ```
 */
export function countFiles(paths: Iterable<string>): { notes: number; attachments: number } {
  let notes = 0;
  let attachments = 0;
  for (const p of paths) {
    const type = fileTypeOf(p);
    if (type && type !== "note") attachments++;
    else notes++;
  }
  return { notes, attachments };
}
