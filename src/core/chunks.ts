/** How the notes of a vault are cut into passages (`vault-rag chunks`): no index needed. */
import { chunkNote, type Chunk } from "../chunk/index.js";
import { VaultRagError } from "../errors.js";
import { resolveDateKeys } from "../config.js";
import { readSettings } from "../settings.js";
import { collectingLogger, type Logger, type Warning } from "../log.js";
import { assertVaultFolder, isExcalidraw, oneNote, readNote, walkVault, whyNoteMissing } from "../vault/index.js";

/** One note's passages; `empty` says why a note cut into none holds no text (`drawing`, `blank`). */
export interface NoteChunks {
  path: string;
  chunks: Chunk[];
  empty?: "drawing" | "blank";
}

/**
 * The passages of every note of a vault, or of one (`note`: a path or a name, found as a wikilink
 * finds it; a file the walk leaves out is refused with why). `warnings` are the walk's, about other
 * files (a symlink out of the vault).
 *
 * @example
 * ```ts
 * const { notes } = vaultChunks("examples/vault", { note: "SMARS" });
 * notes[0].chunks[0].meta.section; // "SMARS Robot"
 * ```
 */
export function vaultChunks(
  vaultDir: string,
  o: { note?: string; log?: Logger } = {},
): { notes: NoteChunks[]; warnings: Warning[] } {
  const vault = assertVaultFolder(vaultDir);
  const walkLog = collectingLogger();
  // notes only: an attachment is read by `index` (see chunkAttachment)
  const walked = walkVault(vault, walkLog, { attachments: false });
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
  for (const f of files) {
    const note = readNote(f, o.log, { dateKeys: resolveDateKeys(), leaveOut });
    if (!note) continue;
    const chunks = chunkNote(note);
    const empty = chunks.length ? undefined : isExcalidraw(f.path, {}) ? "drawing" : "blank";
    notes.push({ path: f.path, chunks, ...(empty ? { empty } : {}) });
  }
  return { notes, warnings: walkLog.warnings };
}
