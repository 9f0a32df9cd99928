// BM25 with other k1 and b than FTS5's fixed 1.2 and 0.75: the same per-column weights, the same
// single length normalisation over all columns, computed in memory from the index's own tokens.
import { memoryBm25 } from "./bm25-index.js";
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const { post, len, N, avg, stem } = memoryBm25(lab);
function stems(q: string): string[][] {
  // each query term (a phrase when it has spaces) as its stemmed tokens
  return queryTerms(q).map(stem);
}
const qstems = new Map(
  lab.queries.map((q) => [
    q.id,
    stems(q.text)
      .filter((s) => s.length === 1)
      .map((s) => s[0]),
  ]),
);
function bm25(q: (typeof lab.queries)[number], k1: number, b: number): Scored {
  const m = new Map<number, number>();
  for (const t of new Set(qstems.get(q.id)!)) {
    const p = post.get(t);
    if (!p) continue;
    const n = p.size;
    const idf = Math.max(1e-6, Math.log((N - n + 0.5) / (n + 0.5)));
    for (const [i, tf] of p) {
      if (!q.allowed(i)) continue;
      const s = (idf * (tf * (k1 + 1))) / (tf + k1 * (1 - b + (b * len[i]) / avg));
      m.set(i, (m.get(i) ?? 0) + s);
    }
  }
  return [...m]
    .map(([i, s]) => ({ i, s }))
    .sort((x, y) => y.s - x.s || x.i - y.i)
    .slice(0, 300);
}
console.log(
  name,
  "fts5 kw",
  fmt(evaluateRun(lab, (q) => notesOf(lab, q.kw))),
  "\n   hybrid",
  fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kw], [0.35, 0.65])))),
);
const grid: [number, number][] = JSON.parse(
  process.env.GRID ?? "[[1.2,0.75],[1.2,0.5],[1.2,0.3],[0.9,0.4],[1.5,0.75],[2,0.75],[0.9,0.75]]",
);
for (const [k1, b] of grid) {
  const kw = evaluateRun(lab, (q) => notesOf(lab, bm25(q, k1, b)));
  const hy = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), bm25(q, k1, b)], [0.35, 0.65])));
  console.log(name, k1, b, "kw", fmt(kw), "\n   hybrid", fmt(hy));
}
