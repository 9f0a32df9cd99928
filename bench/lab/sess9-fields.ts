// BM25 column weights (title, aliases, section, body) through the search's own code (`evaluate`):
// keyword and hybrid nDCG@10, overall and per kind, for each weight set in GRID. Not shipped.
// GRID='[[4,4,2,1],[2,2,1,1]]' npx tsx bench/lab/sess9-fields.ts ../shared/bench/til/questions.jsonl /tmp/til
import path from "node:path";
import { evaluate, prepareBeir, readKnownAnswers } from "../../src/search/eval.js";
import { BM25_WEIGHTS, SqliteStore } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [target, vault] = process.argv.slice(2);
const beir = !target.endsWith(".jsonl");
const b = beir ? prepareBeir(target) : undefined;
const qrels = b ? b.qrels : readKnownAnswers(target);
const store = SqliteStore.open(path.join(b ? b.vault : vault, ".vault-rag", "index.db"), { readonly: true });
const embedder = useLiteEmbedder();
const grid: [number, number, number, number][] = JSON.parse(process.env.GRID ?? "[[4,4,2,1]]");
for (const w of grid) {
  Object.assign(BM25_WEIGHTS, { title: w[0], aliases: w[1], section: w[2], body: w[3] });
  const res = await evaluate({ store, embedder }, qrels, [
    { label: "keyword", mode: "keyword" },
    { label: "hybrid", mode: "hybrid" },
  ]);
  for (const r of res)
    console.log(
      `w ${w.join("/")} ${r.setting.label.padEnd(8)} ${r.metrics.ndcg10.toFixed(4)} ` +
        Object.entries(r.byKind)
          .map(([k, m]) => `${k}:${m.ndcg10.toFixed(3)}`)
          .join(" "),
    );
}
await store.close();
