/**
 * The types of the core that every interface calls: {@link openVault}'s options and handle, and
 * what its methods return.
 */
import type { Answer, AskContext, ChatMessage, Llm, Source, TokenSink } from "../answer/index.js";
import type { Fix } from "../errors.js";
import type { ModelHint } from "./measured.js";
import type { DenseCoverage, VaultStatus } from "../shared/api.js";
import type { EmbedderOptions } from "../embed/index.js";
import type {
  CheckReport,
  IndexOptions,
  IndexSummary,
  MigrateSummary,
  Watcher,
  WatchOptions,
} from "../indexing/index.js";
import type {
  FilterOptions,
  FlatHit,
  Hint,
  PropCount,
  PropValueCount,
  RelatedOptions,
  RelatedResult,
  Search,
  SearchOptions,
  SearchResult,
  SearchResults,
} from "../search/index.js";
import type { ChromaConnectOptions } from "../store/index.js";

/** Options of {@link openVault}. */
export interface OpenVaultOptions extends EmbedderOptions {
  /** Index file (default `<vault>/.vault-rag/index.db`) or a Chroma address (`chroma://host:port/<collection>`). */
  db?: string;
  /** Tenant, database and API key for a hosted Chroma server (else `CHROMA_TENANT`, `CHROMA_DATABASE`, `CHROMA_API_KEY`). */
  chroma?: ChromaConnectOptions;
  /** Embedding model for a new index (default: the bundled `use-lite`); an existing index keeps its own. */
  model?: string;
  /**
   * Whether `vault` is known to be the folder the index was built from (default true). False (the
   * CLI's `serve` and `mcp` run with `--db` from another folder, and no `--vault`): search names no
   * hits as changed or deleted, for the notes it would look at are not the index's.
   */
  vaultKnown?: boolean;
  /**
   * The vault is the working directory, found with no index there or above (the CLI run from `~`
   * or `/tmp`): a fix to build the index says it may be no notes folder at all.
   */
  vaultGuessed?: boolean;
  /**
   * Refuse now, at open, an index whose own model sends text over the network and that nothing on
   * this machine names (`VAULT_RAG_ALLOW_REMOTE`, `model`); default true. False (the CLI): the
   * refusal comes when that model is asked to embed, so status and related notes still work.
   */
  checkModel?: boolean;
  /**
   * The handle answers callers beyond this machine's user (the HTTP API, MCP): a hint never tells
   * whether a folder the index leaves out exists in the vault (a hidden or ignored folder reads as
   * any folder the index does not hold). Default false.
   */
  remote?: boolean;
  /**
   * The reranker searches use when a request says nothing of it (else `VAULT_RAG_RERANK`, else
   * none): `transformers:<owner>/<name>` or a `/v1/rerank` server's URL. A reranker is no part of
   * the index: it may change between searches without a rebuild.
   */
  rerank?: string;
}

export type { DenseCoverage, IndexPhases, VaultStatus } from "../shared/api.js";

/** A {@link VaultStatus} that may have been taken without counting changed notes (`stale: null`). */
export type VaultStatusMaybeCounted = Omit<VaultStatus, "stale"> & { stale: number | null };

/**
 * What {@link VaultHandle.search} returns: hits in the one shape the CLI's `--json` and MCP give,
 * and when there are none, why (`reason`) and what may fix it (`hints`, the lines the CLI prints).
 */
export interface VaultSearchResult extends SearchResult {
  hits: FlatHit[];
  /** With no hits: the hints that may fix it (a folder that exists in another case, a tag no note has, the closest names). */
  hints?: string[];
  /** With no hits, what may fix the `reason` (an empty index: build it). */
  fix?: Fix;
  /** How the search ran, when asked for (`explain: true`): what `--verbose` prints. */
  explain?: SearchExplain;
  /** The same hints as data ({@link Hint}), for a caller that words them itself. */
  why?: Hint[];
  /**
   * The hits' notes that changed (`changed`) or went from disk (`deleted`) since they were
   * indexed, when any did: such a hit shows text the note no longer holds. Absent when none did.
   */
  stale?: { changed: string[]; deleted: string[] };
  /**
   * When some passages have no vectors yet: how many do, and whether an index run is embedding the
   * rest now. `notice` then opens with this in words.
   */
  denseCoverage?: DenseCoverage;
}

