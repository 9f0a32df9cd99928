// Helper-session experiments (not shipped):
//  center: the dense list in a centred space — the corpus mean (and optionally its top principal
//          directions, "all-but-the-top", Mu & Viswanath 2018) removed from chunk vectors (and the
//          query), renormalised. Cosine on anisotropic sentence embeddings is dominated by a common
//          direction; removing it can sharpen the dense ranking.
//  smooth: cluster-hypothesis score regularisation (Diaz 2005) on the fused top K: each chunk's
//          fused score mixed with the similarity-weighted mean of its top-K neighbours' scores.
// IDEA=all|center|smooth
import { loadLab, dot, type LabQuery } from "./load.js";
import { baseline, fuseLinear, notesOf, type Scored } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const IDEA = process.env.IDEA ?? "all";
const on = (k: string) => IDEA === "all" || IDEA.split(",").includes(k);
const lab = await loadLab(name, target, vault);
const A = 0.65;
const D = lab.dims;
const { dense, base, show, sortS } = baseline(lab, A);
show("dense only", (q) => notesOf(lab, dense.get(q.id)!));

const normalise = (v: Float32Array) => {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < v.length; j++) v[j] /= n;
  return v;
};

if (on("center")) {
  const mu = new Float32Array(D);
  for (const c of lab.chunks) for (let j = 0; j < D; j++) mu[j] += c.vec[j] / lab.chunks.length;
  let mun = 0;
  for (const x of mu) mun += x * x;
  console.log(name, "|mean vector|", Math.sqrt(mun).toFixed(3));
  const centred = lab.chunks.map((c) => c.vec.map((x, j) => x - mu[j]));
  // top principal directions of the centred vectors, by power iteration with deflation
  const pcs: Float32Array[] = [];
  for (let k = 0; k < 5; k++) {
    let v = normalise(Float32Array.from({ length: D }, (_, j) => Math.sin(j * 1.7 + k)));
    for (let it = 0; it < 60; it++) {
      const w = new Float32Array(D);
      for (const c of centred) {
        const p = dot(c, v);
        for (let j = 0; j < D; j++) w[j] += p * c[j];
      }
      for (const u of pcs) {
        const p = dot(w, u);
        for (let j = 0; j < D; j++) w[j] -= p * u[j];
      }
      v = normalise(w);
    }
    pcs.push(v);
  }
  const project = (v: Float32Array, npc: number, sub: boolean) => {
    const out = sub ? v.map((x, j) => x - mu[j]) : new Float32Array(v);
    for (const u of pcs.slice(0, npc)) {
      const p = dot(out, u);
      for (let j = 0; j < D; j++) out[j] -= p * u[j];
    }
    return normalise(out);
  };
  for (const npc of [0, 1, 2, 3, 5])
    for (const qmode of ["q-raw", "q-centred"]) {
      const docs = centred.map((c) => project(c, npc, false));
      const list = (q: LabQuery): Scored => {
        const qv = qmode === "q-raw" ? q.vec : project(q.vec, npc, true);
        const out: Scored = [];
        docs.forEach((v, i) => q.allowed(i) && out.push({ i, s: dot(qv, v) }));
        return sortS(out).slice(0, 300);
      };
      const cache = new Map(lab.queries.map((q) => [q.id, list(q)]));
      show(`center pc${npc} ${qmode} dense`, (q) => notesOf(lab, cache.get(q.id)!));
      for (const a of [0.6, 0.65, 0.7])
        show(`center pc${npc} ${qmode} hyb a${a}`, (q) =>
          notesOf(lab, fuseLinear([cache.get(q.id)!, q.kws], [1 - a, a])),
        );
      // mixed: original dense + centred dense, averaged
      show(`center pc${npc} ${qmode} mix-half`, (q) =>
        notesOf(lab, fuseLinear([dense.get(q.id)!, cache.get(q.id)!, q.kws], [(1 - A) / 2, (1 - A) / 2, A])),
      );
    }
}

if (on("smooth")) {
  for (const K of [10, 30])
    for (const p of [1, 4])
      for (const eta of [0.1, 0.2, 0.3])
        show(`smooth K${K} p${p} eta${eta}`, (q) => {
          const f = base(q);
          const top = f.slice(0, K);
          const out = f.map((r, idx) => {
            if (idx >= K) return r;
            let num = 0,
              den = 0;
            for (const o of top) {
              if (o.i === r.i || lab.chunks[o.i].path === lab.chunks[r.i].path) continue;
              const w = Math.max(0, dot(lab.chunks[r.i].vec, lab.chunks[o.i].vec)) ** p;
              num += w * o.s;
              den += w;
            }
            return { i: r.i, s: (1 - eta) * r.s + eta * (den ? num / den : 0) };
          });
          return notesOf(lab, sortS(out));
        });
}
