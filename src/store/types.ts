import type { Props } from "../props.js";
import type { RecordMetadata } from "./fields.js";
import type { DocNode, WhereNode } from "./where.js";

/** One vector of a chunk: the model's reading of one window of its text. */
export interface StoredWindow {
  /** Hash of the window's text: the key of the vector cache. */
  hash: string;
  vector: Float32Array;
}

/** One stored chunk: text, metadata and its vectors (one per window the model read; most chunks have one). */
export interface StoreRecord {
  id: string;
  text: string;
  meta: RecordMetadata;
  windows: StoredWindow[];
}

/** A link out of a note with the sentence around it: part of the backlink text of the note it points to. */
export interface NoteLink {
  /** The target as the note wrote it: a wikilink's name (`Sourdough`), a Markdown link's vault path. */
  written: string;
  /** The vault path it resolves to; absent while no single note fits. */
  target?: string;
  /** The sentence that holds the link, links shown as their display text. */
  text: string;
  /** The link's display text (`PCA` for `[[Principle Component Analysis|PCA]]`): a name the linking note gives its target. */
  display?: string;
  /** A Markdown link (a path), not a wikilink (a name): resolvers may read it in more ways. */
  markdown?: true;
}

/** A note's properties and where its date came from (see {@link Store.noteProperties}). */
export interface NoteProperties {
  path: string;
  /** The note's date in Unix seconds. */
  date: number;
  /** A frontmatter key, `filename` or `mtime`. */
  dateSource: string;
  props: Props;
}

/** A note as the store tracks it for incremental indexing. */
export interface NoteEntry {
  path: string;
  /** Content hash of the source file. */
  hash: string;
  mtime: number;
  size: number;
}

/** A ranked record. Dense: `distance` is cosine distance (0 = same direction). Keyword: `distance` is -BM25 score. */
export interface ScoredRecord {
  id: string;
  text: string;
  meta: RecordMetadata;
  distance: number;
  /** Keyword: the note's backlink text matched too (see {@link KeywordRanking.backlinks}). */
  backlinked?: true;
}

/** What the index was built with. A query must use the same embedder. */
export interface Manifest {
  schemaVersion: number;
  embedder: {
    provider: string;
    model: string;
    dimensions: number;
    documentPrefix: string;
    queryPrefix: string;
    normalized: boolean;
  };
  chunkerVersion: string;
  createdAt: string;
  updatedAt: string;
  /** The notices an interface has shown about this index (`model-hint:<model>`), each shown once. */
  shown?: string[];
}

/** Filters, validated and normalised once at the edge (see `normaliseWhere`). */
export interface QueryFilter {
  where?: WhereNode;
  whereDocument?: DocNode;
}

/** Counts of what the store holds. */
export interface StoreCounts {
  notes: number;
  chunks: number;
}

/**
 * How many passages have their vectors: an index is keyword-searchable as soon as its passages are
 * stored, and dense-searchable passage by passage as their vectors land (keyword-first indexing).
 */
export interface VectorCoverage {
  /** Passages (chunks) the index holds. */
  chunks: number;
  /** Of those, the passages with their vectors: the dense ranking covers these. */
  withVectors: number;
}

/**
 * What an indexing run last recorded in the index of its phases (the dense phase with the vectors it
 * stored), so that another process (`status`, a search) can tell how far it is. `windows` may be an estimate
 * while passages left by an interrupted run are still to be read.
 */
export interface DenseProgress {
  /** The phase the run is in: `keyword` until its notes are stored, then `dense`. */
  phase: "keyword" | "dense";
  /** Windows (texts the model reads) this dense phase embeds, in all. */
  windows: number;
  /** Of those, the windows embedded and stored so far. */
  done: number;
  /** When the dense phase started, and when it last stored vectors (ISO 8601). */
  started: string;
  updated: string;
  /** The phase has ended: every passage has its vectors. */
  finished?: true;
  /** `windows` is a guess from the passages read so far (passages a stopped run left are still to be cut). */
  estimated?: boolean;
  /** The folders whose notes the phase embeds before the rest (the rest: most recently changed first). */
  first?: string[];
}

/** A warning indexing gave about one file (a binary `.md` skipped, invalid frontmatter, a note over its window budget). */
export interface IndexWarning {
  /** A stable code such as `note_skipped`, `frontmatter_invalid`, `links_truncated`, `note_truncated`. */
  code: string;
  /** The vault path of the file. */
  path: string;
  message: string;
}

