import { chunkAttachment, type Chunk, type ChunkOptions } from "../chunk/index.js";
import type { Logger } from "../log.js";
import { IGNORE_FILE, readAttachmentOffThread, type Note, type Unreadable, type VaultFile } from "../vault/index.js";

/** An attachment as the keyword phase takes it: a note (title, links, hash) and its passages. */
export interface AttachmentFile {
  note?: Note;
  chunks?: Chunk[];
  stat?: { mtime: number; size: number };
  /** It could not be read: it is stored with no passages (so it is not read again until it changes), and warned of. */
  unreadable?: true;
  /** Never set: an attachment is read or warned of, not skipped as a binary note is. */
  skipped?: boolean;
  /** It could not be opened (gone, no permission): a failure, as a note's. */
  failed?: true;
}

/**
 * Reads and cuts one attachment (PDF, Canvas board, Word document) for the keyword phase, on the
 * attachments' thread, within its time and memory limits (see `readAttachmentOffThread`). One that
 * cannot be read is an `attachment_unreadable` warning that names the file, the reason and the fix,
 * kept in the index for `status` and `check`; it is given an empty note, so that the next run skips
 * it while its size and time are the same, as a note is skipped.
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
  opts: { chunk?: ChunkOptions; dateKeys?: readonly string[] },
): Promise<AttachmentFile> {
  const r = await readAttachmentOffThread(file, { dateKeys: opts.dateKeys });
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
      hash: r.hash,
    };
    return { note, chunks: [], stat: r.stat, unreadable: true };
  }
  return { note: r.attachment.note, chunks: chunkAttachment(r.attachment, opts.chunk), stat: r.stat };
}

/**
 * Why an attachment could not be read, and what to do, on one line.
 *
 * @example
 * ```ts
 * unreadableText({ reason: "scanned" }); // "scanned: no text layer — make it searchable with OCR (ocrmypdf), or list it in .vault-ragignore"
 * ```
 */
export function unreadableText(u: Unreadable): string {
  const ignore = `list it in ${IGNORE_FILE}`;
  switch (u.reason) {
    case "encrypted":
      return `encrypted — save a copy without its password (qpdf --decrypt), or ${ignore}`;
    case "scanned":
      return `scanned: no text layer — make it searchable with OCR (ocrmypdf), or ${ignore}`;
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
