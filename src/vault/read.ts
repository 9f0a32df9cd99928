import fs from "node:fs";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";
import { parseNote } from "./note.js";
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
export function readNote(file: VaultFile, log: Logger = silentLogger): Note | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file.absPath);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ENOENT" ? "it was deleted while indexing" : e.code === "EACCES" ? "permission denied" : e.message;
    log.warn("note_unreadable", `vault-rag: cannot read "${file.path}": ${why}`, { path: file.path });
    return undefined;
  }
  if (buf.length > MAX_NOTE_BYTES) {
    log.warn("note_skipped", `vault-rag: skipped "${file.path}": ${buf.length} bytes is over the ${MAX_NOTE_BYTES}-byte limit`, { path: file.path });
    return undefined;
  }
  if (buf.includes(0)) {
    log.warn("note_skipped", `vault-rag: skipped "${file.path}": it is a binary file, not Markdown text`, { path: file.path });
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    log.warn("note_skipped", `vault-rag: skipped "${file.path}": it is not valid UTF-8 — save it as UTF-8`, { path: file.path });
    return undefined;
  }
  return parseNote(file.path, text, file.mtime, log);
}
