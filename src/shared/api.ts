/**
 * The JSON shapes vault-rag returns, declared once: the core and the search build them, the CLI's
 * `--json`, MCP and the HTTP API send them, and the web app (`web/`, whose build compiles this
 * file) reads them with `import type`. Types only: no Node and no imports.
 */

/**
 * A property's value as the index keeps it: text, a number, true or false, a date (Unix seconds,
 * kept apart from numbers so a listing can say "date"), or a list of texts.
 */
export type PropValue = string | number | boolean | { date: number } | string[];

/** The one JSON shape of a hit: the CLI's `--json`, the library's `notes.search()` hits and the MCP `search` tool. */
export interface HitJson {
  id: string;
  path: string;
  title: string;
  section: string;
  label: string;
  text: string;
  /** `max(0, 1 − distance)`, four decimals; relative to one search's candidates. */
  score: number;
  /** Lower is better (see `Hit.distance` in src/search/types.ts), six decimals. */
  distance: number;
  /** First line of the chunk in the note, 1-based. */
  start_line: number;
  end_line: number;
  tags: string[];
  folder: string;
  top_folder: string;
  /** Modification time of the note, Unix seconds. */
  mtime: number;
  /** The note's date, Unix seconds: frontmatter `updated`/`modified`/`date`/`created`, else a date in its file name, else `mtime`. */
  date: number;
  /** The note's frontmatter properties by normalised name (`{}` when it has none). */
  props: Record<string, PropValue>;
  /**
   * The note's first readable words, present only when the passage and its breadcrumb have nothing
   * to show (a heading and images in a note whose title is blank): what a snippet shows instead.
   */
  lead?: string;
  /** Present (true) when the note's backlink text matched the keyword query (see `Hit.backlinked`). */
  backlinked?: true;
  /** The file's type when it is no Markdown note: `pdf`, `canvas` or `docx` (a filter names it `file_type`). */
  file_type?: string;
  /** The PDF page the passage is on, from 1; absent for a passage of no page. */
  page?: number;
}

/** One passage of a pair that explains a related note. */
export interface RelatedPassage {
  id: string;
  section: string;
  start_line: number;
  end_line: number;
  text: string;
  /** The file's type when it is no Markdown note: `pdf`, `canvas` or `docx`, as a hit gives it. */
  file_type?: string;
  /** The PDF page the passage is on; absent for a passage of no page. */
  page?: number;
}

/** A note related to another, in the one JSON shape every interface returns (CLI `--json`, MCP, HTTP API). */
export interface RelatedNote {
  path: string;
  title: string;
  folder: string;
  tags: string[];
  /** Cosine similarity of the best-matching pair of passages, four decimals (1 = same direction). */
  score: number;
  /** Whether the two notes already link to each other (either way). */
  linked: boolean;
  /** The passage of the given note in the best pair. */
  source: RelatedPassage;
  /** The passage of this note in the best pair. */
  target: RelatedPassage;
}

/** One numbered source handed to the model; its lines are named as a hit's are (`start_line`, `end_line`), so JSON from `ask` and `search` reads alike. */
export interface Source {
  n: number;
  label: string;
  title: string;
  section: string;
  path: string;
  start_line: number;
  end_line: number;
  text: string;
  /** The PDF page the source is on, from 1; absent for a source of no page (`ask` cites it as `attention.pdf, p. 14`). */
  page?: number;
}

/** What a vault handle's `status()` reports. */
export interface VaultStatus {
  vault: string;
  index: string;
  model: string | null;
  dimensions: number;
  /** Markdown notes in the index. */
  notes: number;
  /** PDFs, Canvas boards and Word documents in the index (those that could not be read too), counted apart from `notes`. */
  attachments?: number;
  chunks: number;
  lastIndexed: string | null;
  /** Notes changed on disk since they were indexed. */
  stale: number;
  /** Where the index's model runs: `local`, `ollama at 127.0.0.1:11434`, `openai-compatible at …`. */
  modelRuns?: string;
  /** The index's model sends text off this machine and nothing here names it: it is not used. */
  modelRefused?: true;
  /** Where the notes' dates came from, and how many frontmatter dates could not be read. */
  dates?: DateSources;
  /** How far indexing is, phase by phase (keyword-first indexing). */
  phases?: IndexPhases;
  /** What indexing warned of about files, kept in the index (an interrupted run's too). */
  warnings?: { code: string; path: string; message: string }[];
}

/**
 * The two phases of indexing as `status` reports them: the keyword phase (notes stored with their
 * keyword index: searchable by keyword), then the dense phase (vectors for every passage).
 */
