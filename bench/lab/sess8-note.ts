// Helper-session experiments (not shipped):
//  notevec: a chunk's dense score mixed with the cosine of its whole note's pooled vector.
//  prf2:    the gated vector PRF of sess8-ideas.ts on a finer grid (is its +0.0005 a plateau or noise?).
// IDEA=all|notevec|prf2
import { loadLab, dot, denseList, type LabQuery } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { pooledVector } from "../../src/store/windows.js";

const [name, target, vault] = process.argv.slice(2);
const IDEA = process.env.IDEA ?? "all";
const on = (k: string) => IDEA === "all" || IDEA.split(",").includes(k);
const lab = await loadLab(name, target, vault);
const A = 0.65;
const sortS = (l: Scored) => l.sort((a, b) => b.s - a.s || a.i - b.i);
const dense = new Map(lab.queries.map((q) => [q.id, denseList(lab, q)]));
const base = (q: LabQuery) => fuseLinear([dense.get(q.id)!, q.kws], [1 - A, A]);
const show = (label: string, run: (q: LabQuery) => string[]) =>
  console.log(name, label.padEnd(34), fmt(evaluateRun(lab, run)));
show("baseline", (q) => notesOf(lab, base(q)));

if (on("notevec")) {
  const byNote = new Map<string, Float32Array[]>();
  for (const c of lab.chunks) (byNote.get(c.path) ?? byNote.set(c.path, []).get(c.path)!).push(...c.windows);
  const noteVec = new Map([...byNote].map(([p, w]) => [p, pooledVector(w.map((vector) => ({ vector })))]));
  for (const nu of [0.2, 0.4, 0.6]) {
    const lists = new Map(
      lab.queries.map((q) => {
        const out: Scored = [];
        lab.chunks.forEach(
          (c, i) =>
            q.allowed(i) && out.push({ i, s: (1 - nu) * dot(q.vec, c.vec) + nu * dot(q.vec, noteVec.get(c.path)!) }),
        );
        return [q.id, sortS(out).slice(0, 300)];
      }),
    );
    show(`notevec nu${nu} dense`, (q) => notesOf(lab, lists.get(q.id)!));
    show(`notevec nu${nu} hyb`, (q) => notesOf(lab, fuseLinear([lists.get(q.id)!, q.kws], [1 - A, A])));
  }
}

if (on("prf2")) {
  const norm = (v: Float32Array) => {
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  };
  for (const margin of [0.1, 0.15, 0.2, 0.25, 0.3])
    for (const beta of [0.2, 0.3, 0.45, 0.6, 1]) {
      let fired = 0;
      const r = evaluateRun(lab, (q) => {
        const f = base(q);
        if (f.length < 2 || f[0].s - f[1].s < margin) return notesOf(lab, f);
        fired++;
        const v = new Float32Array(q.vec);
        const cv = lab.chunks[f[0].i].vec;
        for (let d = 0; d < v.length; d++) v[d] += beta * cv[d];
        return notesOf(lab, fuseLinear([denseList(lab, q, 300, norm(v)), q.kws], [1 - A, A]));
      });
      console.log(name, `prf2 margin${margin} beta${beta}`.padEnd(34), fmt(r), "fired", fired);
    }
}
