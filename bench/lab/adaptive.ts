// α from the keyword evidence: lower the BM25 weight when the best keyword hit holds few of the question's terms.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { SqliteStore } from "../../src/store/index.js";
import { keywordCoverage } from "../../src/search/expand.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const store = SqliteStore.open(lab.db.name, { readonly: true });
const cov = new Map<string, number>();
for (const q of lab.queries)
  cov.set(
    q.id,
    (await keywordCoverage(store, q.text, q.kw[0] ? { ...lab.chunks[q.kw[0].i], distance: 0 } : undefined)).coverage,
  );
for (const a0 of [0.65, 0.7, 0.75])
  for (const g of [0, 0.1, 0.2, 0.3]) {
    const r = evaluateRun(lab, (q) => {
      const a = a0 - g * (1 - cov.get(q.id)!);
      return notesOf(lab, fuseLinear([denseList(lab, q), q.kwx], [1 - a, a]));
    });
    console.log(name, "α0", a0, "γ", g, fmt(r));
  }
