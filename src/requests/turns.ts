import pLimit from "p-limit";

/** Requests served a few at a time, with a bounded line of those waiting their turn. */
export interface Turns {
  /** True when `waiting` requests wait already: the next one is to be refused. */
  readonly full: boolean;
  /** Runs `fn` when its turn comes, in the order requests came. */
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * A line for the requests of a long-lived server (MCP, `serve`): `at` run at once, at most
 * `waiting` more wait. A search is CPU work on the server's own process, so more at once answer
 * none sooner, and each one in flight holds its candidate lists in memory.
 *
 * @example
 * ```ts
 * const line = turns(2, 256);
 * if (line.full) return refuse("busy");
 * return line.run(() => vault.search(query));
 * ```
 */
export function turns(at: number, waiting: number): Turns {
  const limit = pLimit(at);
  return {
    get full() {
      return limit.pendingCount >= waiting;
    },
    run: (fn) => limit(fn),
  };
}
