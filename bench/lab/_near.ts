import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms } from "../../src/store/index.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const stmt = lab.db.prepare(
  "SELECT rowid AS r, -bm25(fts, 4, 4, 2, 1) AS s FROM fts WHERE fts MATCH ? ORDER BY s DESC LIMIT 3000",
);
const cache = new Map<string, { r: number; s: number }[]>();
const kwOf = (q: (typeof lab.queries)[number], ww: number, win: number) => {
  const t = queryTerms(q.text).filter((x) => !x.includes(" "));
  const m = new Map<number, number>();
  for (const x of q.kwx) m.set(x.i, x.s);
  if (t.length > 1 && ww) {
    const match = t
      .slice(1)
      .map((b, i) => `NEAR("${t[i]}" "${b}", ${win})`)
      .join(" OR ");
    let rows = cache.get(match);
    if (!rows) cache.set(match, (rows = stmt.all(match) as { r: number; s: number }[]));
    for (const r of rows) {
      const i = lab.byRow.get(r.r)!;
      if (q.allowed(i)) m.set(i, (m.get(i) ?? 0) + ww * r.s);
    }
  }
  return [...m]
    .map(([i, s]) => ({ i, s }))
    .sort((x, y) => y.s - x.s || x.i - y.i)
    .slice(0, 300) as Scored;
};
for (const ww of [0, 0.15, 0.25, 0.35])
  for (const a of [0.6, 0.65, 0.7]) {
    console.log(
      name,
      "w",
      ww,
      "a",
      a,
      fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), kwOf(q, ww, 4)], [1 - a, a])))),
    );
  }
console.log(name, "kw w .25", fmt(evaluateRun(lab, (q) => notesOf(lab, kwOf(q, 0.25, 4)))));
