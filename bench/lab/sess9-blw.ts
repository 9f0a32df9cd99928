// Backlink text's weight through the search's own code (`evaluate`): keyword and hybrid nDCG@10,
// overall and per kind, at each weight in GRID. Not shipped.
// npx tsx bench/lab/sess9-blw.ts ../shared/bench/til/questions.jsonl /tmp/til
import { SEARCH_DEFAULTS } from "../../src/search/types.js";
import { gridEval } from "./grid-eval.js";

const [target, vault] = process.argv.slice(2);
const grid: number[] = JSON.parse(process.env.GRID ?? "[0,0.1,0.2,0.3,0.5]");
await gridEval(target, vault, grid, (w) => {
  (SEARCH_DEFAULTS as { backlinks: number }).backlinks = w;
  return `w ${w}`;
});
