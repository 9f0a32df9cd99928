import crypto from "node:crypto";
import path from "node:path";
import { VaultRagError } from "../../errors.js";
import { readRegularFile } from "../../safe-file.js";
import { whyNotWalked } from "../walk.js";
import { noteDate } from "../properties.js";
import type { LinkText } from "../link-text.js";
import type { Note, VaultFile } from "../types.js";
import { readCanvas } from "./canvas.js";
import { readDocx } from "./docx.js";
import { readPdf } from "./pdf.js";
import { fileTypeOf, type Attachment, type AttachmentPart, type Unreadable } from "./types.js";

/** Largest attachment read, in bytes; a bigger one is `oversized`. */
export const MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024;

/** Seconds one attachment is read for at most; past it, `timeout`. */
export const ATTACHMENT_SECONDS = 60;

/** Megabytes of JavaScript heap one attachment's reader takes at most (a worker's old generation); past it, `memory`. */
export const ATTACHMENT_MEMORY_MB = 512;

/** Seconds added to the time limit for each page read by OCR (drawing and reading a page takes seconds). */
export const OCR_PAGE_SECONDS = 30;

/** What {@link readAttachment} gives: the attachment, or why it could not be read; with the stat read. */
export type AttachmentRead =
  | { attachment: Attachment; stat: { mtime: number; size: number } }
  | { unreadable: Unreadable; stat: { mtime: number; size: number }; hash: string }
  | { error: NodeJS.ErrnoException };

/** How attachments are read: the frontmatter date keys (unused: an attachment has none), the limits. */
export interface AttachmentOptions {
  dateKeys?: readonly string[];
  /** Bytes read at most (default {@link MAX_ATTACHMENT_BYTES}). */
  maxBytes?: number;
  /** Seconds read at most (default {@link ATTACHMENT_SECONDS}; {@link OCR_PAGE_SECONDS} more per page read by OCR). */
  seconds?: number;
  /** Megabytes of heap the reader's thread takes at most (default {@link ATTACHMENT_MEMORY_MB}; `readAttachmentOffThread` only). */
  memoryMb?: number;
  /** Read a PDF's pages that have no text layer by OCR, when `tesseract` and `pdftoppm` are on PATH (default false). */
  ocr?: boolean;
  /** Told how many pages OCR is about to read (the thread's time limit grows by {@link OCR_PAGE_SECONDS} each). */
  onOcr?: (pages: number) => void;
}

/**
 * Reads one PDF, Canvas board or Word document found by the walk into an {@link Attachment}: its
 * title (a PDF's metadata title, else the file name), its parts (pages, cards, the document), its
 * links (a board's file cards), its date (a date in its file name, else its mtime) and the hash of
 * its bytes. An attachment that cannot be read gives the reason, structured; a file that cannot be
 * opened gives the error.
 *
 * @example
 * ```ts
 * const r = await readAttachment(walkVault(root).find((f) => f.path.endsWith(".pdf"))!);
 * if ("attachment" in r) r.attachment.parts[0].page; // 1
 * ```
 */
