import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const alphas = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9, 1];
const runs = alphas.map((a) =>
  evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kwx], [1 - a, a]))),
);
const best = lab.queries.map((_, qi) => Math.max(...runs.map((r) => r.per[qi])));
const kinds: Record<string, number[]> = {};
lab.queries.forEach((q, qi) => (kinds[q.kind] ??= []).push(best[qi]));
console.log(
  "oracle alpha",
  (best.reduce((a, b) => a + b) / best.length).toFixed(4),
  Object.entries(kinds)
    .map(([k, v]) => k + ":" + (v.reduce((a, b) => a + b) / v.length).toFixed(3))
    .join(" "),
);
alphas.forEach((a, i) => console.log(a, fmt(runs[i])));
