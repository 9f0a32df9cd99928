// Dense query expansion by the keyword list's WordNet synonyms (the phrases `planExpansion` kept,
// only for questions it expands): the question embedded again with its first K synonyms appended,
// and that vector mixed into the question's at M: q' = unit((1 − M) q + M q_syn); dense list queried
// with q' and fused with the same keyword list. GRID='[[K, M]]'
import { loadExact } from "./sess15-exact.js";

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log(
  "baseline",
  X.fmt(await X.evalRun((q) => X.baseHits(q))),
  "expanded:",
  X.qs.filter((q) => q.expansion).length,
  "of",
  X.qs.length,
);
const grid: number[][] = JSON.parse(process.env.GRID ?? "[[10,0.3]]");
const cache = new Map<string, Float32Array>();
for (const [K, M] of grid) {
  const r = await X.evalRun(async (q) => {
    if (!q.expansion || M === 0) return X.baseHits(q);
    const text = q.text + " " + q.expansion.slice(0, K).join(" ");
    let e = cache.get(text);
    if (!e) cache.set(text, (e = await X.embedder.embedQuery(text)));
    const v = q.vec.map((x, i) => (1 - M) * x + M * e![i]);
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    const dense = await X.store.queryDense(
      v.map((x) => x / n),
      X.o.pool,
      q.filter,
    );
    return X.baseHits(q, dense);
  });
  console.log(JSON.stringify([K, M]), X.fmt(r));
}