export async function readAttachment(file: VaultFile, opts: AttachmentOptions = {}): Promise<AttachmentRead> {
  const type = fileTypeOf(file.path);
  if (!type || type === "note") throw new Error(`not an attachment: ${file.path}`);
  const stat = { mtimeMs: file.mtime * 1000, size: file.size };
  const maxBytes = opts.maxBytes ?? MAX_ATTACHMENT_BYTES;
  let bytes: Buffer;
  try {
    const vault = path.resolve(file.absPath, ...file.path.split("/").map(() => ".."));
    const read = readRegularFile(file.absPath, { maxBytes, within: vault, stat });
    if ("refused" in read) {
      const seen = { mtime: Math.floor(stat.mtimeMs / 1000), size: stat.size };
      const reason: Unreadable = read.refused.includes("-byte limit")
        ? { reason: "oversized", detail: `${stat.size} bytes, over the ${maxBytes}-byte limit` }
        : { reason: "damaged", detail: read.refused };
      return { unreadable: reason, stat: seen, hash: `size:${stat.size}` };
    }
    bytes = read;
  } catch (err) {
    return { error: err as NodeJS.ErrnoException };
  }
  const seen = { mtime: Math.floor(stat.mtimeMs / 1000), size: stat.size };
  const hash = crypto.createHash("sha256").update(bytes).digest("hex");
  const deadline = performance.now() + (opts.seconds ?? ATTACHMENT_SECONDS) * 1000;
  const fileName = file.path.slice(file.path.lastIndexOf("/") + 1);
  let parts: AttachmentPart[];
  let title = fileName;
  let links: string[] = [];
  if (type === "pdf") {
    const r = await readPdf(bytes, deadline, await pageReader(bytes, opts));
    if ("reason" in r) {
      const why = r.reason === "timeout" ? { ...r, detail: `${opts.seconds ?? ATTACHMENT_SECONDS} s` } : r;
      return { unreadable: why, stat: seen, hash };
    }
    parts = r.parts;
    if (r.title) title = r.title;
  } else if (type === "docx") {
    const r = await readDocx(bytes);
    if ("reason" in r) return { unreadable: r, stat: seen, hash };
    parts = r.parts;
  } else {
    const r = readCanvas(bytes.toString("utf8"));
    if ("reason" in r) return { unreadable: r, stat: seen, hash };
    parts = r.parts;
    links = r.files;
    title = fileName.replace(/\.canvas$/i, "");
  }
  return {
    attachment: { type, note: attachmentNote(file.path, title, links, seen.mtime, hash, opts), parts },
    stat: seen,
  };
}

/** What reads a PDF's pages that have no text layer: OCR, when it is asked for and its programs are on PATH. */
async function pageReader(
  bytes: Uint8Array,
  opts: AttachmentOptions,
): Promise<((pages: number[]) => Promise<string[]>) | undefined> {
  if (!opts.ocr) return undefined;
  const { ocrMissing, ocrPages } = await import("./ocr.js");
  if (ocrMissing().length) return undefined;
  return (pages) => {
    opts.onOcr?.(pages.length);
    return ocrPages(bytes, pages);
  };
}

/** The note an attachment stands as: no body, tags or properties of its own. */
function attachmentNote(
  p: string,
  title: string,
  links: string[],
  mtime: number,
  hash: string,
  opts: AttachmentOptions,
): Note {
  const dated = noteDate(p, {}, mtime, opts.dateKeys);
  // a board's file cards are links from it, as a wikilink to the file's vault path is
  const linkTexts: LinkText[] = links.map((target) => ({ target, text: title }));
  return {
    path: p,
    title,
    aliases: [],
    tags: [],
    links,
    linkTexts,
    mtime,
    body: "",
    bodyStartLine: 1,
    properties: "",
    props: {},
    date: dated.date,
    dateSource: dated.source,
    hash,
  };
}

/** The media type each attachment is served with. */
export const ATTACHMENT_MEDIA_TYPES: Readonly<Record<string, string>> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  canvas: "application/json",
};

/**
 * An attachment's bytes, to be served (the web app opens a PDF hit in the browser's viewer): only a
 * file the walk lists, inside the vault (no absolute path, no `..`, no link out), of at most
 * {@link MAX_ATTACHMENT_BYTES}. Anything else is `not_found`, the same whether a file is there or
 * not.
 *
 * @example
 * ```ts
 * readAttachmentBytes("/home/me/notes", "papers/attention.pdf"); // { bytes: <Buffer 25 50 44 46 …>, mediaType: "application/pdf" }
 * ```
 */
export function readAttachmentBytes(vault: string, rel: string): { bytes: Buffer; mediaType: string } {
  const missing = () =>
    new VaultRagError(
      "not_found",
      `vault-rag: no attachment "${rel}" in the vault — give the path of a PDF, Canvas board or Word document a hit names`,
    );
  const type = fileTypeOf(rel);
  if (!type || type === "note" || path.isAbsolute(rel) || rel.split(/[\\/]/).includes("..")) throw missing();
  if (whyNotWalked(vault, rel) !== undefined) throw missing();
  let read: Buffer | { refused: string };
  try {
    read = readRegularFile(path.resolve(vault, rel), { maxBytes: MAX_ATTACHMENT_BYTES, within: vault });
  } catch {
    throw missing();
  }
  if ("refused" in read) throw missing();
  return { bytes: read, mediaType: ATTACHMENT_MEDIA_TYPES[type] };
}
