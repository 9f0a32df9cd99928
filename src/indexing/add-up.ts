import type { AttachmentCounts } from "./attachment-index.js";
import type { IndexSummary } from "./indexer.js";

/** The counts a later pass adds to the run's summary (its `chunks` and `pending` replace the run's). */
const SUMMED = [
  "added",
  "updated",
  "deleted",
  "failed",
  "skipped",
  "embedded",
  "cached",
  "passages",
  "denseSeconds",
] as const;

/** The attachment counts a later pass adds (`unchanged` stays the first pass's, as the notes' does). */
const SUMMED_ATTACHMENTS: readonly (keyof AttachmentCounts)[] = ["added", "updated", "deleted", "unreadable"];

/**
 * Adds a later pass's work to the run's summary.
 *
 * @example
 * ```ts
 * addUp(total, run.summary); // total.added: 3 + the later pass's 1
 * ```
 */
export function addUp(total: IndexSummary, more: IndexSummary): void {
  for (const k of SUMMED) total[k] += more[k];
  for (const k of SUMMED_ATTACHMENTS) total.attachments[k] += more.attachments[k];
  total.chunks = more.chunks;
  total.pending = more.pending;
}
