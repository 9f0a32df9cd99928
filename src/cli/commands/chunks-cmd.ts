import { vaultChunks } from "../../core/chunks.js";
import { locate, noteArgument } from "../open.js";
import { err, out, outText, stderrLogger } from "../io.js";
import { warningLines } from "./index-cmd.js";

/**
 * Where `chunks` says a passage is: a note's lines (`robots/SMARS.md:5-12`), a PDF's page with its
 * type (`papers/manual.pdf:p2, pdf`), another attachment's lines with its type.
 *
 * @example
 * ```ts
 * chunkPlace({ path: "papers/manual.pdf", start_line: 1, end_line: 6, file_type: "pdf", page: 2 }); // "papers/manual.pdf:p2, pdf"
 * ```
 */
export function chunkPlace(m: {
  path: string;
  start_line: number;
  end_line: number;
  file_type?: string;
  page?: number;
}): string {
  const at = m.page ? `${m.path}:p${m.page}` : `${m.path}:${m.start_line}-${m.end_line}`;
  return m.file_type && m.file_type !== "note" ? `${at}, ${m.file_type}` : at;
}

/** `vault-rag chunks [vault]`: how the notes and attachments are cut. */
export async function runChunks(vaultArg: string | undefined, o: { note?: string; json?: boolean }): Promise<void> {
  const loc = locate({ vault: vaultArg });
  // a path or a name, found as a wikilink finds it (as related and get_note do)
  const note = o.note === undefined ? undefined : noteArgument(loc.vault, o.note);
  const { notes, warnings } = await vaultChunks(loc.vault, { note, log: stderrLogger(false) });
  // the walk's warnings are about other files (a symlink out of the vault): for one note they are
  // noise, for the whole vault they are grouped as index groups them
  if (!o.note) for (const line of warningLines(warnings, false)) err(line);
  const all = [];
  for (const n of notes) {
    if (o.note && n.empty)
      err(
        n.empty === "unreadable"
          ? `no chunks: "${n.path}" cannot be read: ${n.reason ?? "unreadable"}`
          : n.empty === "drawing"
            ? `no chunks: "${n.path}" holds no text to index (a drawing with no text elements)`
            : `no chunks: "${n.path}" holds no text to index (it is blank, with no properties or invalid ones)`,
      );
    for (const c of n.chunks) {
      if (o.json) all.push({ id: c.id, text: c.text, ...c.meta });
      else outText(`── ${c.meta.section}  (${chunkPlace(c.meta)}, ${c.meta.word_count} words)\n${c.text}\n`);
    }
  }
  if (o.json) out(JSON.stringify(all, null, 2));
}
