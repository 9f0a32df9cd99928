// The synonyms' weight beside near pairs: the search's keyword list (near pairs at `PROX`, synonyms
// at `f ×` their planned weight) fused with the dense list, for a few f.
import { loadLab, denseList } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { planExpansion } from "../../src/search/expand.js";
import { SqliteStore } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const store = SqliteStore.open(lab.db.name, { readonly: true });
const idToIndex = new Map(lab.chunks.map((c, i) => [c.id, i]));
const prox = Number(process.env.PROX ?? 0.2);
const factors: number[] = JSON.parse(process.env.F ?? "[0.6,0.8,1,1.2,1.5]");
const alphas: number[] = JSON.parse(process.env.A ?? "[0.65]");
const lists = new Map<string, { i: number; s: number }[]>();
for (const f of factors) {
  for (const q of lab.queries) {
    const plain = await store.queryKeyword(q.text, 300, { where: q.where }, { proximity: prox });
    const plan = await planExpansion(store, q.text, plain[0]);
    const recs =
      plan && f > 0
        ? await store.queryKeyword(
            q.text,
            300,
            { where: q.where },
            { proximity: prox, expansion: { ...plan, weight: plan.weight * f } },
          )
        : plain;
    lists.set(
      `${f}:${q.id}`,
      recs.map((r) => ({ i: idToIndex.get(r.id)!, s: -r.distance })),
    );
  }
  for (const a of alphas)
    console.log(
      name,
      "prox",
      prox,
      "f",
      f,
      "a",
      a,
      fmt(
        evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), lists.get(`${f}:${q.id}`)!], [1 - a, a]))),
      ),
    );
}
await store.close();
