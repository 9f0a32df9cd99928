// A third keyword scorer over the hybrid's candidates (dense ∪ keyword lists), fused after the
// default fusion at weight W (min-max over the candidates), from the index's own tokens (FTS5's
// column weights 4/4/2/1, porter stemmer; bm25-index.ts): query likelihood with Dirichlet smoothing
// (MODE=ql, P=μ), DPH (MODE=dph), BM25+ (MODE=bm25p, P=δ). MODE=folder: a bonus W × (1) for chunks
// whose top folder is named by a word of the question (stemmed; "claude-code" as "claude code").
// GRID='[[W, P]]'
import { loadExact, type XQ } from "./sess15-exact.js";
import { memoryBm25 } from "./bm25-index.js";
import { namedFirst } from "../../src/search/rank.js";
import { fuse } from "../../src/search/search.js";
import { queryTerms } from "../../src/store/index.js";
import type { Lab } from "./load.js";
import type { Hit } from "../../src/search/types.js";

const [target, vault] = process.argv.slice(2);
const MODE = process.env.MODE ?? "ql";
const X = await loadExact(target, vault);
console.log("baseline", X.fmt(await X.evalRun((q) => X.baseHits(q))));
const rows = X.db.prepare("SELECT rowid AS r, id, top_folder AS f FROM chunks ORDER BY rowid").all() as {
  r: number;
  id: string;
  f: string;
}[];
const byRow = new Map(rows.map((r, i) => [r.r, i]));
const idx = new Map(rows.map((r, i) => [r.id, i]));
const mem = memoryBm25({ db: X.db, byRow, chunks: rows } as unknown as Lab);
// weighted lengths and collection frequencies
const wlen = new Float64Array(rows.length);
const cf = new Map<string, number>();
let C = 0;
for (const [t, m] of mem.post) {
  let s = 0;
  for (const [i, tf] of m) {
    wlen[i] += tf;
    s += tf;
  }
  cf.set(t, s);
  C += s;
}
const wavg = C / rows.length;
const N = rows.length;
const stemCache = new Map<string, string[]>();
const qstems = (q: XQ) => {
  let s = stemCache.get(q.text);
  if (!s) stemCache.set(q.text, (s = mem.stem(queryTerms(q.text).join(" "))));
  return s;
};
const LOG2 = Math.log(2);
function score(q: XQ, i: number, P: number): number {
  const terms = qstems(q);
  const dl = wlen[i];
  let s = 0;
  for (const t of terms) {
    const m = mem.post.get(t);
    const tf = m?.get(i) ?? 0;
    const F = cf.get(t) ?? 0;
    if (!F) continue;
    if (MODE === "ql") s += Math.log(1 + tf / ((P * F) / C)) + Math.log(P / (dl + P));
    else if (MODE === "dph") {
      if (!tf || tf >= dl) continue;
      const f = tf / dl;
      const norm = ((1 - f) * (1 - f)) / (tf + 1);
      s +=
        norm *
        (tf * (Math.log(((tf * wavg) / dl) * (N / F)) / LOG2) + 0.5 * (Math.log(2 * Math.PI * tf * (1 - f)) / LOG2));
    } else if (MODE === "bm25p") {
      if (!tf) continue;
      const df = m!.size;
      const idf = Math.log((N + 1) / df);
      const k1 = 1.2,
        b = 0.75;
      s += idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / wavg)) + P);
    }
  }
  return s;
}
const folderStem = new Map<string, string>();
for (const r of rows)
  if (r.f && !folderStem.has(r.f)) folderStem.set(r.f, mem.stem(r.f.replace(/[-_]/g, " ")).join(" "));
function named(q: XQ): Set<string> {
  const st = " " + mem.stem(q.text.toLowerCase()).join(" ") + " ";
  const out = new Set<string>();
  for (const [f, s] of folderStem) if (s && st.includes(" " + s + " ")) out.add(f);
  return out;
}
if (MODE === "folder") {
  let n = 0;
  for (const q of X.qs) if (named(q).size) n++;
  console.log("questions naming a folder:", n, "of", X.qs.length);
}
const grid: number[][] = JSON.parse(process.env.GRID ?? "[[0.1,1000]]");
for (const [W, P] of grid) {
  const r = await X.evalRun((q) => {
    // REPL=1: the keyword list's weight α lowered by W, so the third scorer takes part of BM25's share
    const hits: Hit[] = fuse(process.env.REPL ? { ...X.o, alpha: X.o.alpha - W } : X.o, q.dense, q.keyword);
    let add: Map<string, number>;
    if (MODE === "folder") {
      const fs = named(q);
      add = new Map(hits.filter((h) => fs.has(rows[idx.get(h.id)!].f)).map((h) => [h.id, W]));
    } else {
      const sc = hits.map((h) => score(q, idx.get(h.id)!, P));
      let lo = Infinity,
        hi = -Infinity;
      for (const s of sc) {
        lo = Math.min(lo, s);
        hi = Math.max(hi, s);
      }
      add = new Map(hits.map((h, j) => [h.id, hi > lo ? (W * (sc[j] - lo)) / (hi - lo) : 0]));
    }
    const out = hits.map((h) => {
      const s = h.score + (add.get(h.id) ?? 0);
      return { ...h, score: s, distance: 1 - s };
    });
    out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return namedFirst(out, q.text);
  });
  console.log(MODE, JSON.stringify([W, P]), X.fmt(r));
}
