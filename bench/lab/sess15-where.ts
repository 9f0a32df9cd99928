// Where the first answer note ranks (note level) in the dense list, the keyword list and the fusion, per question below nDCG 1.
import { loadExact } from "./sess15-exact.js";
import { diversify } from "../../src/search/rank.js";
import { scoreRanking } from "../../src/search/eval.js";
const [target, vault] = process.argv.slice(2);
const X = await loadExact(target, vault);
const rank = (paths: string[], rel: Set<string>) => {
  const seen: string[] = [];
  for (const p of paths) if (!seen.includes(p)) seen.push(p);
  const i = seen.findIndex((p) => rel.has(p));
  return i < 0 ? "-" : String(i + 1);
};
for (const q of X.qs) {
  const h = diversify(X.baseHits(q), 100, 1).map((x) => x.path);
  const s = scoreRanking(h, q.relevant).ndcg10;
  if (s >= 0.999) continue;
  console.log(
    q.kind.padEnd(10),
    s.toFixed(2),
    "d",
    rank(
      q.dense.map((r) => r.meta.path),
      q.relevant,
    ).padStart(3),
    "k",
    rank(
      q.keyword.map((r) => r.meta.path),
      q.relevant,
    ).padStart(3),
    "h",
    rank(h, q.relevant).padStart(3),
    q.text.slice(0, 90),
  );
}
