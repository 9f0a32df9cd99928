import { loadLab, denseList } from "./load.js";
import { fuseLinear, notesOf } from "./score.js";
import { scoreRanking } from "../../src/search/eval.js";
const [name, target, vault, kind] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const rank = (l: string[], rel: Set<string>) => {
  const i = l.findIndex((p) => rel.has(p));
  return i < 0 ? "-" : String(i + 1);
};
for (const q of lab.queries) {
  if (kind && q.kind !== kind) continue;
  const k = notesOf(lab, q.kws),
    d = notesOf(lab, denseList(lab, q)),
    h = notesOf(lab, fuseLinear([denseList(lab, q), q.kws], [0.35, 0.65]));
  const s = scoreRanking(h, q.relevant).ndcg10;
  console.log(
    `${s.toFixed(2)} k${rank(k, q.relevant)} d${rank(d, q.relevant)} h${rank(h, q.relevant)} | ${q.text}\n     want ${[...q.relevant].join(", ")}\n     got  ${h.slice(0, 3).join(", ")}`,
  );
}
