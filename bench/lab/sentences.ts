// Dense evidence from single sentences: each chunk's sentences (a code block as one unit) embedded
// alone, a chunk scored by its pooled vector, its best sentence, or a mix of the two.
import fs from "node:fs";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { loadLab, dot, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const e = useLiteEmbedder();
function units(text: string): string[] {
  const out: string[] = [];
  const parts = text.split(/^(```[\s\S]*?^```)/m);
  for (const p of parts) {
    if (p.startsWith("```")) {
      out.push(p);
      continue;
    }
    for (const para of p.split(/\n\s*\n/))
      for (const s of para.replace(/\s+/g, " ").split(/(?<=[.!?:])\s+(?=[A-Z`"'([])/))
        if (s.trim().split(/\s+/).length >= 3) out.push(s.trim());
  }
  return out.length ? out : [text];
}
const cacheFile = `/tmp/lab-sent-${name}.json`;
let cache: Record<string, number[][]> = {};
if (fs.existsSync(cacheFile)) cache = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
else {
  const texts: string[] = [];
  const owner: string[] = [];
  for (const c of lab.chunks)
    for (const u of units(c.text)) {
      texts.push(u);
      owner.push(c.id);
    }
  console.log(texts.length, "sentences");
  const t0 = Date.now();
  const vecs = await e.embedDocuments(texts);
  console.log("embedded in", Date.now() - t0, "ms");
  owner.forEach((id, i) => (cache[id] ??= []).push(Array.from(vecs[i])));
  fs.writeFileSync(cacheFile, JSON.stringify(cache));
}
const sv = lab.chunks.map((c) => (cache[c.id] ?? []).map((v) => Float32Array.from(v)));
const list = (q: (typeof lab.queries)[number], lam: number, top: number) => {
  const out: { i: number; s: number }[] = [];
  lab.chunks.forEach((c, i) => {
    if (!q.allowed(i)) return;
    const sims = sv[i].map((v) => dot(q.vec, v)).sort((a, b) => b - a);
    const best = sims.length ? sims.slice(0, top).reduce((a, b) => a + b, 0) / Math.min(top, sims.length) : 0;
    out.push({ i, s: (1 - lam) * dot(q.vec, c.vec) + lam * best });
  });
  return out.sort((a, b) => b.s - a.s).slice(0, 300);
};
console.log(name, "dense pooled", fmt(evaluateRun(lab, (q) => notesOf(lab, denseList(lab, q)))));
console.log(
  name,
  "hybrid pooled",
  fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kwx], [0.35, 0.65])))),
);
for (const top of [1, 2])
  for (const lam of [0.3, 0.5, 0.7, 1]) {
    console.log(name, "top", top, "lam", lam, "dense", fmt(evaluateRun(lab, (q) => notesOf(lab, list(q, lam, top)))));
    console.log(
      name,
      "top",
      top,
      "lam",
      lam,
      "hybrid",
      fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([list(q, lam, top), q.kwx], [0.35, 0.65])))),
    );
  }
