import { walkVault } from "../../vault/index.js";
import { locate, modelSpec, openForQuery } from "../open.js";
import { out, stderrLogger } from "../io.js";

/** `vault-rag status`. */
export function runStatus(o: { vault?: string; db?: string; json?: boolean }): void {
  const loc = locate(o);
  const { store, manifest } = openForQuery(loc, { log: stderrLogger(false) });
  try {
    const counts = store.count();
    const known = store.notes();
    let stale = 0;
    let files: { path: string; mtime: number; size: number }[] = [];
    try {
      files = walkVault(loc.vault);
    } catch {
      files = [];
    }
    const seen = new Set<string>();
    for (const f of files) {
      seen.add(f.path);
      const k = known.get(f.path);
      if (!k || k.mtime !== f.mtime || k.size !== f.size) stale++;
    }
    for (const p of known.keys()) if (!seen.has(p)) stale++;
    const info = {
      vault: loc.vault,
      index: loc.db,
      model: modelSpec(manifest),
      dimensions: manifest.embedder.dimensions,
      notes: counts.notes,
      chunks: counts.chunks,
      lastIndexed: manifest.updatedAt,
      stale,
    };
    if (o.json) out(JSON.stringify(info, null, 2));
    else
      out(
        `index:        ${info.index}\nvault:        ${info.vault}\nmodel:        ${info.model} (${info.dimensions}-d)\nnotes:        ${info.notes}\nchunks:       ${info.chunks}\nlast indexed: ${info.lastIndexed}\nstale:        ${info.stale} note(s) changed on disk since${info.stale ? " — run \`vault-rag index\`" : ""}`,
      );
  } finally {
    store.close();
  }
}
