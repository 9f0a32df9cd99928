// Re-embed a vault's chunks with a variant of the embedded text, and compare dense and hybrid.
import fs from "node:fs";
import { walkVault, readNote } from "../../src/vault/index.js";
import { chunkNote } from "../../src/chunk/index.js";
import { useLiteEmbedder, passageWindows, windowOptions } from "../../src/embed/index.js";
import { pooledVector } from "../../src/store/windows.js";
import { loadLab, dot } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vault, variant] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const e = useLiteEmbedder();
const wo = windowOptions(e)!;
const VARIANTS: Record<string, (t: string) => string> = {
  same: (t) => t,
  nocode: (t) => t.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ").replace(/\n{3,}/g, "\n\n"),
  nomd: (t) =>
    t
      .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/https?:\/\/\S+/g, " ")
      .replace(/[`*_#>|]/g, " ")
      .replace(/\s+/g, " "),
};
const f = VARIANTS[variant];
const cacheFile = `/tmp/lab-reembed-${name}-${variant}.json`;
let byId: Record<string, number[]> = {};
if (fs.existsSync(cacheFile)) byId = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
else {
  const texts: string[] = [];
  const owner: string[] = [];
  for (const file of walkVault(vault)) {
    const note = readNote(file);
    if (!note) continue;
    for (const c of chunkNote(note)) {
      const t = f(c.embedText);
      for (const w of passageWindows(t.trim() ? t : c.embedText, wo)) {
        texts.push(w);
        owner.push(c.id);
      }
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
console.log("missing", missing);
const dl = (q: (typeof lab.queries)[number]) => {
  const out: { i: number; s: number }[] = [];
  lab.chunks.forEach((c, i) => {
    if (q.allowed(i)) out.push({ i, s: dot(q.vec, c.vec) });
  });
  return out.sort((a, b) => b.s - a.s).slice(0, 300);
};
console.log(variant, "dense ", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q)))));
for (const a of [0.6, 0.65, 0.7])
  console.log(variant, "hybrid", a, fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q), q.kwx], [1 - a, a])))));