/** An opened vault: index it, search it, ask it. */
export interface VaultHandle {
  readonly vault: string;
  readonly db: string;
  /**
   * Indexes the vault: only the notes changed since the last run, or everything with `full`.
   * `built` says whether the run built the index from nothing (a first index, or a full rebuild).
   *
   * @example
   * ```ts
   * (await notes.index()).built; // true the first time
   * ```
   */
  index(opts?: Omit<IndexOptions, "log"> & { log?: IndexOptions["log"] }): Promise<IndexSummary & { built: boolean }>;
  /**
   * The strongest model measured here ({@link strongerModel}) when it beats the index's model, with
   * whether this index has shown it already (`shown`); `markShown` records that it is shown now, so
   * an interface shows it once. Undefined when there is no index, or nothing measured beats its model.
   *
   * @example
   * ```ts
   * await notes.modelHint({ markShown: true });
   * // { model: "transformers:a/b", current: "use-lite", score: 0.83, currentScore: 0.779, gain: 0.051, shown: false, … }
   * ```
   */
  modelHint(opts?: { markShown?: boolean }): Promise<(ModelHint & { shown: boolean }) | undefined>;
  /**
   * Keeps the index fresh as notes change (an incremental pass now, then one after each burst of
   * changes), while the handle goes on searching. Close the watcher before the handle.
   *
   * @example
   * ```ts
   * const w = await notes.watch({ onBatch: (s) => console.log(batchLine(s)) });
   * await w.close();
   * ```
   */
  watch(opts?: Omit<WatchOptions, "store">): Promise<Watcher>;
  /**
   * Searches the vault with the CLI's defaults. Each hit is flat, as the CLI's `--json` prints it
   * (`hit.start_line`, `hit.tags`); `hit.meta` still holds the record's full metadata.
   *
   * @example
   * ```ts
   * const { hits, hints } = await notes.search("how do I save power", { tags: ["pico"], topK: 5 });
   * hits.map((h) => `${h.path}:${h.start_line}`); // ["electronics/Pico W.md:11", …]
   * JSON.stringify(hits[0]); // {"id":"…","path":"electronics/Pico W.md",…,"mtime":1767225600}, as the CLI's --json
   * ```
   */
  search(question: string, opts?: VaultSearchOptions): Promise<VaultSearchResult>;
  ask(
    question: string,
    opts?: SearchOptions &
      FilterOptions & {
        llm?: string;
        budgetTokens?: number;
        onToken?: TokenSink;
        /** Called with the sources once they are found, before the model is asked. */
        onSources?: (sources: Source[]) => void;
        /** Aborting it stops the model (its request is closed) and rejects. */
        signal?: AbortSignal;
      },
  ): Promise<{
    answer: string;
    sources: Source[];
    cited: number[];
    invalid: number[];
    model: string;
    /** With no sources (the model not asked): why the search found none, and the hints that may fix it, as `search` gives them. */
    reason?: string;
    hints?: string[];
    why?: Hint[];
  }>;
  /**
   * The sources and prompt an answer would be given, without asking a model (the CLI's
   * `ask --context-only`, and each turn of `chat`); with no sources, why, and the hints that may fix it.
   *
   * @example
   * ```ts
   * const c = await notes.askContext("why did the motors cut out?", { tags: ["robots"] });
   * c.sources[0].path; // "daily/2026-03-14.md"
   * ```
   */
  askContext(
    question: string,
    opts?: SearchOptions & FilterOptions & { budgetTokens?: number },
  ): Promise<VaultAskContext>;
  /**
   * A chat model, by its spec (default `ollama:llama3.2`), with this vault's connection options:
   * `check()` it once, then hand it to {@link VaultHandle.answer}.
   *
   * @example
   * ```ts
   * const llm = notes.llm("ollama:llama3.2");
   * await llm.check(); // throws when the server cannot be reached or lacks the model
   * ```
   */
  llm(spec?: string): Llm;
  /**
   * Answers from a context that {@link VaultHandle.askContext} assembled, streaming tokens, with
   * earlier turns of a conversation (`history`) when given.
   *
   * @example
   * ```ts
   * const { answer, citedSources } = await notes.answer(c, { llm: notes.llm(), onToken: (t) => process.stdout.write(t) });
   * ```
   */
  answer(
    context: AskContext,
    opts?: { llm?: Llm; history?: ChatMessage[]; onToken?: TokenSink; signal?: AbortSignal },
  ): Promise<Answer & { sources: Source[]; model: string }>;
  /**
   * Runs searches built with the Search API (`Search`, `K`, `Knn`, `Rrf`), as Chroma's cloud
   * service does, on this vault's index.
   *
   * @example
   * ```ts
   * const s = new Search().where(K("tags").contains("robots")).rank(Knn({ query: "motor driver heat" })).limit(5).select(K.DOCUMENT, K.SCORE, "title");
   * (await notes.searches(s)).rows()[0]; // [{ id: "…", document: "…", score: 0.21, metadata: { title: "SMARS Robot" } }, …]
   * ```
   */
  searches(s: Search | Search[]): Promise<SearchResults>;
  /**
   * The index's model, size and age, and how many notes changed since (a walk of the vault: pass
   * `countStale: false` to skip it, as `serve` does while it is indexing).
   *
   * @example
   * ```ts
   * (await notes.status()).stale; // 3
   * ```
   */
  status(opts?: { countStale?: true }): Promise<VaultStatus>;
  status(opts: { countStale?: boolean }): Promise<VaultStatusMaybeCounted>;
  /**
   * The notes nearest in meaning to a note (a path or a name, as a wikilink finds it), from the
   * vectors already in the index, each with its best-matching pair of passages.
   *
   * @example
   * ```ts
   * const { related } = await notes.related("robots/SMARS.md", { k: 5, unlinkedOnly: true });
   * related[0].path; // "electronics/Pico W pinout.md"
   * ```
   */
  related(note: string, opts?: VaultRelatedOptions): Promise<VaultRelatedResult>;
  /**
   * A note's text (or one section of it) under the rules of the MCP `get_note` tool: only notes the
   * index would hold, found as a wikilink finds them, cut at 40,000 characters with a mark. A PDF,
   * Canvas board or Word document the index holds (by its path, or its file name with the
   * extension) gives its passages from the index, with their breadcrumbs and PDF pages
   * (`passages`, and `text` with a PDF's under `## p. N`); `heading` then picks a page (`p. 3`) or a
   * heading of the breadcrumbs.
   *
   * @example
   * ```ts
   * (await notes.note("SMARS", { heading: "Motors" })).text; // "## Motors\n…"
   * (await notes.note("manual.pdf", { heading: "p. 2" })).passages; // [{ section: "Manual > Setup > p. 2", page: 2, text: "…" }]
   * ```
   */
  note(name: string, opts?: { heading?: string }): Promise<NoteText>;
  /**
   * Opens the index now, refusing as every reader does when there is none (`no_index`, with the
   * fix), when it was never completed, or while it is being built.
   *
   * @example
   * ```ts
   * await notes.ready(); // throws: no index at /home/me/notes/.vault-rag/index.db — call index() first
   * ```
   */
  ready(): Promise<void>;
  /**
   * Verifies the index (manifest, orphans, keyword index, stale notes); with `repair`, fixes what
   * needs no embedding. A problem only a rebuild fixes gives the report a `fix`.
   *
   * @example
   * ```ts
   * (await notes.check({ repair: true })).ok; // true
   * ```
   */
  check(o?: { repair?: boolean }): Promise<CheckReport>;
  /**
   * Copies the index to another backend (`to`: a file or `chroma://host:port/<collection>`) without
   * re-embedding, verifying counts.
   *
   * @example
   * ```ts
   * (await notes.migrate("chroma://localhost:8000/notes")).chunks; // 2064
   * ```
   */
  migrate(to: string): Promise<MigrateSummary>;
  /**
   * Gives up an indexing run this process is stopping (Ctrl-C, SIGTERM): what was committed stays;
   * a stopped rebuild's half-built file is removed; this process's index locks are released.
   * Synchronous, for a signal handler that exits next.
   *
   * @example
   * ```ts
   * process.on("SIGINT", () => (notes.abandon({ full: true }), process.exit(130)));
   * ```
   */
  abandon(o?: { full?: boolean }): void;
  /**
   * Loads what a first search needs now, the embedding model and the dense index (an interactive
   * session or a server: not on the first question).
   *
   * @example
   * ```ts
   * await notes.warm();
   * ```
   */
  warm(): Promise<void>;
  /**
   * How many notes changed on disk since they were indexed (new, edited, touched or deleted): a
   * walk of the vault.
   *
   * @example
   * ```ts
   * await notes.changed(); // 3
   * ```
   */
  changed(): Promise<number>;
  /**
   * The process id of another process writing this index (index, watch, serve --watch), if any.
   *
   * @example
   * ```ts
   * notes.writer(); // 4242 while `index` runs elsewhere
   * ```
   */
  writer(): number | undefined;
  /** Tags in the index, with how many notes carry each. */
  tags(): Promise<{ tag: string; notes: number }[]>;
  /** Folders in the index, with how many notes each holds. */
  folders(): Promise<{ folder: string; notes: number }[]>;
  /**
   * The notes' properties, with how many notes hold each and the types of their values; given a
   * name (`status`, `prop.path`), the values of that property with their counts. A name no note has
   * is refused, with the closest names.
   *
   * @example
   * ```ts
   * await notes.props(); // [{ name: "status", field: "status", notes: 12, types: { string: 12 } }, …]
   * await notes.props("status"); // [{ value: "draft", type: "string", notes: 9 }, …]
   * ```
   */
  props(): Promise<PropCount[]>;
  props(name: string): Promise<PropValueCount[]>;
  close(): Promise<void>;
}

