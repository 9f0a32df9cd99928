import { VaultRagError } from "../errors.js";
import type { RelatedNote, RelatedPassage, RelatedReply } from "../shared/api.js";
import { normaliseWhere, pooledVector, withVectors, type Store, type StoreRecord } from "../store/index.js";
// the module itself, not the vault barrel: the barrel loads markdown-it and yaml (+150 ms on every cold search)
import { linkNameKeys, linkResolver, linkStem, noteMatches, oneNote } from "../vault/links.js";
import { modelCannotRead } from "./readable.js";
import { relatedByWords } from "./related-words.js";

export type { RelatedNote, RelatedPassage } from "../shared/api.js";

/** Options of {@link relatedNotes}. */
export interface RelatedOptions {
  /** How many notes (default {@link RELATED_DEFAULTS}.k). */
  k?: number;
  /** Leave out notes already linked from or to the note: link suggestions. */
  unlinkedOnly?: boolean;
  /** Stops the comparison (a client that went away, an MCP cancel): the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called when the name fits no note of the index, before the refusal that names the closest: it may throw a better reason. */
  unmatched?: () => void;
}

/**
 * Related-notes defaults. `candidates` is how many nearest chunks each of the note's chunks asks
 * the dense index for (at least `k` × 5). A note is scored by its best pair, so the list is exact
 * unless the candidates of every chunk are crowded by notes of more than `candidates / k` chunks
 * each.
 *
 * `passages` is how many of the note's chunks are compared at most: a longer note (a journal of
 * thousands of chunks) is compared by that many spread evenly over it. Each chunk is one dense
 * query, so a note of 2,100 chunks cost 2,100 queries of 2,150 candidates each and held a server
 * for 45 s.
 */
export const RELATED_DEFAULTS = { k: 5, candidates: 50, passages: 64 };

/**
 * What a related-notes reply says when the note has no vectors yet (an index run's dense phase has
 * not reached it): the notes were ranked by the words, tags and links they share.
 */
export const PENDING_NOTICE =
  "this note has no vectors yet (the index's dense phase has not reached it): related notes are ranked by the words, tags and links they share, not by meaning";

/** The notes related to one note, and why there are none when there are none. */
export type RelatedResult = RelatedReply;

const passage = (r: { id: string; text: string; meta: StoreRecord["meta"] }): RelatedPassage => ({
  id: r.id,
  section: r.meta.section,
  start_line: r.meta.start_line,
  end_line: r.meta.end_line,
  text: r.text,
  ...(r.meta.file_type && r.meta.file_type !== "note" ? { file_type: r.meta.file_type } : {}),
  ...(r.meta.page ? { page: r.meta.page } : {}),
});

/** The paths of the index's notes, sorted (so an ambiguous name lists its notes in order). */
const notePaths = async (store: Store) => [...(await store.notes()).keys()].sort();

/**
 * Finds the note a name means among the notes of the index, as a wikilink does (`robots/SMARS.md`,
 * `robots/SMARS`, `SMARS`, any case); a name that fits none or several is refused, saying which.
 * Only the notes of the name's file name are read ({@link Store.notesNamed}), and every note when
 * none fits (to name the closest).
 *
 * @example
 * ```ts
 * await indexedNote(store, "smars"); // "robots/SMARS.md"
 * ```
 */
export async function indexedNote(store: Store, name: string, unmatched?: () => void): Promise<string> {
  // every note the name can mean has one of these file names
  const named = await store.notesNamed(linkNameKeys(name));
  const among = noteMatches(named, name).length ? named : await notePaths(store);
  return oneNote(among, name, { in: "the index", kind: "index" }, unmatched);
}

/**
 * The notes linked from or to a note (wikilinks, resolved as Obsidian resolves them).
 *
 * @example
 * ```ts
 * await linkedNotes(store, "robots/SMARS.md"); // Set { "daily/2026-03-14.md", "robots/Motor drivers.md" }
 * ```
 */
export async function linkedNotes(store: Store, note: string): Promise<Set<string>> {
  const noteStem = note.replace(/\.md$/i, "").toLowerCase();
  // a link can mean this note only if it ends with its file name (any case), or is a folder's page
  const name = noteStem.slice(noteStem.lastIndexOf("/") + 1);
  const out: string[] = [];
  const to: { path: string; link: string }[] = [];
  for (const { path, links } of await store.noteLinks({ path: note, name })) {
    for (const link of links) {
      if (path === note) {
        out.push(link);
        continue;
      }
      // cheap test first: a link can only mean this note if it ends with its name
      const want = linkStem(link).toLowerCase();
      // (a folder's page, `guide/index`, may be its README)
      if (noteStem === want || noteStem.endsWith("/" + want) || /(?:^|\/)index$/.test(want)) to.push({ path, link });
    }
  }
  // the notes these links can mean, read into maps once: only those of their file names
  const keys = new Set([...out, ...to.map((t) => t.link)].flatMap(linkNameKeys));
  const targets = linkResolver(await store.notesNamed([...keys]));
  const found = new Set<string>();
  for (const link of out) for (const t of targets(link)) found.add(t);
  for (const { path, link } of to) if (targets(link).includes(note)) found.add(path);
  found.delete(note);
  return found;
}

