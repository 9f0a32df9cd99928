// Fusion variants on the search's own lists (dense + expanded keyword).
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const dls = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
function rrfPart(l: Scored, k: number): Map<number, number> {
  const m = new Map<number, number>();
  l.forEach((r, i) => m.set(r.i, 1 / (k + i + 1)));
  return m;
}
for (const lam of [0, 1, 2, 4])
  for (const k of [10, 60]) {
    const r = evaluateRun(lab, (q) => {
      const d = dls.get(q.id)!;
      const lin = fuseLinear([d, q.kwx], [0.35, 0.65]);
      const rd = rrfPart(d, k),
        rk = rrfPart(q.kwx, k);
      return notesOf(
        lab,
        lin
          .map((x) => ({ i: x.i, s: x.s + lam * (0.35 * (rd.get(x.i) ?? 0) + 0.65 * (rk.get(x.i) ?? 0)) }))
          .sort((a, b) => b.s - a.s || a.i - b.i),
      );
    });
    console.log(name, "linear + λ·rrf", lam, k, fmt(r));
  }
// CombMNZ-like: linear × (number of lists holding it)^p
for (const p of [0.25, 0.5]) {
  const r = evaluateRun(lab, (q) => {
    const d = dls.get(q.id)!;
    const inD = new Set(d.map((x) => x.i));
    const inK = new Set(q.kwx.map((x) => x.i));
    const lin = fuseLinear([d, q.kwx], [0.35, 0.65]);
    return notesOf(
      lab,
      lin
        .map((x) => ({ i: x.i, s: x.s * Math.pow((inD.has(x.i) ? 1 : 0) + (inK.has(x.i) ? 1 : 0), p) }))
        .sort((a, b) => b.s - a.s || a.i - b.i),
    );
  });
  console.log(name, "mnz", p, fmt(r));
}
