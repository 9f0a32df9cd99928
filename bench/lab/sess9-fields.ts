// BM25 column weights (title, aliases, section, body) through the search's own code (`evaluate`):
// keyword and hybrid nDCG@10, overall and per kind, for each weight set in GRID. Not shipped.
// GRID='[[4,4,2,1],[2,2,1,1]]' npx tsx bench/lab/sess9-fields.ts ../shared/bench/til/questions.jsonl /tmp/til
import { BM25_WEIGHTS } from "../../src/store/index.js";
import { gridEval } from "./grid-eval.js";

const [target, vault] = process.argv.slice(2);
const grid: [number, number, number, number][] = JSON.parse(process.env.GRID ?? "[[4,4,2,1]]");
await gridEval(target, vault, grid, (w) => {
  Object.assign(BM25_WEIGHTS, { title: w[0], aliases: w[1], section: w[2], body: w[3] });
  return `w ${w.join("/")}`;
});
