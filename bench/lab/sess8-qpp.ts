// Helper-session experiment (not shipped): α from score-distribution query-performance predictors
// of each list (how far the top hit stands out of its own list), instead of coverage/length.
import { loadLab, denseList, type LabQuery } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { scoreRanking } from "../../src/search/eval.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const dense = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
// features: top-1 z-score within the list's top 300 (list "clarity"), top1 - top2 gap over range
const feats = (l: Scored) => {
  if (l.length < 3) return { z: 0, gap: 0, z10: 0 };
  const n = l.length;
  const mean = l.reduce((x, r) => x + r.s, 0) / n;
  const sd = Math.sqrt(l.reduce((x, r) => x + (r.s - mean) ** 2, 0) / n) || 1;
  const range = l[0].s - l[n - 1].s || 1;
  const top10 = l.slice(0, 10).reduce((x, r) => x + r.s, 0) / Math.min(10, n);
  return { z: (l[0].s - mean) / sd, gap: (l[0].s - l[1].s) / range, z10: (top10 - mean) / sd };
};
const F = new Map(lab.queries.map((q) => [q.id, { d: feats(dense.get(q.id)!), k: feats(q.kws) }]));
const alphas = [0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9];
const runAt = (q: LabQuery, a: number) => notesOf(lab, fuseLinear([dense.get(q.id)!, q.kws], [1 - a, a]));
if (process.env.DIAG) {
  // the best α per question beside its features
  const rows = lab.queries.map((q) => {
    const s = alphas.map((a) => scoreRanking(runAt(q, a), q.relevant).ndcg10);
    const mx = Math.max(...s);
    const good = alphas.filter((_, i) => s[i] >= mx - 1e-9);
    const f = F.get(q.id)!;
    return { q, mx, s065: s[5], good, f };
  });
  for (const r of rows.filter((r) => r.mx - r.s065 > 0.05))
    console.log(
      r.q.kind.padEnd(10),
      `best ${r.good[0]}-${r.good[r.good.length - 1]} gain ${(r.mx - r.s065).toFixed(2)}`,
      `dz ${r.f.d.z.toFixed(2)} dgap ${r.f.d.gap.toFixed(3)} dz10 ${r.f.d.z10.toFixed(2)} | kz ${r.f.k.z.toFixed(2)} kgap ${r.f.k.gap.toFixed(3)} kz10 ${r.f.k.z10.toFixed(2)}`,
    );
  const avg = (k: (f: (typeof rows)[number]["f"]) => number) =>
    (rows.reduce((x, r) => x + k(r.f), 0) / rows.length).toFixed(3);
  const means = (["z", "gap", "z10"] as const).flatMap((m) => [
    [`d${m}`, avg((f) => f.d[m])],
    [`k${m}`, avg((f) => f.k[m])],
  ]);
  console.log("mean", means.map(([n, v]) => `${n} ${v}`).join(" "));
}
// α = 0.65 + c * (kfeature - dfeature - offset), clamped; offset = the set-free constant below
const grid: [string, number, number][] = JSON.parse(
  process.env.GRID ??
    '[["z",0.02,0],["z",0.04,0],["z",0.06,0],["z10",0.03,0],["z10",0.06,0],["gap",0.3,0],["gap",0.6,0],["gap",1,0],["dz",0.03,4],["dz",0.06,4],["kz",0.03,4],["kz",0.06,4]]',
);
console.log(name, "fixed 0.65".padEnd(22), fmt(evaluateRun(lab, (q) => runAt(q, 0.65))));
for (const [feat, c, off] of grid) {
  const r = evaluateRun(lab, (q) => {
    const f = F.get(q.id)!;
    let x: number;
    if (feat === "dz") x = -(f.d.z - off);
    else if (feat === "kz") x = f.k.z - off;
    else x = (f.k as Record<string, number>)[feat] - (f.d as Record<string, number>)[feat];
    const a = Math.min(0.9, Math.max(0.3, 0.65 + c * x));
    return runAt(q, a);
  });
  console.log(name, `${feat} c${c} off${off}`.padEnd(22), fmt(r));
}
