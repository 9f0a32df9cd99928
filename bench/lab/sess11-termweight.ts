// Query term weights from the model: a term's weight is how far the question's vector moves when the
// term is left out (leave-one-out), relative to the question's mean, to the power G. BM25 in memory
// as bm25.ts (FTS5's column weights, k1 1.2, b 0.75); G 0 is that plain list.
import fs from "node:fs";
import { memoryBm25 } from "./bm25-index.js";
import { loadLab, denseList, dot } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf, type Scored } from "./score.js";
import { queryTerms } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const { post, len, N, avg, stem } = memoryBm25(lab);
const embedder = useLiteEmbedder();
const cacheFile = `/tmp/lab11/loo-${name}.json`;
const cache: Record<string, number[]> = fs.existsSync(cacheFile) ? JSON.parse(fs.readFileSync(cacheFile, "utf8")) : {};
async function vec(text: string): Promise<Float32Array> {
  if (!cache[text]) cache[text] = Array.from(await embedder.embedQuery(text));
  return Float32Array.from(cache[text]);
}
// per query: [stem, drop]
const termInfo = new Map<string, { stem: string; drop: number }[]>();
for (const q of lab.queries) {
  const terms = [...new Set(queryTerms(q.text))].filter((t) => !t.includes(" "));
  const out: { stem: string; drop: number }[] = [];
  for (const t of terms) {
    const s = stem(t);
    if (s.length !== 1) continue;
    const re = new RegExp(`(^|[^\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=$|[^\\p{L}\\p{N}])`, "giu");
    const reduced = q.text.replace(re, "$1").replace(/\s+/g, " ").trim();
    const v = await vec(reduced || ".");
    out.push({ stem: s[0], drop: Math.max(1e-4, 1 - dot(q.vec, v)) });
  }
  // same stem twice: keep the larger drop
  const by = new Map<string, number>();
  for (const o of out) by.set(o.stem, Math.max(by.get(o.stem) ?? 0, o.drop));
  termInfo.set(
    q.id,
    [...by].map(([stem, drop]) => ({ stem, drop })),
  );
}
fs.writeFileSync(cacheFile, JSON.stringify(cache));
function bm25(q: (typeof lab.queries)[number], g: number, lo: number, hi: number): Scored {
  const info = termInfo.get(q.id)!;
  const mean = info.reduce((a, b) => a + b.drop, 0) / (info.length || 1);
  const m = new Map<number, number>();
  for (const { stem: t, drop } of info) {
    const p = post.get(t);
    if (!p) continue;
    const w = Math.min(hi, Math.max(lo, Math.pow(drop / mean, g)));
    const n = p.size;
    const idf = Math.max(1e-6, Math.log((N - n + 0.5) / (n + 0.5)));
    for (const [i, tf] of p) {
      if (!q.allowed(i)) continue;
      const s = (w * idf * (tf * 2.2)) / (tf + 1.2 * (0.25 + (0.75 * len[i]) / avg));
      m.set(i, (m.get(i) ?? 0) + s);
    }
  }
  return [...m]
    .map(([i, s]) => ({ i, s }))
    .sort((x, y) => y.s - x.s || x.i - y.i)
    .slice(0, 300);
}
const grid: [number, number, number][] = JSON.parse(
  process.env.GRID ?? "[[0,1,1],[0.5,0.2,5],[1,0.2,5],[1.5,0.2,5],[2,0.1,10],[1,0.5,2]]",
);
for (const [g, lo, hi] of grid) {
  const kw = evaluateRun(lab, (q) => notesOf(lab, bm25(q, g, lo, hi)));
  const hy = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), bm25(q, g, lo, hi)], [0.35, 0.65])));
  console.log(name, `G ${g} [${lo},${hi}]`, "kw", fmt(kw), "\n   hybrid", fmt(hy));
}
