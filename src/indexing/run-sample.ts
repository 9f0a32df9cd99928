/** The sample of a run's notes that settles its progress estimates. */
import { sampleWork } from "./estimate.js";
import type { Run } from "./indexer.js";

/**
 * Reads a sample of the notes to do beside the first batch, to settle the run's estimates; aborted
 * when the run ends. Runs only when progress is reported.
 *
 * @example
 * ```ts
 * const sampling = sampleRun(run, stop.signal); // later: stop.abort(); await sampling;
 * ```
 */
export function sampleRun(run: Run, signal: AbortSignal): Promise<void> | undefined {
  const { opts, store, cacheFrom, cacheModel } = run;
  return (
    opts.onProgress &&
    sampleWork(run.todo, {
      known: run.known,
      rechunk: !!run.chunkerChanged,
      chunk: run.chunkOptions,
      windowing: run.windowing,
      cached: async (hashes) => {
        const found = new Set((await store.cachedVectors(cacheModel, hashes)).keys());
        for (const h of cacheFrom ? (await cacheFrom.cachedVectors(cacheModel, hashes)).keys() : []) found.add(h);
        return found;
      },
      signal,
    }).then(
      (sample) => run.estimate.settle(sample),
      () => {}, // progress without the sample: projected from the notes read
    )
  );
}
