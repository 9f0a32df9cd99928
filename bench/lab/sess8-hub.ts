// Helper-session experiment (not shipped): hubness reduction of the dense list, CSLS-style
// (Conneau et al. 2018): a chunk's cosine to the question less β × its mean cosine to its k nearest
// chunks, so passages that sit near everything (hubs of an anisotropic space) stop crowding the top.
// Also: score regularisation over the fused top K with kNN weights in that space (sharper than raw cosine).
import { loadLab, dot, denseList, type LabQuery } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const A = 0.65;
const n = lab.chunks.length;
const sortS = (l: Scored) => l.sort((a, b) => b.s - a.s || a.i - b.i);
const dense = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
const show = (label: string, run: (q: LabQuery) => string[]) =>
  console.log(name, label.padEnd(34), fmt(evaluateRun(lab, run)));
show("baseline", (q) => notesOf(lab, fuseLinear([dense.get(q.id)!, q.kws], [1 - A, A])));

// r_c for k in KS: mean cosine to the k nearest other chunks (O(n²), fine below ~10k chunks;
// SciFact is sampled against a random subset of 3000 neighbours candidates to keep it quick)
const KS = [5, 20];
const cand = n > 4000 ? Array.from({ length: 3000 }, (_, j) => Math.floor((j * n) / 3000)) : [...Array(n).keys()];
const r = new Map<number, Float64Array>(KS.map((k) => [k, new Float64Array(n)]));
const t0 = Date.now();
const sims = new Float64Array(cand.length);
for (let i = 0; i < n; i++) {
  const vi = lab.chunks[i].vec;
  cand.forEach((j, jj) => (sims[jj] = j === i ? -2 : dot(vi, lab.chunks[j].vec)));
  const sorted = Float64Array.from(sims).sort().reverse();
  for (const k of KS) {
    let s = 0;
    for (let t = 0; t < k; t++) s += sorted[t];
    r.get(k)![i] = s / k;
  }
}
console.log(name, "hub scores in", Date.now() - t0, "ms");
for (const k of KS)
  for (const beta of [0.1, 0.25, 0.5, 1]) {
    const rk = r.get(k)!;
    const lists = new Map(
      lab.queries.map((q) => {
        const out: Scored = [];
        lab.chunks.forEach((c, i) => q.allowed(i) && out.push({ i, s: dot(q.vec, c.vec) - beta * rk[i] }));
        return [q.id, sortS(out).slice(0, 300)];
      }),
    );
    show(`csls k${k} beta${beta} dense`, (q) => notesOf(lab, lists.get(q.id)!));
    for (const a of [0.6, 0.65, 0.7])
      show(`csls k${k} beta${beta} hyb a${a}`, (q) => notesOf(lab, fuseLinear([lists.get(q.id)!, q.kws], [1 - a, a])));
  }
