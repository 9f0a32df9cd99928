import { indexStatus } from "../../library.js";
import { locate, openForQuery } from "../open.js";
import { out, stderrLogger } from "../io.js";

/** `vault-rag status`. */
export async function runStatus(o: { vault?: string; db?: string; json?: boolean }): Promise<void> {
  const loc = locate(o);
  const { store, manifest } = await openForQuery(loc, { log: stderrLogger(false) });
  try {
    const info = await indexStatus(loc.vault, store, manifest);
    if (o.json) out(JSON.stringify(info, null, 2));
    else
      out(
        `index:        ${info.index}\nvault:        ${info.vault}\nmodel:        ${info.model} (${info.dimensions}-d)\nnotes:        ${info.notes}\nchunks:       ${info.chunks}\nlast indexed: ${info.lastIndexed}\nstale:        ${info.stale} note(s) changed on disk since${info.stale ? " — run `vault-rag index`" : ""}`,
      );
  } finally {
    await store.close();
  }
}