/** Phrases a keyword query ranks by beside the question's own words, at a weight (a query expansion). */
export interface KeywordExpansion {
  /** Plain words or phrases ("sum", "add up"); each matches as a phrase, through the index's stemmer. */
  phrases: string[];
  /** Weight of their BM25 beside the question's (1 would count them as the question's own words). */
  weight: number;
}

/** How a keyword query ranks beyond the question's own words (see {@link Store.queryKeyword}). */
export interface KeywordRanking {
  /** Phrases (synonyms) ranked beside the question's words. */
  expansion?: KeywordExpansion;
  /**
   * Weight of the BM25 of adjacent question words that stand near each other in the chunk (within
   * `NEAR_WINDOW` tokens, in either order), beside the question's own BM25; 0 or absent: off.
   */
  proximity?: number;
  /**
   * Weight of backlink text: the BM25 of the words other notes use where they link to a note (see
   * {@link NoteLink}), added to each of its chunks. 0 or absent: not ranked.
   */
  backlinks?: number;
  /**
   * The question's language (ISO 639-1), when told: an index that stems passages of that language
   * by its own Snowball stemmer (see shared/language.ts) reads the question's words by it too.
   */
  language?: string;
}

/** What {@link Store.keywordStats} is asked: `id`, the chunk to test; `cap`, where counting stops; `language`, as {@link KeywordRanking.language}. */
export interface KeywordStatsOptions {
  id?: string;
  cap?: number;
  language?: string;
}

/** See {@link Store.keywordStats}. */
export interface KeywordStats {
  chunks: number;
  /** Chunks holding each phrase, at most the `cap` asked for. */
  counts: number[];
  /** Whether the chunk asked about holds each phrase (all false without an id). */
  inChunk: boolean[];
}

/** A word of the keyword index spelled like another (see {@link Store.keywordSpellings}). */
export interface Spelling {
  /** As a passage writes it, lower-cased ("approximate"). */
  word: string;
  /** Chunks that hold it (by its stem). */
  chunks: number;
  /** Edits between its stem and the stem of the word asked about (a swap of neighbours is one). */
  edits: number;
}

/** Which spellings {@link Store.keywordSpellings} gives. */
export interface SpellingQuery {
  /** Only words that begin with the word's first letter, as most typos do. */
  sameStart?: boolean;
  /** At most this many (and never more than 20). */
  limit?: number;
}

/** Options of {@link Store.upsertNotes}. */
export interface UpsertOptions {
  /**
   * The backlink text of the notes the batch links to (or linked to) is rebuilt by the next
   * `resolveLinks` rather than in this write: an indexing run's keyword phase, which ends with one.
   */
  backlinksLater?: boolean;
  /**
   * The `resolveLinks` key of the notes the batch's links were resolved against: when every link
   * the store holds was resolved by it too (or it holds none), the next `resolveLinks` with that key
   * resolves none again (a first index's keyword phase resolves each link once, as it reads it).
   */
  linksResolvedBy?: string;
}

/**
 * The storage interface. It knows nothing of Markdown or embedding models; both the embedded
 * SQLite store and the Chroma store implement it. Every method is async, whatever the backend, so a
 * caller always awaits and never guesses.
 */
