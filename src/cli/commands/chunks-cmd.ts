import { chunkNote } from "../../chunk/index.js";
import { VaultRagError } from "../../errors.js";
import { readNote, walkVault } from "../../vault/index.js";
import { locate } from "../open.js";
import { out, stderrLogger } from "../io.js";

/** `vault-rag chunks [vault]`: how the notes are cut. */
export async function runChunks(vaultArg: string | undefined, o: { note?: string; json?: boolean }): Promise<void> {
  const loc = locate({ vault: vaultArg });
  const log = stderrLogger(false);
  const files = walkVault(loc.vault, log).filter((f) => !o.note || f.path === o.note);
  if (o.note && !files.length)
    throw new VaultRagError(
      "usage",
      `vault-rag: no note "${o.note}" in ${loc.vault} — give a vault-relative path like robots/SMARS.md`,
    );
  const all = [];
  for (const f of files) {
    const note = readNote(f, log);
    if (!note) continue;
    for (const c of chunkNote(note)) {
      if (o.json) all.push({ id: c.id, text: c.text, ...c.meta });
      else
        out(
          `── ${c.meta.section}  (${c.meta.path}:${c.meta.start_line}-${c.meta.end_line}, ${c.meta.word_count} words)\n${c.text}\n`,
        );
    }
  }
  if (o.json) out(JSON.stringify(all, null, 2));
}
