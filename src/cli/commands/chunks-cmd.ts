import { chunkNote } from "../../chunk/index.js";
import { VaultRagError } from "../../errors.js";
import { isExcalidraw, oneNote, readNote, walkVault, whyNoteMissing } from "../../vault/index.js";
import { locate, noteArgument } from "../open.js";
import { collectingLogger } from "../../log.js";
import { err, out, outText, stderrLogger } from "../io.js";
import { warningLines } from "./index-cmd.js";

/** `vault-rag chunks [vault]`: how the notes are cut. */
export async function runChunks(vaultArg: string | undefined, o: { note?: string; json?: boolean }): Promise<void> {
  const loc = locate({ vault: vaultArg });
  const log = stderrLogger(false);
  // the walk's warnings are about other files (a symlink out of the vault): for one note they are
  // noise, for the whole vault they are grouped as index groups them
  const walkLog = collectingLogger();
  const walked = walkVault(loc.vault, walkLog);
  let files = walked;
  if (o.note) {
    // a path or a name, found as a wikilink finds it (as related and get_note do)
    const name = noteArgument(loc.vault, o.note);
    const one = oneNote(
      walked.map((f) => f.path),
      name,
      { in: loc.vault, kind: "vault" },
      () => {
        // a file of the vault that vault-rag never reads: say why, not which note is closest
        const why = whyNoteMissing(loc.vault, name)?.why;
        if (why) throw new VaultRagError("usage", `vault-rag: "${name}" is not indexed: ${why}`);
      },
    );
    files = walked.filter((f) => f.path === one);
  }
  if (!o.note) for (const line of warningLines(walkLog.warnings, false)) err(line);
  const all = [];
  for (const f of files) {
    const note = readNote(f, log);
    if (!note) continue;
    const chunks = chunkNote(note);
    if (o.note && !chunks.length)
      err(
        isExcalidraw(f.path, {})
          ? `no chunks: "${f.path}" holds no text to index (a drawing with no text elements)`
          : `no chunks: "${f.path}" holds no text to index (it is blank, with no properties or invalid ones)`,
      );
    for (const c of chunks) {
      if (o.json) all.push({ id: c.id, text: c.text, ...c.meta });
      else
        outText(
          `── ${c.meta.section}  (${c.meta.path}:${c.meta.start_line}-${c.meta.end_line}, ${c.meta.word_count} words)\n${c.text}\n`,
        );
    }
  }
  if (o.json) out(JSON.stringify(all, null, 2));
}
