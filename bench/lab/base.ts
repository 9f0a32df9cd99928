import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
console.log(lab.name, lab.chunks.length, "chunks", lab.queries.length, "queries");
const kw = evaluateRun(lab, (q) => notesOf(lab, q.kw));
console.log("keyword+synonyms", fmt(evaluateRun(lab, (q) => notesOf(lab, q.kwx))));
const de = evaluateRun(lab, (q) => notesOf(lab, denseList(lab, q)));
console.log("keyword", fmt(kw));
console.log("dense  ", fmt(de));
for (const a of [0.5, 0.6, 0.65, 0.7]) {
  const h = evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kw], [1 - a, a])));
  console.log("hybrid", a, fmt(h));
  console.log(
    "hybrid+synonyms",
    a,
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), q.kwx], [1 - a, a])))),
  );
}
