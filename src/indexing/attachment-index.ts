/**
 * What an indexing run does for attachments (PDFs, Canvas boards, Word documents) beyond reading
 * them: it counts them apart from the notes, and gives their passages the tags of the notes that
 * link to them.
 */
import type { NoteEntry, NoteLink, Store, StoreRecord } from "../store/index.js";
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
export const noAttachments = (): AttachmentCounts => ({
  added: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  unreadable: 0,
});

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

/** What {@link tagAttachments} reads of an indexing run. */
export interface TaggingRun {
  store: Store;
  /** The files on disk (notes and attachments), by their vault paths. */
  files: readonly { path: string }[];
  /** What the run read and what went: nothing of either, nothing to re-tag. */
  todo: readonly unknown[];
  gone: readonly string[];
  /** Resolves a link as the run resolves them (a wikilink's name, a Markdown link's path). */
  resolve: (link: NoteLink, source: string) => string | undefined;
  /** The key the stored links were resolved by (see `Store.resolveLinks`). */
  linkKey: string;
}

/**
 * Gives each attachment's passages the tags of the notes that link to it or embed it
 * (`[[paper.pdf]]`, `![[paper.pdf]]`, `[paper](papers/paper.pdf)`): the union of those notes' own
 * tags, sorted, so that a `tags` filter finds a PDF where a note that links to it carries the tag.
 * Run at the end of a run's keyword phase, once its links are resolved, whenever the run read or
 * deleted anything: a linking note's tags that changed, a link added or removed, a note deleted
 * are all followed. An attachment whose tags did not change is not written; one whose tags did is
 * written again with its vectors (nothing is embedded). Returns how many attachments were
 * re-tagged.
 *
 * @example
 * ```ts
 * await tagAttachments(run); // 1: "papers/attention.pdf" now carries #ml, from "reading/Transformers.md"
 * ```
 */
export async function tagAttachments(run: TaggingRun): Promise<number> {
  const { store } = run;
  const attachments = new Set(run.files.map((f) => f.path).filter((p) => fileTypeOf(p) !== "note"));
  if (!attachments.size || (!run.todo.length && !run.gone.length)) return 0;
  const linkers = new Map<string, Set<string>>();
  for (const { path: source, links } of await store.noteLinks()) {
    if (fileTypeOf(source) !== "note") continue; // a board's file cards give it no tags to pass on
    for (const written of links) {
      const target = run.resolve({ written, text: "" }, source);
      if (target && attachments.has(target)) linkers.set(target, (linkers.get(target) ?? new Set()).add(source));
    }
  }
  const tagsOf = new Map<string, string[]>();
  const noteTags = async (p: string) => {
    if (!tagsOf.has(p)) tagsOf.set(p, [...new Set((await store.get({ path: p })).flatMap((r) => r.meta.tags))]);
    return tagsOf.get(p)!;
  };
  const batch: { note: NoteEntry; records: StoreRecord[]; links: NoteLink[] }[] = [];
  let linkTexts: Map<string, NoteLink[]> | undefined;
  for (const att of [...attachments].sort()) {
    const tags = new Set<string>();
    for (const source of linkers.get(att) ?? []) for (const t of await noteTags(source)) tags.add(t);
    const wanted = [...tags].sort();
    const stored = await store.get({ path: att });
    // an attachment that could not be read has no passages to tag
    if (!stored.length || stored.every((r) => sameList(r.meta.tags, wanted))) continue;
    const entry = (await store.notes([att])).get(att);
    if (!entry) continue;
    // its vectors as stored (a passage still without keeps none: the dense phase embeds it)
    const vectors = new Map((await store.get({ path: att, includeVectors: true })).map((r) => [r.id, r.windows]));
    linkTexts ??= await store.linkTexts();
    batch.push({
      note: entry,
      records: stored.map((r) => ({ ...r, meta: { ...r.meta, tags: wanted }, windows: vectors.get(r.id) ?? [] })),
      links: linkTexts.get(att) ?? [],
    });
  }
  if (batch.length) await store.upsertNotes(batch, { linksResolvedBy: run.linkKey });
  return batch.length;
}

/** Whether two lists of tags hold the same tags in the same order. */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