/**
 * The notes nearest in meaning to a note, from the vectors already in the index (nothing is
 * embedded): each of the note's chunks asks the dense index for its nearest chunks of other notes,
 * and a note scores by its best-matching pair of passages, which is returned to explain it.
 *
 * @example
 * ```ts
 * const { related } = await relatedNotes(store, "SMARS", { k: 3, unlinkedOnly: true });
 * related[0]; // { path: "electronics/Pico W pinout.md", score: 0.8362, linked: false, source: { section: "SMARS Robot > SMARS > Motor wiring", … }, target: { … } }
 * ```
 */
export async function relatedNotes(store: Store, name: string, opts: RelatedOptions = {}): Promise<RelatedResult> {
  const k = opts.k ?? RELATED_DEFAULTS.k;
  if (!Number.isInteger(k) || k < 1)
    throw new VaultRagError("usage", `vault-rag: k must be a whole number of at least 1, got ${k}`);
  // only the notes of the names asked about are read: every path, mapped, costs 1.2 s at 100,000 notes
  const note = await indexedNote(store, name, opts.unmatched);
  const records = await store.get({ path: note, includeVectors: true });
  // an index run's dense phase has not reached the note yet: its words, tags and links are there
  const pending = records.length > 0 && records.every((r) => !r.windows.length);
  // a passage past its note's window budget has an empty window and no vector to compare
  const all = pending ? records : withVectors(records);
  if (!all.length) return { note, related: [], reason: `"${note}" has no text in the index to compare` };
  const model = (await store.manifest())?.embedder.model ?? "";
  const byWords = pending || modelCannotRead(model, all.map((c) => c.text).join("\n"));
  // compared by vectors: the dense index loads (the embedded store reads its snapshot on a thread
  // of its own) while the links are read
  const warming = byWords ? undefined : store.warmDense?.();
  if (warming) await store.denseStarted?.();
  const linked = await linkedNotes(store, note);
  if (byWords) {
    const found = await relatedWords(store, note, all, linked, k, opts.unlinkedOnly && linked.size ? [...linked] : []);
    return pending ? { ...found, notice: PENDING_NOTICE } : found;
  }
  await warming;
  const chunks = spread(all, RELATED_DEFAULTS.passages);
  // a short note's own chunks are dropped here rather than by a filter, which would cost a pass
  // over the metadata per query; a long note's (more than the candidates) and linked notes, which
  // may be many, are filtered out by the store
  const own = all.length > RELATED_DEFAULTS.candidates;
  const excluded = opts.unlinkedOnly && linked.size ? [note, ...linked] : own ? [note] : undefined;
  const filter = excluded ? { where: normaliseWhere({ path: { $nin: excluded } }) } : {};
  const total = (await store.count()).chunks;
  const n = Math.min(total, Math.max(RELATED_DEFAULTS.candidates, k * 5) + (excluded ? 0 : all.length));
  const best = new Map<string, RelatedNote>();
  for (const c of chunks) {
    // each query runs at once (SQLite is synchronous): between them a server answers its other
    // requests, and a caller that went away stops the rest
    await new Promise((r) => setImmediate(r));
    opts.signal?.throwIfAborted();
    for (const hit of await store.queryDense(pooledVector(c.windows), n, filter)) {
      if (hit.meta.path === note) continue;
      const score = 1 - hit.distance;
      const seen = best.get(hit.meta.path);
      if (seen && seen.score >= score) continue;
      best.set(hit.meta.path, {
        path: hit.meta.path,
        title: hit.meta.title,
        folder: hit.meta.folder,
        tags: hit.meta.tags,
        score,
        linked: linked.has(hit.meta.path),
        source: passage(c),
        target: passage(hit),
      });
    }
  }
  const related = [...best.values()]
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, k)
    .map((r) => ({ ...r, score: Number(r.score.toFixed(4)) }));
  return related.length
    ? { note, related }
    : {
        note,
        related,
        reason: opts.unlinkedOnly ? `every other note is already linked to "${note}"` : "the index holds no other note",
      };
}

/** {@link relatedNotes} of a note the model cannot read: by its words, tags and links. */
async function relatedWords(
  store: Store,
  note: string,
  all: StoreRecord[],
  linked: ReadonlySet<string>,
  k: number,
  excluded: string[],
): Promise<RelatedResult> {
  const found = await relatedByWords(store, all, linked, k, excluded);
  const related = found.map((f) => ({
    path: f.path,
    title: f.passage.meta.title,
    folder: f.passage.meta.folder,
    tags: f.passage.meta.tags,
    score: Number(f.score.toFixed(4)),
    linked: linked.has(f.path),
    source: passage(all[0]),
    target: passage(f.passage),
  }));
  return related.length
    ? { note, related, basis: "words" }
    : { note, related, basis: "words", reason: "no other note shares a telling word with it" };
}

/** At most `max` of `items`, spread evenly from the first to the last (all of them when there are no more). */
function spread<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  return Array.from({ length: max }, (_, i) => items[Math.round((i * (items.length - 1)) / (max - 1))]);
}
