// Re-embedding a vault's passages for the lab: one shared loop for the scripts that measure what
// the model should read of a passage (reembed.ts, sess10-embedtext.ts). Not shipped.
import fs from "node:fs";
import { walkVault, readNote } from "../../src/vault/index.js";
import { chunkNote, type Chunk } from "../../src/chunk/index.js";
import { useLiteEmbedder, passageWindows, windowOptions } from "../../src/embed/index.js";
import { pooledVector } from "../../src/store/windows.js";
import { dot, type Lab, type LabQuery } from "./load.js";

/**
 * Embeds every passage of `vault` as the texts `windowsOf(embedText, cut)` gives it (`cut` cuts a
 * text into the model's windows), pools each passage's vectors, caches them in `cacheFile`, and
 * puts them on the lab's chunks. Returns how many chunks got none.
 */
export async function reembedLab(
  lab: Lab,
  vault: string,
  cacheFile: string,
  windowsOf: (embedText: string, cut: (t: string) => string[], chunk: Chunk) => string[],
): Promise<number> {
  const e = useLiteEmbedder();
  const wo = windowOptions(e)!;
  let byId: Record<string, number[]> = {};
  if (fs.existsSync(cacheFile)) byId = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
  else {
    const texts: string[] = [];
    const owner: string[] = [];
    for (const file of walkVault(vault)) {
      const note = readNote(file);
      if (!note) continue;
      for (const c of chunkNote(note))
        for (const w of windowsOf(c.embedText, (t) => passageWindows(t, wo), c)) {
          texts.push(w);
          owner.push(c.id);
        }
    }
    console.log(texts.length, "windows");
    const vecs = await e.embedDocuments(texts);
    const groups = new Map<string, Float32Array[]>();
    owner.forEach((id, i) => {
      if (!groups.has(id)) groups.set(id, []);
      groups.get(id)!.push(vecs[i]);
    });
    for (const [id, ws] of groups) byId[id] = Array.from(pooledVector(ws.map((vector) => ({ vector }))));
    fs.writeFileSync(cacheFile, JSON.stringify(byId));
  }
  let missing = 0;
  for (const c of lab.chunks) {
    const v = byId[c.id];
    if (v) c.vec = Float32Array.from(v);
    else missing++;
  }
  return missing;
}

/** The dense list of a question over the lab's (re-embedded) chunks: cosine, best first, top 300. */
export function denseOf(lab: Lab, q: LabQuery): { i: number; s: number }[] {
  const out: { i: number; s: number }[] = [];
  lab.chunks.forEach((c, i) => {
    if (q.allowed(i)) out.push({ i, s: dot(q.vec, c.vec) });
  });
  return out.sort((a, b) => b.s - a.s).slice(0, 300);
}
