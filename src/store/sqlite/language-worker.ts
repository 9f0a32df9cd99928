/**
 * Worker thread for language-thread.ts: tells the keyword index's language of a batch's passages
 * with the calling thread's own function (`passageLanguage`, the same detector), claiming them a
 * few at a time from the counter both threads share, and writes each into the shared bytes.
 */
import { parentPort } from "node:worker_threads";
import { loadLanguageDetector } from "../language.js";
import { passageLanguage } from "./fts-text.js";
import { CLAIM, encodeLanguage, type LanguageJob } from "./language-thread.js";

const ready = loadLanguageDetector();

parentPort!.on("message", (job: LanguageJob) => {
  void ready.then(() => {
    const { joined, starts, shared } = job;
    const n = (starts.length - 1) / 3;
    const part = (k: number) => joined.slice(starts[k], starts[k + 1]);
    const next = new Int32Array(shared, 0, 1);
    const told = new Uint8Array(shared, 4, n);
    for (let i = Atomics.add(next, 0, CLAIM); i < n; i = Atomics.add(next, 0, CLAIM))
      for (let j = i; j < Math.min(n, i + CLAIM); j++)
        Atomics.store(told, j, encodeLanguage(passageLanguage(part(3 * j), part(3 * j + 1), part(3 * j + 2))));
  });
});

void ready.then(() => parentPort!.postMessage({ ready: true }));
