// Backlink text's weight through the search's own code (`evaluate`): keyword and hybrid nDCG@10,
// overall and per kind, at each weight in GRID. Not shipped.
// npx tsx bench/lab/sess9-blw.ts ../shared/bench/til/questions.jsonl /tmp/til
import path from "node:path";
import { evaluate, prepareBeir, readKnownAnswers } from "../../src/search/eval.js";
import { SEARCH_DEFAULTS } from "../../src/search/types.js";
import { SqliteStore } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [target, vault] = process.argv.slice(2);
const beir = !target.endsWith(".jsonl");
const b = beir ? prepareBeir(target) : undefined;
const qrels = b ? b.qrels : readKnownAnswers(target);
const store = SqliteStore.open(path.join(b ? b.vault : vault, ".vault-rag", "index.db"), { readonly: true });
const embedder = useLiteEmbedder();
const grid: number[] = JSON.parse(process.env.GRID ?? "[0,0.1,0.2,0.3,0.5]");
for (const w of grid) {
  (SEARCH_DEFAULTS as { backlinks: number }).backlinks = w;
  const res = await evaluate({ store, embedder }, qrels, [
    { label: "keyword", mode: "keyword" },
    { label: "hybrid", mode: "hybrid" },
  ]);
  for (const r of res)
    console.log(
      `w ${w} ${r.setting.label.padEnd(8)} ${r.metrics.ndcg10.toFixed(4)} ` +
        Object.entries(r.byKind)
          .map(([k, m]) => `${k}:${m.ndcg10.toFixed(3)}`)
          .join(" "),
    );
}
await store.close();
