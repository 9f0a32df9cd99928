import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, notesOf, type Scored } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault, 3000);
// dense: min at rank R (scores below clipped to 0); kw: min-max over top K, or s/max
function fuse(de: Scored, kw: Scored, a: number, R: number, K: number, kwZero: boolean): Scored {
  const m = new Map<number, number>();
  const dmax = de[0]?.s ?? 0,
    dmin = de[Math.min(R, de.length) - 1]?.s ?? 0;
  for (const r of de.slice(0, 3000)) {
    const v = dmax > dmin ? Math.max(0, (r.s - dmin) / (dmax - dmin)) : 1;
    m.set(r.i, (1 - a) * v);
  }
  const kk = kw.slice(0, K);
  const kmax = kk[0]?.s ?? 0,
    kmin = kwZero ? 0 : (kk[kk.length - 1]?.s ?? 0);
  for (const r of kk) {
    const v = kmax > kmin ? (r.s - kmin) / (kmax - kmin) : 1;
    m.set(r.i, (m.get(r.i) ?? 0) + a * v);
  }
  return [...m].map(([i, s]) => ({ i, s })).sort((x, y) => y.s - x.s || x.i - y.i);
}
const dl = new Map(lab.queries.map((q) => [q.id, denseList(lab, q, 3000)]));
for (const kwZero of [false, true])
  for (const R of [50, 100, 300, 1000])
    for (const K of [50, 300, 3000])
      for (const a of [0.6, 0.65, 0.7]) {
        if (!kwZero && K !== 300 && K !== 50) continue;
        console.log(
          `kwZero ${kwZero} R ${R} K ${K} a ${a}`,
          fmt(evaluateRun(lab, (q) => notesOf(lab, fuse(dl.get(q.id)!, q.kw, a, R, K, kwZero)))),
        );
      }
