// The BM25 weight α around the default, on the search's own lists (synonyms and near pairs).
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const alphas: number[] = JSON.parse(process.env.A ?? "[0.6,0.62,0.65,0.68,0.7]");
console.log(name, "keyword", fmt(evaluateRun(lab, (q) => notesOf(lab, q.kws))));
for (const a of alphas)
  console.log(
    name,
    "α",
    a,
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kws], [1 - a, a])))),
  );
