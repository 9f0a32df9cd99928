// Fusion at the note level (MaxP, as passage retrieval scores a document by its best passage):
// each list's score of a note is its best chunk's, min-max scaled as the chunk lists are (same
// floors), and the two fused per note; a chunk's score becomes (1 − L) × its own fused score +
// L × its note's fused score, so a note whose best dense chunk and best keyword chunk differ gets
// credit from both. GRID='[L, ...]'
import { loadExact } from "./sess15-exact.js";
import { fuse } from "../../src/search/search.js";
import { namedFirst } from "../../src/search/rank.js";

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log("baseline", X.fmt(await X.evalRun((q) => X.baseHits(q))));
const grid: number[] = JSON.parse(process.env.GRID ?? "[0.5,1]");
const a = X.o.alpha;
function noteScores(list: { path: string; s: number }[], floor?: number) {
  const m = new Map<string, number>();
  if (!list.length) return m;
  let lo = floor ?? Infinity,
    hi = -Infinity;
  for (const r of list) {
    lo = Math.min(lo, r.s);
    hi = Math.max(hi, r.s);
  }
  for (const r of list) {
    const v = hi > lo ? (r.s - lo) / (hi - lo) : 1;
    if (v > (m.get(r.path) ?? -1)) m.set(r.path, v);
  }
  return m;
}
for (const L of grid) {
  const r = await X.evalRun((q) => {
    const hits = fuse(X.o, q.dense, q.keyword);
    const dn = noteScores(q.dense.map((r) => ({ path: r.meta.path, s: 1 - r.distance })));
    const kFloor = q.keyword.length < q.dense.length ? 0 : undefined;
    const kn = noteScores(
      q.keyword.map((r) => ({ path: r.meta.path, s: -r.distance })),
      kFloor,
    );
    const out = hits.map((h) => {
      const ns = (1 - a) * (dn.get(h.path) ?? 0) + a * (kn.get(h.path) ?? 0);
      const s = (1 - L) * h.score + L * ns;
      return { ...h, score: s, distance: 1 - s };
    });
    out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1));
    return namedFirst(out, q.text);
  });
  console.log("L", L, X.fmt(r));
}
