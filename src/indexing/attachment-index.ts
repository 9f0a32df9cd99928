/**
 * What an indexing run does for attachments (PDFs, Canvas boards, Word documents) beyond reading
 * them: it counts them apart from the notes, and gives their passages the tags of the notes that
 * link to them.
 */
import { fileTypeOf } from "../vault/index.js";

/** How many attachments a run added, updated, deleted, left unchanged, or could not read. */
export interface AttachmentCounts {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** Stored with no passages, and warned of (`attachment_unreadable`). */
  unreadable: number;
}

/** The counts a run starts from. */
export const noAttachments = (): AttachmentCounts => ({ added: 0, updated: 0, deleted: 0, unchanged: 0, unreadable: 0 });

/** The part of a run's summary that {@link tally} counts in. */
interface Counted {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  attachments: AttachmentCounts;
}

/**
 * Counts one file of a run: a note in the summary's own counts, an attachment in `attachments`
 * (a note is never `unreadable`: a note that cannot be read is `failed` or `skipped`).
 *
 * @example
 * ```ts
 * tally(summary, "papers/attention.pdf", "added"); // summary.attachments.added + 1
 * tally(summary, "robots/SMARS.md", "updated");    // summary.updated + 1
 * ```
 */
export function tally(s: Counted, path: string, what: keyof AttachmentCounts): void {
  if (fileTypeOf(path) !== "note") s.attachments[what]++;
  else if (what !== "unreadable") s[what]++;
}

/**
 * Adds a later pass's attachment counts to the run's (the deletes and unchanged are the last pass's
 * own, as for notes).
 *
 * @example
 * ```ts
 * addAttachments(total.attachments, more.attachments);
 * ```
 */
export function addAttachments(total: AttachmentCounts, more: AttachmentCounts): void {
  total.added += more.added;
  total.updated += more.updated;
  total.deleted += more.deleted;
  total.unreadable += more.unreadable;
}
