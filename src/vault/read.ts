import path from "node:path";
import type { Logger } from "../log.js";
import { readRegularFile } from "../safe-file.js";
import { silentLogger } from "../log.js";
import { parseNote, type NoteOptions } from "./note.js";
import type { Note, VaultFile } from "./types.js";

/** Largest note read, in bytes; bigger files are skipped with a `note_skipped` warning. */
export const MAX_NOTE_BYTES = 32 * 1024 * 1024;

/**
 * Reads and parses one file found by {@link walkVault}. Returns `undefined` (with a warning naming
 * the file) when it cannot be read, is binary, is not valid UTF-8, or vanished since listing.
 *
 * @example
 * ```ts
 * for (const f of walkVault(root)) { const note = readNote(f, log); if (note) use(note); }
 * ```
 */
export function readNote(file: VaultFile, log: Logger = silentLogger, opts: NoteOptions = {}): Note | undefined {
  return readVaultFile(file, log, opts).note;
}

/**
 * {@link readNote}, telling a file that is skipped on purpose (binary, not UTF-8, over the size
 * limit: a `note_skipped` warning) from one that could not be read (`note_unreadable`).
 *
 * @example
 * ```ts
 * const r = readVaultFile(file, log);
 * if (r.note) use(r.note); else if (r.skipped) skipped++; else failed++;
 * ```
 */
export function readVaultFile(
  file: VaultFile,
  log: Logger = silentLogger,
  opts: NoteOptions = {},
): { note?: Note; skipped?: boolean; stat?: { mtime: number; size: number } } {
  let buf: Buffer;
  const stat = { mtimeMs: file.mtime * 1000, size: file.size };
  try {
    // what the walk listed may have changed since: read it only as a regular file of the vault, of
    // at most MAX_NOTE_BYTES (checked before reading), through the descriptor that was checked
    const read = readWalked(file, stat);
    if ("refused" in read) {
      log.warn("note_skipped", `vault-rag: skipped "${file.path}": ${read.refused}`, { path: file.path });
      return { skipped: true };
    }
    buf = read;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === "ENOENT" ? "it was deleted while indexing" : e.code === "EACCES" ? "permission denied" : e.message;
    log.warn("note_unreadable", `vault-rag: cannot read "${file.path}": ${why}`, { path: file.path });
    return {};
  }
  const text = decodeNote(buf);
  if (typeof text !== "string") {
    log.warn("note_skipped", `vault-rag: skipped "${file.path}": ${text.skipped}`, { path: file.path });
    return { skipped: true };
  }
  // the time and size of the text read (a note edited since the walk listed it is recorded as read,
  // not as listed, so the next run does not read it as changed)
  const mtime = Math.floor(stat.mtimeMs / 1000);
  return { note: parseNote(file.path, text, mtime, log, opts), stat: { mtime, size: stat.size } };
}

/**
 * True when the indexer skips this file on purpose (binary, not UTF-8, over the size limit), so that
 * it is never "changed since indexing". A file that cannot be read at all is not skipped.
 *
 * @example
 * ```ts
 * isSkippedFile(walkVault(root).find((f) => f.path === "photo.md")!); // true for a binary file
 * ```
 */
export function isSkippedFile(file: VaultFile): boolean {
  try {
    const read = readWalked(file);
    return "refused" in read || typeof decodeNote(read) !== "string";
  } catch {
    return false;
  }
}

/** A walked file's bytes, read only as a regular file of its vault of at most MAX_NOTE_BYTES ({@link readRegularFile}). */
function readWalked(file: VaultFile, stat?: { mtimeMs: number; size: number }): ReturnType<typeof readRegularFile> {
  // the vault it lies in: its absolute path less its vault-relative one
  const vault = path.resolve(file.absPath, ...file.path.split("/").map(() => ".."));
  return readRegularFile(file.absPath, { maxBytes: MAX_NOTE_BYTES, within: vault, stat });
}

/**
 * A note file's text, or why the indexer skips it (over the size limit, binary, not UTF-8): the one
 * rule for `index` and for what `get_note` serves.
 *
 * @example
 * ```ts
 * decodeNote(Buffer.from("# Hi\n")); // "# Hi\n"
 * decodeNote(Buffer.from([0x63, 0x61, 0x66, 0xe9])); // { skipped: "it is not valid UTF-8 — save it as UTF-8" }
 * ```
 */
export function decodeNote(buf: Buffer): string | { skipped: string } {
  if (buf.length > MAX_NOTE_BYTES) return { skipped: `${buf.length} bytes is over the ${MAX_NOTE_BYTES}-byte limit` };
  if (buf.includes(0)) return { skipped: "it is a binary file, not Markdown text" };
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    return { skipped: "it is not valid UTF-8 — save it as UTF-8" };
  }
}
