/** How many threads embed: the choice a face passes on (`--threads`), over `VAULT_RAG_THREADS`. */
import { parseThreads, threadCount } from "../embed/index.js";

/**
 * Sets this process's embedding threads from a face's option (`--threads 3`), which wins over
 * `VAULT_RAG_THREADS`, and checks either at once, before any work: a bad value is a one-line usage
 * error naming where it came from. Returns the number of threads (0: the main thread embeds).
 *
 * @example
 * ```ts
 * chooseThreads("3"); // 3
 * chooseThreads(undefined); // VAULT_RAG_THREADS, else one per core but one
 * ```
 */
export function chooseThreads(option: string | undefined, source = "--threads"): number {
  if (option !== undefined) process.env.VAULT_RAG_THREADS = String(parseThreads(option, source));
  return threadCount();
}