export interface Store {
  /** Absolute location (file path or URL). */
  readonly location: string;
  /** Replaces the chunks of each note, and its links out (none when absent), in one transaction; `records` may be empty. */
  upsertNotes(
    batch: { note: NoteEntry; records: StoreRecord[]; links?: NoteLink[] }[],
    options?: UpsertOptions,
  ): Promise<void>;
  deleteNotes(paths: string[]): Promise<void>;
  /** Records a note's new size and mtime when its content is unchanged: its chunks stay, with the new mtime. */
  touchNote(note: NoteEntry): Promise<void>;
  /**
   * Every note the store holds, by path; with `paths`, only those of them it holds.
   *
   * @example
   * ```ts
   * (await store.notes(["kitchen/Sourdough.md"])).get("kitchen/Sourdough.md")?.mtime; // 1773446400
   * ```
   */
  notes(paths?: readonly string[]): Promise<Map<string, NoteEntry>>;
  /** The records with these ids (in their order), or of one note or of all, in path and passage order. */
  get(query: { ids?: string[]; path?: string; includeVectors?: boolean }): Promise<StoreRecord[]>;
  count(): Promise<StoreCounts>;
  listTags(): Promise<{ tag: string; notes: number }[]>;
  listFolders(): Promise<{ folder: string; notes: number }[]>;
  /** Every note's properties and the source of its date, one entry per note that has passages, by path. */
  noteProperties(): Promise<NoteProperties[]>;
  /** Every note's links out with their sentences, as `upsertNotes` was given them. */
  linkTexts(): Promise<Map<string, NoteLink[]>>;
  /**
   * Resolves every stored link again unless the last call had the same `key` (which names the set
   * of notes) and no links were written since: a note created after the notes that link to it gets
   * their text. Returns whether it re-resolved.
   */
  resolveLinks(key: string, resolve: (link: NoteLink, source: string) => string | undefined): Promise<boolean>;
  /**
   * The display texts of the links from other notes that resolve to each of `paths`, each once
   * (`PCA` for a note linked as `[[Principle Component Analysis|PCA]]`); a note no link names has
   * no entry.
   *
   * @example
   * ```ts
   * await store.linkNames(["ml/Principle Component Analysis.md"]); // Map { "ml/Principle Component Analysis.md" => ["PCA"] }
   * ```
   */
  linkNames(paths: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * Every note that has wikilinks, with their targets as written (`Sourdough`, `kitchen/Sourdough`), each once.
   * With `about` (a note's path, and its file name without `.md` in lower case), a store may leave
   * out the links of other notes whose target does not end with `about.name` or `index` (as
   * `linkEnd` of src/vault/links.ts reads a target): only those can name that note.
   *
   * @example
   * ```ts
   * await store.noteLinks({ path: "r/SMARS.md", name: "smars" }); // [{ path: "r/SMARS.md", links: ["Motors"] }, { path: "d/Log.md", links: ["smars"] }]
   * ```
   */
  noteLinks(about?: { path: string; name: string }): Promise<{ path: string; links: string[] }[]>;
  /**
   * The paths of the notes whose file name without `.md`, in lower case and NFC (`noteNameKey` of
   * src/vault/links.ts), is one of `names`, sorted: the notes a link or a name can mean, found
   * without reading every path.
   *
   * @example
   * ```ts
   * await store.notesNamed(["sourdough"]); // ["kitchen/Sourdough.md", "old/sourdough.md"]
   * ```
   */
  notesNamed(names: readonly string[]): Promise<string[]>;
  /** The k nearest records among those that pass the filter (filtering happens before ranking). */
  queryDense(vector: Float32Array, k: number, filter?: QueryFilter): Promise<ScoredRecord[]>;
  /**
   * The k best BM25 matches among those that pass the filter. With `ranking.expansion`, a chunk
   * scores its BM25 for `text` plus `expansion.weight ×` its BM25 for the expansion's phrases, and a
   * chunk that holds only expansion phrases is a match too. With `ranking.proximity`, a chunk also
   * scores that weight × its BM25 for pairs of adjacent question words found near each other.
   *
   * @example
   * ```ts
   * await store.queryKeyword("vacation", 6, {}, { expansion: { phrases: ["holiday"], weight: 0.5 } }); // notes that say "holiday"
   * await store.queryKeyword("undo last commit", 6, {}, { proximity: 0.2 }); // "last commit" together first
   * ```
   */
  queryKeyword(text: string, k: number, filter?: QueryFilter, ranking?: KeywordRanking): Promise<ScoredRecord[]>;
  /**
   * What the keyword index knows of some phrases: how many chunks it holds, how many hold each
   * phrase (counting stops at `cap`), and whether chunk `id` holds it.
   *
   * @example
   * ```ts
   * await store.keywordStats(["sourdough", "add up"], { id: hit.id, cap: 50 });
   * // { chunks: 75, counts: [3, 0], inChunk: [true, false] }
   * ```
   */
  keywordStats(phrases: string[], opts?: KeywordStatsOptions): Promise<KeywordStats>;
  /**
   * Words of the keyword index spelled like `word`: those whose stem is within `maxEdits` edits of
   * its stem (the index's stemmer; a swap of two neighbours is one edit), as passages write them.
   * Fewest edits first, then the most chunks; at most 20; never the word's own stem.
   *
   * @example
   * ```ts
   * await store.keywordSpellings("aproximate", 1); // [{ word: "approximate", chunks: 3, edits: 1 }]
   * await store.keywordSpellings("laggy", 1, { sameStart: true, limit: 1 }); // [] where "maggie" is the only one
   * ```
   */
  keywordSpellings(word: string, maxEdits: number, opts?: SpellingQuery): Promise<Spelling[]>;
  /**
   * The languages (ISO 639-1) whose passages the keyword index stems by their own Snowball stemmer
   * (English is FTS5's Porter, and is not listed); empty for an index written before, or without any.
   *
   * @example
   * ```ts
   * await store.keywordLanguages?.(); // ["de"] for a vault of German notes
   * ```
   */
  keywordLanguages?(): Promise<string[]>;
  manifest(): Promise<Manifest | undefined>;
  setManifest(m: Manifest): Promise<void>;
  /** Cached vectors by (model, window-text hash). */
  cachedVectors(model: string, hashes: string[]): Promise<Map<string, Float32Array>>;
  /**
   * How many passages have their vectors (see {@link VectorCoverage}).
   *
   * @example
   * ```ts
   * const { chunks, withVectors } = await store.vectorCoverage(); // { chunks: 6321, withVectors: 2140 }
   * ```
   */
  vectorCoverage(): Promise<VectorCoverage>;
  /**
   * The notes with a passage that has no vectors yet, in path order, after `after`, at most `limit`:
   * what an indexing run's dense phase embeds (a run that was stopped leaves them for the next).
   *
   * @example
   * ```ts
   * await store.pendingVectorPaths(100); // ["a.md", "b/c.md"]
   * ```
   */
  pendingVectorPaths(limit: number, after?: string): Promise<string[]>;
  /**
   * Gives passages that have no vectors their windows, in one write, with the dense phase's
   * progress recorded beside them. A passage that is gone (its note changed meanwhile) or already
   * has vectors is left as it is. Returns how many passages got vectors.
   *
   * @example
   * ```ts
   * await store.setVectors([{ id: "3f…", windows: [{ hash: "ab…", vector }] }], progress);
   * ```
   */
  setVectors(items: { id: string; windows: StoredWindow[] }[], progress?: DenseProgress): Promise<number>;
  /** Records (or, `undefined`, clears) the dense phase's progress without storing vectors. */
  setDenseProgress(progress: DenseProgress | undefined): Promise<void>;
  /** The dense phase's progress as last recorded, if any. */
  denseProgress(): Promise<DenseProgress | undefined>;
  /**
   * The warnings indexing recorded about the vault's files (see {@link IndexWarning}), as the last
   * {@link setIndexWarnings} left them: they stay across runs, an interrupted one's too.
   */
  indexWarnings(): Promise<IndexWarning[]>;
  /** Replaces the recorded warnings. */
  setIndexWarnings(warnings: IndexWarning[]): Promise<void>;
  /**
   * Which of these passages have no vectors yet: a dense search keyword-ranks them.
   *
   * @example
   * ```ts
   * await store.withoutVectors(["3f…", "9a…"]); // Set { "9a…" }
   * ```
   */
  withoutVectors(ids: string[]): Promise<Set<string>>;
  /**
   * Optional: load what dense queries need now, beside the caller's other work (a search starts it
   * before its keyword query, overlapping a cold model load); never rejects: a failure shows in
   * the dense query.
   */
  warmDense?(): Promise<void>;
  /**
   * Optional: resolves once a load {@link warmDense} started is under way on its own thread (its
   * code loaded), not done: a search awaits it before its keyword query, which holds this thread.
   */
  denseStarted?(): Promise<void>;
  /**
   * Optional: test a filter's `whereDocument` over the passages now, for the queries that follow
   * with the same filter (a search calls it before its keyword queries when it also ranks densely);
   * a store that tests in slices lets other work run meanwhile.
   */
  warmFilter?(filter: QueryFilter): Promise<void>;
  /** Reads the keyword index's text again if older rules wrote it (run by `index` before it writes); whether it did. */
  upgradeKeywordText?(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Storage layout version, recorded in the manifest; 2 = external-content FTS5, one vector per
 * chunk; 3 = one vector per window of a chunk (an index of version 2 is upgraded in place).
 */
export const SCHEMA_VERSION = 3;
