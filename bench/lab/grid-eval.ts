// Runs `vault-rag eval`'s own `evaluate` (keyword and hybrid at the defaults) once per setting of a
// grid, after `apply` sets it, and prints nDCG@10 overall and per kind. Not shipped.
import path from "node:path";
import { evaluate, prepareBeir, readKnownAnswers } from "../../src/search/eval.js";
import { SqliteStore } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

/** `target`: a known-answer .jsonl over `vault`, or a BEIR folder (its cached index). */
export async function gridEval<T>(target: string, vault: string, grid: T[], apply: (setting: T) => string) {
  const b = target.endsWith(".jsonl") ? undefined : prepareBeir(target);
  const qrels = b ? b.qrels : readKnownAnswers(target);
  const store = SqliteStore.open(path.join(b ? b.vault : vault, ".vault-rag", "index.db"), { readonly: true });
  const embedder = useLiteEmbedder();
  for (const setting of grid) {
    const label = apply(setting);
    const res = await evaluate({ store, embedder }, qrels, [
      { label: "keyword", mode: "keyword" },
      { label: "hybrid", mode: "hybrid" },
    ]);
    for (const r of res)
      console.log(
        `${label} ${r.setting.label.padEnd(8)} ${r.metrics.ndcg10.toFixed(4)} ` +
          Object.entries(r.byKind)
            .map(([k, m]) => `${k}:${m.ndcg10.toFixed(3)}`)
            .join(" "),
      );
  }
  await store.close();
}
