// The fusion depth (`pool`) through the search's own code (`evaluate`): min-max fusion scales each
// list by its worst candidate too, so the depth is part of the ranking. Not shipped.
// GRID='[300,500,1000]' npx tsx bench/lab/sess12-pool.ts ../shared/bench/til/questions.jsonl /tmp/til
import { SEARCH_DEFAULTS } from "../../src/search/types.js";
import { gridEval } from "./grid-eval.js";

const [target, vault] = process.argv.slice(2);
const grid: number[] = JSON.parse(process.env.GRID ?? "[300,500,1000]");
await gridEval(target, vault, grid, (p) => {
  (SEARCH_DEFAULTS as { pool: number }).pool = p;
  return `pool ${p}`;
});
