// RM3-style feedback from the hybrid first pass, gated by keyword coverage.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms, SqliteStore, STOPWORDS } from "../../src/store/index.js";
import { keywordCoverage } from "../../src/search/expand.js";
import { phraseQuery } from "../../src/store/sqlite/fts-query.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const store = SqliteStore.open(lab.db.name, { readonly: true });
const N = lab.chunks.length;
const cov = new Map<string, number>();
for (const q of lab.queries)
  cov.set(
    q.id,
    (await keywordCoverage(store, q.text, q.kw[0] ? { ...lab.chunks[q.kw[0].i], distance: 0 } : undefined)).coverage,
  );
const df = new Map<string, number>();
const toks = lab.chunks.map((c) => `${c.title} ${c.text}`.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []);
for (const t of toks) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
const stmt = lab.db.prepare(
  "SELECT rowid AS r, -bm25(fts, 4, 4, 2, 1) AS s FROM fts WHERE fts MATCH ? ORDER BY s DESC LIMIT 3000",
);
function fts(q: (typeof lab.queries)[number], terms: string[]): Scored {
  if (!terms.length) return [];
  const out: Scored = [];
  for (const r of stmt.all(phraseQuery(terms)) as { r: number; s: number }[]) {
    const i = lab.byRow.get(r.r)!;
    if (q.allowed(i)) out.push({ i, s: r.s });
  }
  return out.slice(0, 300);
}
const grid = JSON.parse(process.env.GRID ?? "[[5,10,0.5,1]]");
for (const [F, T, mu, gate] of grid) {
  const r = evaluateRun(lab, (q) => {
    const first = fuseLinear([denseList(lab, q), q.kwx], [0.35, 0.65]);
    const w = mu * (gate ? 1 - cov.get(q.id)! : 1);
    if (w <= 0) return notesOf(lab, first);
    const qset = new Set(queryTerms(q.text));
    const fb = first.slice(0, F);
    const weight = new Map<string, number>();
    const tot = fb.reduce((a, b) => a + b.s, 0) || 1;
    for (const d of fb) {
      const t = toks[d.i];
      const tf = new Map<string, number>();
      for (const x of t) tf.set(x, (tf.get(x) ?? 0) + 1);
      for (const [x, n] of tf) {
        if (STOPWORDS.has(x) || qset.has(x)) continue;
        const idf = Math.log(N / (df.get(x) ?? 1));
        weight.set(x, (weight.get(x) ?? 0) + (n / t.length) * (d.s / tot) * idf);
      }
    }
    const terms = [...weight]
      .sort((a, b) => b[1] - a[1])
      .slice(0, T)
      .map(([x]) => x);
    const m = new Map<number, number>();
    for (const x of q.kwx) m.set(x.i, x.s);
    for (const x of fts(q, terms)) m.set(x.i, (m.get(x.i) ?? 0) + w * x.s);
    const kw = [...m]
      .map(([i, s]) => ({ i, s }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 300);
    return notesOf(lab, fuseLinear([denseList(lab, q), kw], [0.35, 0.65]));
  });
  console.log(name, JSON.stringify([F, T, mu, gate]), fmt(r));
}
