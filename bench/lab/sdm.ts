// Sequential dependence: adjacent pairs of the question's terms as phrases and as NEAR windows.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const stmt = lab.db.prepare(
  "SELECT rowid AS r, -bm25(fts, 4, 4, 2, 1) AS s FROM fts WHERE fts MATCH ? ORDER BY s DESC LIMIT 3000",
);
const cache = new Map<string, { r: number; s: number }[]>();
function fts(q: (typeof lab.queries)[number], match: string): Scored {
  if (!match) return [];
  let rows = cache.get(match);
  if (!rows) cache.set(match, (rows = stmt.all(match) as { r: number; s: number }[]));
  const out: Scored = [];
  for (const r of rows) {
    const i = lab.byRow.get(r.r)!;
    if (q.allowed(i)) out.push({ i, s: r.s });
  }
  return out.slice(0, 300);
}
const SPAN = Number(process.env.SPAN ?? 1);
const pairs = (q: string) => {
  const t = queryTerms(q).filter((x) => !x.includes(" "));
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < t.length; i++) for (let j = i + 1; j <= i + SPAN && j < t.length; j++) out.push([t[i], t[j]]);
  return out;
};
const grid: [number, number, number][] = JSON.parse(process.env.GRID ?? "[[0.1,0.05,8]]");
for (const [m1, m2, win] of grid) {
  const run = (a: number) =>
    evaluateRun(lab, (q) => {
      const ps = pairs(q.text);
      const m = new Map<number, number>();
      for (const x of q.kwx) m.set(x.i, x.s);
      if (ps.length) {
        if (m1)
          for (const x of fts(q, ps.map(([a, b]) => `"${a} ${b}"`).join(" OR ")))
            m.set(x.i, (m.get(x.i) ?? 0) + m1 * x.s);
        if (m2)
          for (const x of fts(q, ps.map(([a, b]) => `NEAR("${a}" "${b}", ${win})`).join(" OR ")))
            m.set(x.i, (m.get(x.i) ?? 0) + m2 * x.s);
      }
      const kw = [...m]
        .map(([i, s]) => ({ i, s }))
        .sort((x, y) => y.s - x.s || x.i - y.i)
        .slice(0, 300);
      return notesOf(lab, a >= 1 ? kw : fuseLinear([denseList(lab, q), kw], [1 - a, a]));
    });
  console.log(name, JSON.stringify([m1, m2, win]), "kw", fmt(run(1)), "\n     hybrid", fmt(run(0.65)));
}
