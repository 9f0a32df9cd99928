/**
 * Times the keyword phase of `indexVault` on its own: indexes a vault (from nothing, when the index
 * file does not exist) with the stand-in embedder, stops the run once the keyword phase is
 * committed, and prints one JSON line: the phase's wall and CPU seconds (user + system, all
 * threads), the 1-minute load average, the notes stored, the batches they took and the peak RSS.
 *
 * `node --import tsx bench/keyword-phase.ts <vault> <index.db>` (`BATCH_NOTES=n`: the run's `batchNotes`;
 * `LANGUAGE_THREAD_PASSAGES=n`: its `languageThreadPassages`, `Infinity` for no language thread)
 */
import fs from "node:fs";
import os from "node:os";
import { indexVault } from "../dist/indexing/index.js";
import { standInEmbedder } from "./stand-in.js";

const [vault, db] = process.argv.slice(2);
if (!vault || !db) throw new Error("usage: node --import tsx bench/keyword-phase.ts <vault> <index.db>");
/** The process's read and write system calls and bytes (Linux's /proc/self/io), or nothing elsewhere. */
function io(): Record<string, number> {
  try {
    const lines = fs.readFileSync("/proc/self/io", "utf8").trim().split("\n");
    return Object.fromEntries(lines.map((l) => l.split(": ")).map(([k, v]) => [k, Number(v)]));
  } catch {
    return {};
  }
}
const stop = new AbortController();
let atKeyword: Record<string, number> = {};
let keyword: { seconds: number; cpuSeconds: number; userSeconds: number; notes: number; batches: number } | undefined;
let batches = 0;
const batchNotes = process.env.BATCH_NOTES ? Number(process.env.BATCH_NOTES) : undefined;
const languageThreadPassages = process.env.LANGUAGE_THREAD_PASSAGES
  ? Number(process.env.LANGUAGE_THREAD_PASSAGES)
  : undefined;
const t = performance.now();
const c = process.cpuUsage();
try {
  await indexVault(vault, db, standInEmbedder(), {
    signal: stop.signal,
    batchNotes,
    languageThreadPassages,
    onProgress: (phase, done) => {
      if (phase === "index") batches++;
      if (phase !== "keyword") return;
      const cpu = process.cpuUsage(c);
      const seconds = (performance.now() - t) / 1000;
      keyword = {
        seconds,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        userSeconds: cpu.user / 1e6,
        notes: done,
        batches,
      };
      atKeyword = io(); // before the store closes (and checkpoints)
      stop.abort(); // the dense phase stops at its first batch
    },
  });
} catch (err) {
  if ((err as { code?: string }).code !== "stopped") throw err;
}
if (!keyword) throw new Error("the keyword phase did not end");
const mb = (n?: number) => (n === undefined ? undefined : Math.round(n / 1e6));
// maxRSS in kilobytes: the peak of the whole run, which the dense phase's first batch barely adds to
console.log(
  JSON.stringify({
    ...keyword,
    load: os.loadavg()[0],
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    io: { syscr: atKeyword.syscr, syscw: atKeyword.syscw, readMb: mb(atKeyword.rchar), writtenMb: mb(atKeyword.wchar) },
  }),
);
