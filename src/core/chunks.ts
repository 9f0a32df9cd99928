/** How the notes and attachments of a vault are cut into passages (`vault-rag chunks`): no index needed. */
import { chunkNote, type Chunk } from "../chunk/index.js";
import { VaultRagError } from "../errors.js";
import { resolveDateKeys } from "../config.js";
import { readSettings } from "../settings.js";
import { collectingLogger, type Logger, type Warning } from "../log.js";
import { readAttachmentFile, unreadableText } from "../indexing/attachments.js";
import {
  assertVaultFolder,
  fileTypeOf,
  isExcalidraw,
  oneNote,
  readNote,
  walkVault,
  whyNoteMissing,
} from "../vault/index.js";

/**
 * One file's passages; `empty` says why a note cut into none holds no text (`drawing`, `blank`)
 * and why an attachment gave none (`unreadable`, with the reason in `reason`).
 */
export interface NoteChunks {
  path: string;
  chunks: Chunk[];
  empty?: "drawing" | "blank" | "unreadable";
  /** Why an attachment could not be read: `encrypted`, `scanned: no text layer`, … (as `status --verbose` words it). */
  reason?: string;
}

/**
 * The passages of every note and attachment (PDF, Canvas board, Word document) of a vault, or of
 * one (`note`: a path or a name, found as a wikilink finds it; a file the walk leaves out is
 * refused with why), each cut as `index` cuts it: an attachment's passages carry their
 * `file_type` and PDF `page`. `warnings` are the walk's, about other files (a symlink out of the
 * vault), and those of attachments that could not be read.
 *
 * @example
 * ```ts
 * const { notes } = await vaultChunks("examples/vault", { note: "SMARS" });
 * notes[0].chunks[0].meta.section; // "SMARS Robot"
 * (await vaultChunks("examples/vault", { note: "LP-200 label printer manual.pdf" })).notes[0].chunks[0].meta.page; // 1
 * ```
 */
export async function vaultChunks(
  vaultDir: string,
  o: { note?: string; log?: Logger } = {},
): Promise<{ notes: NoteChunks[]; warnings: Warning[] }> {
  const vault = assertVaultFolder(vaultDir);
  const walkLog = collectingLogger();
  // notes and attachments, as `index` reads them (unless the vault's settings leave attachments out)
  const walked = walkVault(vault, walkLog);
  let files = walked;
  if (o.note !== undefined) {
    const name = o.note;
    const one = oneNote(
      walked.map((f) => f.path),
      name,
      { in: vault, kind: "vault" },
      () => {
        // a file of the vault that is never read: say why, not which note is closest
        const why = whyNoteMissing(vault, name)?.why;
        if (why) throw new VaultRagError("usage", `vault-rag: "${name}" is not indexed: ${why}`);
      },
    );
    files = walked.filter((f) => f.path === one);
  }
  const notes: NoteChunks[] = [];
  const { leaveOut } = readSettings(vault);
  const dateKeys = resolveDateKeys();
  for (const f of files) {
    if (fileTypeOf(f.path) !== "note") {
      const read = await readAttachmentFile(f, walkLog, { dateKeys });
      if (read.failed) continue; // gone, or no permission: warned of
      notes.push({
        path: f.path,
        chunks: read.chunks ?? [],
        ...(read.unreadable ? { empty: "unreadable", reason: unreadableText(read.unreadable) } : {}),
      });
      continue;
    }
    const note = readNote(f, o.log, { dateKeys, leaveOut });
    if (!note) continue;
    const chunks = chunkNote(note);
    const empty = chunks.length ? undefined : isExcalidraw(f.path, {}) ? "drawing" : "blank";
    notes.push({ path: f.path, chunks, ...(empty ? { empty } : {}) });
  }
  return { notes, warnings: walkLog.warnings };
}
