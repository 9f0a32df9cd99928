// Helper-session experiments (not shipped): note aggregation, max-over-windows dense, gated vector
// PRF, dense-only query-distribution normalisation, and a coordination-level bonus.
// IDEA=all|agg|win|prf|dnorm|coord   (run from /work/main)
import { loadLab, dot, unit, denseList, type LabQuery } from "./load.js";
import { baseline, evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const IDEA = process.env.IDEA ?? "all";
const lab = await loadLab(name, target, vault);
const A = 0.65;
const { dense, base, show, sortS } = baseline(lab, A);
const on = (k: string) => IDEA === "all" || IDEA.split(",").includes(k);

// 1. note-level aggregation -------------------------------------------------------------------
if (on("agg")) {
  const noteRank = (l: Scored, lam: number): string[] => {
    const by = new Map<string, number[]>();
    for (const r of l) {
      const p = lab.chunks[r.i].path;
      const a = by.get(p);
      if (a) a.push(r.s);
      else by.set(p, [r.s]);
    }
    return [...by]
      .map(([p, s]) => ({ p, s: s[0] + lam * (s[1] ?? 0) })) // lists are sorted: s[0] best
      .sort((a, b) => b.s - a.s || (a.p < b.p ? -1 : 1))
      .map((x) => x.p)
      .slice(0, 100);
  };
  for (const lam of [0.05, 0.1, 0.2, 0.3]) show(`agg best+${lam}*second`, (q) => noteRank(base(q), lam));
  // note-level BM25 (sum / max over the note's chunks in the keyword list), fused with small weight
  for (const mode of ["sum", "max"] as const)
    for (const w of [0.05, 0.1, 0.2])
      show(`agg noteBM25 ${mode} w${w}`, (q) => {
        const ns = new Map<string, number>();
        for (const r of q.kws) {
          const p = lab.chunks[r.i].path;
          ns.set(p, mode === "sum" ? (ns.get(p) ?? 0) + r.s : Math.max(ns.get(p) ?? -Infinity, r.s));
        }
        const vals = [...ns.values()];
        const mx = Math.max(...vals),
          mn = Math.min(...vals);
        const f = base(q).map((r) => {
          const v = ns.get(lab.chunks[r.i].path);
          return { i: r.i, s: r.s + (v === undefined ? 0 : w * (mx > mn ? (v - mn) / (mx - mn) : 1)) };
        });
        return notesOf(lab, sortS(f));
      });
}

// 2. max over windows -------------------------------------------------------------------------
if (on("win")) {
  const winList = (q: LabQuery, mu: number, topN: number, agg: "max" | "top2"): Scored => {
    const restrict = topN > 0 ? new Set(q.kws.slice(0, topN).map((r) => r.i)) : undefined;
    const out: Scored = [];
    lab.chunks.forEach((c, i) => {
      if (!q.allowed(i)) return;
      const pooled = dot(q.vec, c.vec);
      if (restrict && !restrict.has(i)) return void out.push({ i, s: pooled });
      const sims = c.windows.map((w) => dot(q.vec, w)).sort((a, b) => b - a);
      const best = agg === "max" || sims.length < 2 ? sims[0] : (sims[0] + sims[1]) / 2;
      out.push({ i, s: (1 - mu) * pooled + mu * best });
    });
    return sortS(out).slice(0, 300);
  };
  for (const agg of ["max", "top2"] as const)
    for (const topN of [0, 30, 100])
      for (const mu of [0.2, 0.4, 0.6, 1]) {
        if (agg === "top2" && topN !== 0) continue;
        show(`win ${agg} N${topN} mu${mu}`, (q) =>
          notesOf(lab, fuseLinear([winList(q, mu, topN, agg), q.kws], [1 - A, A])),
        );
      }
}

// 3. confidence-gated vector PRF ----------------------------------------------------------------
if (on("prf")) {
  // the finer grid of the note: K='[1]' MARGINS='[0.1,0.15,0.2,0.25,0.3]' BETAS='[0.2,0.3,0.45,0.6,1]'
  const grid = (name: string, fallback: number[]): number[] =>
    JSON.parse(process.env[name] ?? JSON.stringify(fallback));
  for (const k of grid("K", [1, 2]))
    for (const margin of grid("MARGINS", [0, 0.05, 0.1, 0.2]))
      for (const beta of grid("BETAS", [0.3, 0.6])) {
        let fired = 0;
        const r = evaluateRun(lab, (q) => {
          const f = base(q);
          if (f.length < 2 || f[0].s - f[1].s < margin) return notesOf(lab, f);
          fired++;
          const v = new Float32Array(q.vec);
          for (let j = 0; j < k; j++) {
            const cv = lab.chunks[f[j].i].vec;
            for (let d = 0; d < v.length; d++) v[d] += (beta / k) * cv[d];
          }
          const d2 = denseList(lab, q, 300, unit(v));
          return notesOf(lab, fuseLinear([d2, q.kws], [1 - A, A]));
        });
        console.log(name, `prf k${k} margin${margin} beta${beta}`.padEnd(34), fmt(r), "fired", fired);
      }
}

// 4. dense normalised by the query's own distribution ------------------------------------------
if (on("dnorm")) {
  const kwMinMax = (l: Scored) => {
    const mx = l[0]?.s ?? 0,
      mn = l[l.length - 1]?.s ?? 0;
    return l.map((r) => ({ i: r.i, s: mx > mn ? (r.s - mn) / (mx - mn) : 1 }));
  };
  const fuse = (a: Scored, b: Scored, wa: number, wb: number) => {
    const m = new Map<number, number>();
    for (const r of a) m.set(r.i, wa * r.s);
    for (const r of b) m.set(r.i, (m.get(r.i) ?? 0) + wb * r.s);
    return sortS([...m].map(([i, s]) => ({ i, s })));
  };
  for (const mode of ["meanmax", "z3", "z4", "z5", "z6", "meanmaxclip"]) {
    for (const a of [0.6, 0.65, 0.7])
      show(`dnorm ${mode} a${a}`, (q) => {
        const d = dense.get(q.id)!;
        const mean = d.reduce((x, r) => x + r.s, 0) / d.length;
        const sd = Math.sqrt(d.reduce((x, r) => x + (r.s - mean) ** 2, 0) / d.length) || 1;
        const mx = d[0].s;
        const dn = d.map((r) => {
          let s: number;
          if (mode.startsWith("meanmax")) s = mx > mean ? (r.s - mean) / (mx - mean) : 1;
          else s = (r.s - mean) / sd / Number(mode.slice(1));
          if (mode === "meanmaxclip") s = Math.max(0, s);
          return { i: r.i, s };
        });
        return notesOf(lab, fuse(dn, kwMinMax(q.kws), 1 - a, a));
      });
  }
}

// 5. coordination-level bonus: IDF-weighted share of the question's own terms in the chunk ----------
if (on("coord")) {
  const stmt = lab.db.prepare("SELECT rowid AS r FROM fts WHERE fts MATCH ?");
  const N = lab.chunks.length;
  const postings = new Map<string, Set<number>>();
  const post = (t: string) => {
    let s = postings.get(t);
    if (!s) {
      s = new Set<number>();
      try {
        for (const row of stmt.all(`"${t.replace(/"/g, '""')}"`) as { r: number }[]) s.add(lab.byRow.get(row.r)!);
      } catch {
        // a term FTS5 cannot take: no postings
      }
      postings.set(t, s);
    }
    return s;
  };
  const coverage = new Map<string, Map<number, number>>();
  for (const q of lab.queries) {
    const terms = queryTerms(q.text);
    const idf = terms.map((t) => Math.log(1 + N / (1 + post(t).size)));
    const tot = idf.reduce((a, b) => a + b, 0) || 1;
    const cov = new Map<number, number>();
    terms.forEach((t, k) => {
      for (const i of post(t)) cov.set(i, (cov.get(i) ?? 0) + idf[k] / tot);
    });
    coverage.set(q.id, cov);
  }
  for (const mode of ["idf", "idf2"])
    for (const g of [0.02, 0.05, 0.1, 0.15])
      show(`coord ${mode} g${g}`, (q) => {
        const cov = coverage.get(q.id)!;
        const f = base(q).map((r) => {
          const c = cov.get(r.i) ?? 0;
          return { i: r.i, s: r.s + g * (mode === "idf2" ? c * c : c) };
        });
        return notesOf(lab, sortS(f));
      });
}
