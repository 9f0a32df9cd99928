// Keyword min-max bounds from the question's own words (the plain list), so that synonyms move
// only the passages that hold them.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, notesOf, type Scored } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
function fuse(de: Scored, kw: Scored, plain: Scored, rule: string, a = 0.65): Scored {
  const m = new Map<number, number>();
  const mm = (l: Scored) => ({ min: Math.min(...l.map((r) => r.s)), max: Math.max(...l.map((r) => r.s)) });
  const d = mm(de);
  for (const r of de) m.set(r.i, (1 - a) * (d.max > d.min ? (r.s - d.min) / (d.max - d.min) : 1));
  let b = mm(kw);
  if (rule !== "list" && plain.length > 1) {
    const p = mm(plain);
    if (p.max > p.min) b = rule === "plain" ? p : { min: p.min, max: b.max };
  }
  for (const r of kw) {
    const v = b.max > b.min ? Math.max(0, (r.s - b.min) / (b.max - b.min)) : 1;
    m.set(r.i, (m.get(r.i) ?? 0) + a * v);
  }
  return [...m].map(([i, s]) => ({ i, s })).sort((x, y) => y.s - x.s || x.i - y.i);
}
for (const rule of ["list", "plain", "plain-min"]) {
  console.log(
    name,
    rule.padEnd(10),
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuse(denseList(lab, q), q.kwx, q.kw, rule)))),
  );
}