export interface IndexPhases {
  /** `in progress` while an index run stores notes and has not begun embedding; `stopped` when one was stopped so. */
  keyword: "complete" | "in progress" | "stopped";
  dense: {
    /** `stopped`: passages are without vectors and no index run is giving them any. */
    state: "complete" | "in progress" | "stopped";
    /** Passages with vectors, of all passages. */
    passages: number;
    of: number;
    /** Windows embedded of those the running (or stopped) dense phase embeds, when it recorded them. */
    windows?: { done: number; total: number };
    /** Seconds left at the dense phase's rate so far, while it runs. */
    secondsLeft?: number;
    /**
     * The folders (the vault's `denseFirst` setting) whose notes get vectors before the rest, as
     * the running or stopped phase recorded them. Other notes follow, the most recently changed first.
     */
    first?: string[];
  };
}

/** How many notes took their date from each source, and how many had a frontmatter date that could not be read. */
export interface DateSources {
  /** Notes per source: a frontmatter key (`updated`, …), `filename` or `mtime`. */
  sources: Record<string, number>;
  /** Notes with a date key whose value is no date (`updated: last week`): their date came from a later source. */
  unreadable: number;
}

/** An error as the HTTP API returns it: the message and vault-rag's stable code (the fix, as data, beside them in src/serve/errors.ts). */
export interface ApiError {
  error: string;
  code: string;
}

/** `GET /api/search`: the hits, or with none, why and what may fix it. */
export interface SearchReply {
  hits: HitJson[];
  reason?: string;
  hints?: string[];
  /** How the search ran, when a reader should know (a question ranked by keywords alone). */
  notice?: string;
  /** The synonyms the keyword query also ranked by. */
  expansion?: { phrases: string[]; weight: number; coverage: number };
  /** Misspelt words the keyword query read as the vault's words. */
  spelling?: { from: string; to: string }[];
  /** The hits' notes changed or deleted since they were indexed. */
  stale?: { changed: string[]; deleted: string[] };
  /** While an index run's dense phase runs: the passages the dense ranking covers, of all. */
  denseCoverage?: DenseCoverage;
}

/** How far a search's dense ranking reached: passages with vectors, of all, and whether an index run is giving the rest theirs. */
export interface DenseCoverage {
  chunks: number;
  withVectors: number;
  /** An index run holds the index's writer lock: the vectors are coming. */
  indexing: boolean;
}

/** `GET /api/related`: the notes related to one note, and why there are none when there are none. */
export interface RelatedReply {
  /** The vault-relative path of the note asked about. */
  note: string;
  related: RelatedNote[];
  reason?: string;
  /**
   * `words` when the index's model cannot read the note (another language than the bundled model's
   * English, or CJK), or the note has no vectors yet (`notice` says so): the notes were ranked by the words they share, their shared tags and links,
   * and `score` is that score, not a cosine.
   */
  basis?: "words";
  /** How the notes were ranked, when a reader should know: the note has no vectors yet, so by its words (`basis`). */
  notice?: string;
}

/** An index being built by the server (`serve --watch`), or by another process (`locked`). */
export interface IndexingProgress {
  phase: string;
  done: number;
  total: number;
}

/** `GET /api/status`: the index's status (changed notes not always counted), and the server's. */
/** The strongest measured model, against the index's own. */
export interface ModelHint {
  /** The `--model` value of the strongest measured model. */
  model: string;
  /** The index's model. */
  current: string;
  /** The measure that ranks them: hybrid nDCG@10 on til. */
  measure: "til hybrid nDCG@10";
  /** Its figure for each, and the gain. */
  score: number;
  currentScore: number;
  gain: number;
  /** The `models pull` that fetches it (the core leaves it out when its files are on this machine). */
  pull?: { repo: string; dtype: "q8" | "fp32" };
}

export type StatusReply = Omit<VaultStatus, "stale"> & {
  stale: number | null;
  /** The strongest model measured here, when it beats the index's (as `status --json` gives it). */
  modelHint?: ModelHint & { shown: boolean };
  /** The vault folder's name. */
  name: string;
  /** The language model `ask` uses. */
  llm: string;
  /** Whether the server keeps the index fresh itself (`serve --watch`). */
  watching: boolean;
  indexing: IndexingProgress | null;
};

/** `GET /api/tags` and `/api/folders`: each with its number of notes. */
export type TagCount = { tag: string; notes: number };
export type FolderCount = { folder: string; notes: number };

/** `GET /api/note`: a note's text. */
export interface NoteReply {
  path: string;
  text: string;
  /** A PDF, Canvas board or Word document: its type, and its passages from the index with their pages. */
  file_type?: string;
  passages?: { section: string; page?: number; text: string }[];
}

/** The `done` event of `POST /api/ask`: the checked answer, and with no sources, why. */
export interface AskDone {
  answer: string;
  cited: number[];
  /** Citations that name no source given. */
  invalid: number[];
  model: string;
  reason?: string;
  hints?: string[];
}
