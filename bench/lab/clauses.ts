// Dense scoring with the question's clauses embedded apart (max or mean with the whole).
import { loadLab, dot } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const e = useLiteEmbedder();
const clauses = new Map<string, Float32Array[]>();
for (const q of lab.queries) {
  const parts = q.text
    .split(/\s+--\s+|[;?!]|,\s+|\s+and\s+|\s+but\s+|\s+so\s+/i)
    .map((p) => p.trim())
    .filter((p) => p.split(/\s+/).length >= 3);
  clauses.set(q.id, parts.length > 1 ? await Promise.all(parts.map((p) => e.embedQuery(p))) : []);
}
function dl(q: (typeof lab.queries)[number], rule: string, w: number) {
  const cs = clauses.get(q.id)!;
  const out: { i: number; s: number }[] = [];
  lab.chunks.forEach((c, i) => {
    if (!q.allowed(i)) return;
    const whole = dot(q.vec, c.vec);
    if (!cs.length) return out.push({ i, s: whole });
    const sc = cs.map((v) => dot(v, c.vec));
    const part = rule === "max" ? Math.max(...sc) : sc.reduce((a, b) => a + b) / sc.length;
    out.push({ i, s: (1 - w) * whole + w * part });
  });
  return out.sort((a, b) => b.s - a.s).slice(0, 300);
}
for (const rule of ["max", "mean"])
  for (const w of [0, 0.3, 0.5]) {
    console.log(name, rule, w, "dense", fmt(evaluateRun(lab, (q) => notesOf(lab, dl(q, rule, w)))));
    console.log(
      name,
      rule,
      w,
      "hybrid",
      fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([dl(q, rule, w), q.kwx], [0.35, 0.65])))),
    );
  }
