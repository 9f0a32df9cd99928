import { offThreadBusy } from "../core/busy.js";
import type { VaultHandle, VaultStatus } from "../library.js";

/**
 * The status `GET /api/status` reports, with its count of changed notes taken sparingly: the count
 * walks the whole vault (on another thread, and at 20,000 notes it takes a second or more). While
 * this server indexes (the web app then asks every second), and while another request counts or
 * the vault is walked for a note's name (a count would wait for that walk), the last count is given
 * instead of counting again; with no last count, one is taken.
 *
 * @example
 * ```ts
 * const status = lastCountStatus(vault, () => indexing !== undefined);
 * (await status()).stale; // 3
 * ```
 */
export function lastCountStatus(v: VaultHandle, busy: () => boolean): () => Promise<VaultStatus> {
  let last: number | undefined; // the last count of changed notes
  let counting = 0; // requests counting now
  return async () => {
    const count = last === undefined || (!busy() && counting === 0 && !offThreadBusy());
    if (count) counting++;
    try {
      const taken = await v.status({ countStale: count });
      last = taken.stale ?? last!; // counted above when there is no last count
      return { ...taken, stale: last };
    } finally {
      if (count) counting--;
    }
  };
}
