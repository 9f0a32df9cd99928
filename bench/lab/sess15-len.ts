// A document-length prior after fusion (as language-model retrieval's log-length prior): a chunk's
// fused score + W × log(1 + words) / log(1 + most words among the candidates), words = the chunk's
// word count (NOTE=1: the note's, summed over its chunks in the index). GRID='[W, ...]' (W < 0: a
// penalty for length).
import { loadExact } from "./sess15-exact.js";
import { fuse } from "../../src/search/search.js";
import { namedFirst } from "../../src/search/rank.js";

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log("baseline", X.fmt(await X.evalRun((q) => X.baseHits(q))));
const noteWc = new Map(
  (
    X.db.prepare("SELECT path, SUM(word_count) AS w FROM chunks GROUP BY path").all() as { path: string; w: number }[]
  ).map((r) => [r.path, r.w]),
);
const grid: number[] = JSON.parse(process.env.GRID ?? "[0.05]");
for (const W of grid) {
  const r = await X.evalRun((q) => {
    const hits = fuse(X.o, q.dense, q.keyword);
    const wc = (h: (typeof hits)[number]) =>
      Math.log(1 + (process.env.NOTE ? (noteWc.get(h.path) ?? 0) : (h.meta.word_count as number)));
    let hi = 0;
    for (const h of hits) hi = Math.max(hi, wc(h));
    const out = hits.map((h) => {
      const s = h.score + (hi ? (W * wc(h)) / hi : 0);
      return { ...h, score: s, distance: 1 - s };
    });
    out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1));
    return namedFirst(out, q.text);
  });
  console.log("W", W, X.fmt(r));
}
