// Theoretical min-max (Bruch, Gai & Ingber 2023, "An analysis of fusion functions for hybrid
// retrieval": TM2C2): each list scaled from a fixed lower bound instead of its weakest candidate —
// cosine from DMIN (a number; "list": the list's own min, today's), BM25 from 0 (KMIN=zero) or its
// list's min ("list", with today's floor rule); then the convex combination at α. IMPUTE=1 also gives
// keyword-only candidates their true cosine (not the dense floor). GRID='[[dmin|null, alpha], ...]'
import { loadExact } from "./sess15-exact.js";
import { namedFirst } from "../../src/search/rank.js";
import { fuse } from "../../src/search/search.js";
import { dot } from "./load.js";

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log("baseline", X.fmt(await X.evalRun((q) => X.baseHits(q))));
const KMIN = process.env.KMIN ?? "zero";
const grid: [number | null, number][] = JSON.parse(process.env.GRID ?? "[[0,0.65]]");
for (const [dmin, a] of grid) {
  const r = await X.evalRun((q) => {
    const hits = fuse(X.o, q.dense, q.keyword); // for the records; rescored below
    const dS = new Map(q.dense.map((r) => [r.id, 1 - r.distance]));
    const kS = new Map(q.keyword.map((r) => [r.id, -r.distance]));
    const dvals = [...dS.values()],
      kvals = [...kS.values()];
    const dmax = Math.max(...dvals),
      dlo = dmin ?? Math.min(...dvals);
    const kmax = kvals.length ? Math.max(...kvals) : 0;
    const klo = KMIN === "zero" || q.keyword.length < q.dense.length ? 0 : Math.min(...kvals);
    const out = hits.map((h) => {
      let d = dS.get(h.id);
      if (d === undefined && process.env.IMPUTE) d = dot(q.vec, X.chunkVec(h.id));
      const dn = d === undefined ? 0 : dmax > dlo ? (d - dlo) / (dmax - dlo) : 1;
      const k = kS.get(h.id);
      const kn = k === undefined ? 0 : kmax > klo ? (k - klo) / (kmax - klo) : 1;
      const s = (1 - a) * (process.env.IMPUTE ? dn : Math.max(dn, 0)) + a * kn;
      return { ...h, score: s, distance: 1 - s };
    });
    out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : 1));
    return namedFirst(out, q.text);
  });
  console.log(`KMIN ${KMIN} IMPUTE ${process.env.IMPUTE ?? 0}`, JSON.stringify([dmin, a]), X.fmt(r));
}
