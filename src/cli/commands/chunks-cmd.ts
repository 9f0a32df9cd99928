import { vaultChunks } from "../../core/chunks.js";
import { locate, noteArgument } from "../open.js";
import { err, out, outText, stderrLogger } from "../io.js";
import { warningLines } from "./index-cmd.js";

/** `vault-rag chunks [vault]`: how the notes are cut. */
export async function runChunks(vaultArg: string | undefined, o: { note?: string; json?: boolean }): Promise<void> {
  const loc = locate({ vault: vaultArg });
  // a path or a name, found as a wikilink finds it (as related and get_note do)
  const note = o.note === undefined ? undefined : noteArgument(loc.vault, o.note);
  const { notes, warnings } = vaultChunks(loc.vault, { note, log: stderrLogger(false) });
  // the walk's warnings are about other files (a symlink out of the vault): for one note they are
  // noise, for the whole vault they are grouped as index groups them
  if (!o.note) for (const line of warningLines(warnings, false)) err(line);
  const all = [];
  for (const n of notes) {
    if (o.note && n.empty)
      err(
        n.empty === "drawing"
          ? `no chunks: "${n.path}" holds no text to index (a drawing with no text elements)`
          : `no chunks: "${n.path}" holds no text to index (it is blank, with no properties or invalid ones)`,
      );
    for (const c of n.chunks) {
      if (o.json) all.push({ id: c.id, text: c.text, ...c.meta });
      else
        outText(
          `── ${c.meta.section}  (${c.meta.path}:${c.meta.start_line}-${c.meta.end_line}, ${c.meta.word_count} words)\n${c.text}\n`,
        );
    }
  }
  if (o.json) out(JSON.stringify(all, null, 2));
}
