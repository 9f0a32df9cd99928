import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault, 3000);
for (const pool of [200, 300, 500, 1000, 3000]) {
  const h = evaluateRun(lab, (q) =>
    notesOf(lab, fuseLinear([denseList(lab, q, pool), q.kw.slice(0, pool)], [0.35, 0.65])),
  );
  console.log("pool", pool, fmt(h));
}
