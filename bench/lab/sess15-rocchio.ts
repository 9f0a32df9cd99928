// Rocchio on vectors from several of the hybrid's first hits (one chunk per note), weighted by their
// fused score or uniformly, with optional negative feedback from ranks N0..N1: the question's vector
// q' = q + β · Σ w_i d_i / Σ w_i − γ · mean(neg), unit length; dense list queried again with q' and
// fused with the same keyword list. AGREE=T: only notes both lists put in their first T. GRID='[[k, beta, weighting(0 uniform|1 score), gamma, n0, n1]]'
import { loadExact } from "./sess15-exact.js";
import { diversify } from "../../src/search/rank.js";

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
const b0 = await X.evalRun((q) => X.baseHits(q));
console.log("baseline", X.fmt(b0));
const grid: number[][] = JSON.parse(process.env.GRID ?? "[[3,0.2,1,0,0,0]]");
const unit = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
};
for (const [k, beta, wmode, gamma, n0, n1] of grid) {
  const r = await X.evalRun(async (q) => {
    const first = X.baseHits(q);
    const notes = diversify(first, Math.max(k, n1 || 0), 1);
    // AGREE=T: feedback only from the first k hybrid notes that are also in the first T notes of
    // both the dense and the keyword list (none: the question as it is)
    const T = Number(process.env.AGREE ?? 0);
    const topNotes = (l: { meta: { path: string } }[]) => [...new Set(l.map((r) => r.meta.path))].slice(0, T);
    const both = T ? new Set(topNotes(q.dense).filter((p) => topNotes(q.keyword).includes(p))) : undefined;
    const pos = notes.filter((h) => !both || both.has(h.path)).slice(0, k);
    if (both && !pos.length) return first.length ? X.baseHits(q) : first;
    const v = Float32Array.from(q.vec);
    let wsum = 0;
    const acc = new Float32Array(v.length);
    for (const h of pos) {
      const w = wmode ? Math.max(h.score, 0) : 1;
      const d = X.chunkVec(h.id);
      for (let i = 0; i < v.length; i++) acc[i] += w * d[i];
      wsum += w;
    }
    if (wsum > 0) for (let i = 0; i < v.length; i++) v[i] += (beta * acc[i]) / wsum;
    if (gamma && n1 > n0) {
      const neg = notes.slice(n0, n1);
      for (const h of neg) {
        const d = X.chunkVec(h.id);
        for (let i = 0; i < v.length; i++) v[i] -= (gamma * d[i]) / neg.length;
      }
    }
    const dense = await X.store.queryDense(unit(v), X.o.pool, q.filter);
    return X.baseHits(q, dense);
  });
  console.log(JSON.stringify([k, beta, wmode, gamma, n0, n1]), X.fmt(r));
  // DIFF=1: the questions that move
  if (process.env.DIFF)
    r.per.forEach(
      (s, i) =>
        Math.abs(s - b0.per[i]) > 1e-9 &&
        console.log("   ", X.qs[i].kind, b0.per[i].toFixed(3), "→", s.toFixed(3), X.qs[i].text.slice(0, 80)),
    );
}