/**
 * What {@link VaultHandle.note} returns: the text; for an attachment, its type and its passages
 * (each with its breadcrumb and PDF page) too.
 */
export interface NoteText {
  path: string;
  text: string;
  /** `pdf`, `canvas` or `docx`; absent for a note. */
  file_type?: string;
  passages?: { section: string; page?: number; text: string }[];
}

/** Options of {@link VaultHandle.search}: the search request, and whether to explain how it ran. */
export type VaultSearchOptions = SearchOptions & FilterOptions & { explain?: boolean };

/**
 * How a search ran, for a reader who asks (the CLI's `--verbose`): the index and model, the
 * synonyms the keyword query added (or why none), the near pairs and backlink text it ranked by.
 */
export interface SearchExplain {
  /** The index, as shown to users, and the model's id. */
  index: string;
  model: string;
  /** On a Chroma server: the local keyword index beside the collection. */
  chroma?: { keywordPath: string };
  /**
   * WordNet synonyms: `off` (the request turned them off), `unavailable` (WordNet cannot be read:
   * `why`), `added` (the expansion), `none` (none added: `held` when a hit shown holds the
   * question's words), or absent for a dense search.
   */
  synonyms?:
    | { state: "off" }
    | { state: "unavailable"; why: string }
    | { state: "added"; phrases: string[]; weight: number; coverage: number }
    | { state: "none"; held: boolean; keywordOnly: boolean };
  /** Word pairs ranked by nearness (absent for a dense search), their weight and window. */
  near?: { pairs: string[][]; weight: number; window: number };
  /** Hits matched by what other notes say where they link to them (absent for a dense search), and its weight. */
  backlinks?: { paths: string[]; weight: number };
  /**
   * How many of the dense list's candidates the model cannot read (another language than the
   * English-only model's), which were left out of it and ranked by their words; absent when none.
   */
  unread?: { passages: number };
  /**
   * A reranked search: the reranker, how many fused candidates it reordered, how long it took, and
   * each hit's place among them before and after (from 1) with its score; absent when off.
   */
  rerank?: {
    model: string;
    candidates: number;
    ms: number;
    hits: { id: string; path: string; before: number; after: number; score: number }[];
  };
}

/** Options of {@link VaultHandle.related}. */
export type VaultRelatedOptions = Omit<RelatedOptions, "unmatched"> & {
  /**
   * A name that fits no indexed note but names a file of the vault is refused with why (left out by
   * the walk, or not indexed yet), where it would be refused with the closest note. For a caller
   * on this machine (the CLI): over HTTP and MCP it would tell whether a file exists.
   */
  explainMissing?: boolean;
};

/**
 * What {@link VaultHandle.related} returns: the related notes, and, when the vault is known to be
 * the index's, whether the note asked about (`asked`) or notes found for it changed or went from
 * disk since the last index (such notes are related as they were indexed).
 */
export interface VaultRelatedResult extends RelatedResult {
  stale?: { asked?: "changed" | "deleted"; changed: string[]; deleted: string[] };
}

/** What {@link VaultHandle.askContext} returns: the context, and with no sources the hints as data. */
export type VaultAskContext = AskContext & { why?: Hint[] };
