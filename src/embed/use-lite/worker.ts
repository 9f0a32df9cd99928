/**
 * Worker thread for the bundled model: loads it once, then embeds batches of token ids sent by
 * the pool, transferring the vectors back without copying.
 */
import { parentPort } from "node:worker_threads";
import { loadUseLite } from "./model.js";

interface Job {
  id: number;
  tokenIds: number[][];
}

parentPort!.on("message", async (job: Job) => {
  try {
    const rt = await loadUseLite();
    const vectors = await rt.run(job.tokenIds);
    const flat = new Float32Array(vectors.length * (vectors[0]?.length ?? 0));
    vectors.forEach((v, i) => flat.set(v, i * v.length));
    parentPort!.postMessage({ id: job.id, flat, count: vectors.length }, [flat.buffer]);
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: (err as Error).message });
  }
});
