import { chunkAttachment, type Chunk, type ChunkOptions } from "../chunk/index.js";
import type { Logger } from "../log.js";
import {
  IGNORE_FILE,
  OCR_TOOLS,
  ocrMissing,
  readAttachmentOffThread,
  type Note,
  type Unreadable,
  type VaultFile,
} from "../vault/index.js";
import { SCANNED_HASH } from "./stale.js";

/** An attachment as the keyword phase takes it: a note (title, links, hash) and its passages. */
export interface AttachmentFile {
  note?: Note;
  chunks?: Chunk[];
  stat?: { mtime: number; size: number };
  /** It could not be read: it is stored with no passages (so it is not read again until it changes), and warned of. */
  unreadable?: Unreadable;
  /** Never set: an attachment is read or warned of, not skipped as a binary note is. */
  skipped?: boolean;
  /** It could not be opened (gone, no permission): a failure, as a note's. */
  failed?: true;
}

/**
 * Reads and cuts one attachment (PDF, Canvas board, Word document) for the keyword phase, on the
 * attachments' thread, within its time and memory limits (see `readAttachmentOffThread`); with
 * `ocr`, a PDF's pages with no text layer are read by OCR. One that cannot be read is an
 * `attachment_unreadable` warning that names the file, the reason and the fix, kept in the index
 * for `status` and `check`; it is given an empty note, so that the next run skips it while its
 * size and time are the same, as a note is skipped (a scanned one's hash starts {@link SCANNED_HASH}).
 *
 * @example
 * ```ts
 * const r = await readAttachmentFile(file, log, {});
 * if (r.chunks) store(r.note, r.chunks);
 * ```
 */
export async function readAttachmentFile(
  file: VaultFile,
  log: Logger,
  opts: { chunk?: ChunkOptions; dateKeys?: readonly string[]; ocr?: boolean },
): Promise<AttachmentFile> {
  const r = await readAttachmentOffThread(file, { dateKeys: opts.dateKeys, ocr: opts.ocr });
  if ("error" in r) {
    const e = r.error;
    const why =
      e.code === "ENOENT" ? "it was deleted while indexing" : e.code === "EACCES" ? "permission denied" : e.message;
    log.warn("note_unreadable", `vault-rag: cannot read "${file.path}": ${why}`, { path: file.path });
    return { failed: true };
  }
  if ("unreadable" in r) {
    const u = r.unreadable;
    log.warn("attachment_unreadable", `vault-rag: cannot read "${file.path}": ${unreadableText(u)}`, {
      path: file.path,
      reason: u.reason,
    });
    const note: Note = {
      path: file.path,
      title: file.path.slice(file.path.lastIndexOf("/") + 1),
      aliases: [],
      tags: [],
      links: [],
      linkTexts: [],
      mtime: r.stat.mtime,
      body: "",
      bodyStartLine: 1,
      props: {},
      date: r.stat.mtime,
      dateSource: "mtime",
      // read again by a run with OCR, unless this one tried it
      hash: u.reason === "scanned" && !opts.ocr ? SCANNED_HASH + r.hash : r.hash,
    };
    return { note, chunks: [], stat: r.stat, unreadable: u };
  }
  return { note: r.attachment.note, chunks: chunkAttachment(r.attachment, opts.chunk), stat: r.stat };
}

/**
 * Whether a run reads scanned PDF pages by OCR: it was asked to, and `tesseract` and `pdftoppm` are
 * on PATH. Asked without them, an `ocr_unavailable` warning names what is missing and the Debian
 * packages that hold it, and the run goes on without OCR.
 *
 * @example
 * ```ts
 * ocrReady(true, log); // false, and warns: "vault-rag: OCR needs tesseract, not found on PATH — … sudo apt-get install tesseract-ocr"
 * ```
 */
export function ocrReady(asked: boolean, log: Logger): boolean {
  if (!asked) return false;
  const missing = ocrMissing();
  if (!missing.length) return true;
  log.warn(
    "ocr_unavailable",
    `vault-rag: OCR needs ${missing.join(" and ")}, not found on PATH — scanned PDFs stay unread; install ${missing.length > 1 ? "them" : "it"} with: sudo apt-get install ${missing.map((t) => OCR_TOOLS[t]).join(" ")}`,
    { missing },
  );
  return false;
}

/**
 * Why an attachment could not be read, and what to do, on one line.
 *
 * @example
 * ```ts
 * unreadableText({ reason: "timeout", detail: "60 s" }); // "took over 60 s to read — split it, or list it in .vault-ragignore"
 * ```
 */
export function unreadableText(u: Unreadable): string {
  const ignore = `list it in ${IGNORE_FILE}`;
  switch (u.reason) {
    case "encrypted":
      return `encrypted — save a copy without its password (qpdf --decrypt), or ${ignore}`;
    case "scanned":
      return `scanned: no text layer — read it by OCR (the ocr option, with ${Object.keys(OCR_TOOLS).join(" and ")} installed), or ${ignore}`;
    case "oversized":
      return `oversized: ${u.detail} — split it, or ${ignore}`;
    case "timeout":
      return `took over ${u.detail ?? "the time limit"} to read — split it, or ${ignore}`;
    case "memory":
      return `over the memory limit${u.detail ? ` (${u.detail})` : ""} while read — split it, or ${ignore}`;
    default:
      return `damaged: ${u.detail ?? "unreadable"} — save it again from the program that made it, or ${ignore}`;
  }
}
