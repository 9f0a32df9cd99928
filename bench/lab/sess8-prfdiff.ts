// Helper-session (not shipped): which questions the gated vector PRF (top-1 margin ≥ M, β) moves.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const M = Number(process.env.M ?? 0.2),
  B = Number(process.env.B ?? 0.2);
const lab = await loadLab(name, target, vault);
const norm = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
};
const base = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kws], [0.35, 0.65])));
let fired = 0;
const prf = evaluateRun(lab, (q) => {
  const f = fuseLinear([denseList(lab, q), q.kws], [0.35, 0.65]);
  if (f.length < 2 || f[0].s - f[1].s < M) return notesOf(lab, f);
  fired++;
  const v = new Float32Array(q.vec),
    cv = lab.chunks[f[0].i].vec;
  for (let d = 0; d < v.length; d++) v[d] += B * cv[d];
  return notesOf(lab, fuseLinear([denseList(lab, q, 300, norm(v)), q.kws], [0.35, 0.65]));
});
console.log(name, "base", fmt(base));
console.log(name, `prf M${M} B${B}`, fmt(prf), "fired", fired, "of", lab.queries.length);
lab.queries.forEach((q, i) => {
  if (Math.abs(prf.per[i] - base.per[i]) > 1e-9)
    console.log(`  ${(prf.per[i] - base.per[i]).toFixed(3)} ${q.kind} ${q.text.slice(0, 90)}`);
});
