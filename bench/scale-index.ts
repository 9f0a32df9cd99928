/**
 * The indexing process of the scale benchmark (bench/scale.ts): indexes a vault with the stand-in
 * embedder, through the same `indexVault` the CLI's `index` runs, and prints one JSON line with the
 * run's summary, its wall time and the process's peak RSS.
 *
 * `node --import tsx bench/scale-index.ts <vault> <index.db>`
 */
import { indexVault } from "../dist/indexing/index.js";
import { standInEmbedder } from "./stand-in.js";

const [vault, db] = process.argv.slice(2);
const t = performance.now();
const summary = await indexVault(vault, db, standInEmbedder());
const seconds = (performance.now() - t) / 1000;
const use = process.resourceUsage(); // maxRSS in kilobytes, CPU times in microseconds
console.log(
  JSON.stringify({
    summary,
    seconds,
    peakRssMb: use.maxRSS / 1024,
    cpuSeconds: (use.userCPUTime + use.systemCPUTime) / 1e6,
  }),
);
