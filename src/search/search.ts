import { countWords } from "../chunk/words.js";
import { searchProfile } from "../embed/profiles.js";
import { unreadable, type Embedder } from "../embed/types.js";
import { VaultRagError } from "../errors.js";
import {
  normaliseWhere,
  normaliseWhereDocument,
  queryTokens,
  STOPWORDS,
  type QueryFilter,
  type ScoredRecord,
  type Store,
  type VectorCoverage,
} from "../store/index.js";
import { planExpansion, readableWordNet, type ExpansionPlan } from "./expand.js";
import { andWhere, subtreeWhere } from "./filter.js";
import { withOtherNotes, withoutNotes } from "./per-note.js";
import { createReranker, DEFAULT_RERANKER, rerankerKind, type Reranker } from "../rerank/index.js";
import { propNames } from "./props.js";
import { rerankHits } from "./rerank.js";
import { withLeads } from "./lead.js";
import { isRareLookup, RARE_DEFAULTS } from "./rare.js";
import { rarestTitledFirst, rarestWords, type RarestWords } from "./title-lead.js";
import { judgePassages, modelLanguages, questionLanguage, questionUnread } from "./readable.js";
import { isStemmedLanguage } from "../store/language.js";
import { spellingFixes, spellingNotice, withFixes, type SpellingFix } from "./spelling.js";
import { capPerNote, diversify, dropStragglers, linearFusion, namedFirst, rrf, type Ranked } from "./rank.js";
import {
  NO_WORDS_NOTICE,
  SEARCH_DEFAULTS,
  type Hit,
  type SearchOptions,
  type SearchOptionsWithDefaults,
  type SearchResult,
} from "./types.js";

export { isRareLookup, RARE_DEFAULTS } from "./rare.js";

/**
 * The settings chosen for a model on the dev sets, over `SEARCH_DEFAULTS` (its profile,
 * {@link searchProfile}): none for the bundled model, whose figures chose the defaults.
 *
 * @example
 * ```ts
 * modelSearchDefaults("universal-sentence-encoder-lite"); // {}
 * ```
 */
export function modelSearchDefaults(model: string): Partial<SearchOptionsWithDefaults> {
  const { alpha } = searchProfile(model);
  return alpha === undefined ? {} : { alpha };
}

/** Fills in defaults (those of the index's `model`, when given) and checks the values (each bad value is a one-line `usage` error). */
export function withSearchDefaults(opts: SearchOptions = {}, model?: string): SearchOptionsWithDefaults {
  const o = {
    ...SEARCH_DEFAULTS,
    ...(model ? modelSearchDefaults(model) : {}),
    ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
  } as SearchOptionsWithDefaults;
  const int = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min)
      throw new VaultRagError("usage", `vault-rag: ${name} must be a whole number of at least ${min}, got ${v}`);
  };
  int("top-k", o.topK, 1);
  int("oversample", o.oversample, 1);
  int("per-note", o.perNote, 1);
  int("pool", o.pool, 1);
  int("rerank-depth", o.rerankDepth, 1);
  if (o.rerank !== undefined && typeof o.rerank !== "boolean") {
    if (typeof o.rerank !== "string")
      throw new VaultRagError(
        "usage",
        `vault-rag: rerank must be true, false or a reranker, got ${JSON.stringify(o.rerank)}`,
      );
    rerankerKind(o.rerank);
  }
  if (!["dense", "keyword", "hybrid"].includes(o.mode))
    throw new VaultRagError("usage", `vault-rag: unknown mode "${o.mode}" — use dense, keyword or hybrid`);
  if (!["linear", "rrf"].includes(o.fusion))
    throw new VaultRagError("usage", `vault-rag: unknown fusion "${o.fusion}" — use linear or rrf`);
  if (o.minRatio !== undefined && !(o.minRatio >= 0 && o.minRatio <= 1))
    throw new VaultRagError("usage", `vault-rag: min-ratio must be between 0 and 1, got ${o.minRatio}`);
  if (!(o.alpha >= 0 && o.alpha <= 1))
    throw new VaultRagError("usage", `vault-rag: alpha must be between 0 and 1, got ${o.alpha}`);
  if (!(o.proximity >= 0 && o.proximity <= 1))
    throw new VaultRagError("usage", `vault-rag: proximity must be between 0 and 1, got ${o.proximity}`);
  if (!(o.backlinks >= 0 && o.backlinks <= 1))
    throw new VaultRagError("usage", `vault-rag: backlinks must be between 0 and 1, got ${o.backlinks}`);
  return o;
}

/** What a search runs against: a store and the embedder that built it. */
export interface SearchContext {
  store: Store;
  embedder: Embedder;
  /**
   * The reranker of a spec, for a search that reranks (a long-lived caller keeps each one loaded);
   * without it, {@link createReranker} makes one per search.
   */
  reranker?: (spec: string) => Reranker;
}

/**
 * The reranker a search's `rerank` option names: its spec, `DEFAULT_RERANKER` for `true`, none for
 * `false` or unset.
 *
 * @example
 * ```ts
 * rerankSpec(true); // "transformers:Xenova/ms-marco-MiniLM-L-6-v2"
 * rerankSpec("http://127.0.0.1:8012"); // "http://127.0.0.1:8012"
 * ```
 */
export function rerankSpec(rerank: boolean | string | undefined): string | undefined {
  return rerank === true ? DEFAULT_RERANKER : rerank || undefined;
}

/** A letter, a digit or a pictograph (an emoji is something to search for; punctuation alone is not). */
const WORDLIKE = /[\p{L}\p{N}\p{Extended_Pictographic}]/u;
const shortly = (text: string) => (text.length > 40 ? text.slice(0, 40) + "…" : text);

/**
 * The longest search query any interface takes, in characters (MCP and the HTTP API take 2,000, see
 * `REQUEST_LIMITS`); a long word (a hash, a URL) is a fine query, so words are capped on their own.
 */
export const MAX_QUERY_CHARS = 100_000;

/** The most words a search query may hold (whitespace-separated): ranking cost grows with them. */
export const MAX_QUERY_WORDS = 1000;

/**
 * Checks a search as {@link search} does before it reads the index: the question, the options and
 * the filters, each bad one a one-line error. For a caller that must refuse a bad request before it
 * starts to answer (`POST /api/ask` streams its answer). A filter's bare names reach the properties
 * in `props` (the index's, see {@link propNames}); without them only `prop.<name>` does.
 *
 * @example
 * ```ts
 * checkSearch("motors", { where: { nope: 1 } }); // throws: vault-rag: unknown metadata field "nope" …
 * ```
 */
export function checkSearch(
  question: string,
  options: SearchOptions = {},
  props?: readonly string[],
  model?: string,
): { o: SearchOptionsWithDefaults; filter: QueryFilter } {
  const o = withSearchDefaults(options, model);
  const filter: QueryFilter = {
    where: normaliseWhere(o.where, props),
    whereDocument: normaliseWhereDocument(o.whereDocument),
  };
  if (!question.trim())
    throw new VaultRagError("usage", `vault-rag: the search query is empty — type what you are looking for`);
  // a query is a question, not a document: 120,000 words took 47 s to rank
  const words = countWords(question, MAX_QUERY_WORDS);
  if (words > MAX_QUERY_WORDS || question.length > MAX_QUERY_CHARS)
    throw new VaultRagError(
      "usage",
      words > MAX_QUERY_WORDS
        ? `vault-rag: the query has over ${MAX_QUERY_WORDS} words — ask in fewer words`
        : `vault-rag: the query is ${question.length} characters, over the limit of ${MAX_QUERY_CHARS} — ask in fewer words`,
    );
  // "???" or "--": nothing to match and nothing for the model to read, so any hit would be noise
  if (!WORDLIKE.test(question))
    throw new VaultRagError(
      "usage",
      `vault-rag: the search query ${JSON.stringify(shortly(question.trim()))} has no words in it — type what you are looking for`,
    );
  return { o, filter };
}

/**
 * Searches the index in plain words. Asks the store for `topK × oversample` candidates (never more
 * than it holds; `pool` per list in hybrid mode) with the filters applied before ranking, widens
 * the keyword query with synonyms when its words miss ({@link retrieve}), fuses dense and BM25 in hybrid mode,
 * diversifies (at most `perNote` per note, backfilled when there are too few notes) and optionally
 * drops stragglers below `minRatio ×` the best score.
 *
 * @example
 * ```ts
 * const { hits } = await search(ctx, "how do the SMARS motors work", { where: { tags: { $contains: "robots" } } });
 * hits[0].label; // "SMARS Robot > SMARS > Motors"
 * ```
 */
export async function search(ctx: SearchContext, question: string, options: SearchOptions = {}): Promise<SearchResult> {
  // a filter's bare names may be the index's properties: read them only for a where filter
  const props = options.where != null ? await propNames(ctx.store) : undefined;
  // a subtree is the index's folders below it: its clause is read from the store
  const subtree = options.under === undefined ? undefined : await subtreeWhere(ctx.store, options.under);
  if (subtree) options = { ...options, where: andWhere(subtree, options.where) };
  const { o, filter } = checkSearch(question, options, props, ctx.embedder.model);
  const timings: SearchResult["timings"] = { embedMs: 0, retrieveMs: 0 };
  const total = (await ctx.store.count()).chunks;
  if (total === 0)
    return {
      hits: [],
      reason: `the index at ${ctx.store.location} is empty`,
      fix: { kind: "index", db: ctx.store.location },
      timings,
    };
  const rerank = rerankSpec(o.rerank);
  // a reranker is given its whole depth of candidates, however few hits are asked for
  const n = Math.max(1, Math.min(Math.max(o.topK * o.oversample, rerank ? o.rerankDepth : 0), total));
  // during an index run's dense phase some passages have no vectors yet: they are ranked by keyword
  const coverage = o.mode === "keyword" ? undefined : await ctx.store.vectorCoverage();
  const partial = coverage && coverage.withVectors < coverage.chunks ? coverage : undefined;
  // a dense search's keyword list holds only the passages its vectors cannot rank (see retrieve)
  const fuseAll = (r: Retrieved) =>
    fuse(o, r.dense, r.keyword, question, { ...r, partial: !!partial || o.mode === "dense" });
  let got = await retrieve(ctx, question, o, filter, n, timings, partial);
  let ranked = fuseAll(got);
  // the per-note cap is filled from every candidate the lists brought (a hybrid brings `pool`); a
  // single mode that brought only n, too few notes to fill the cap, asks again as deep as a hybrid
  if (
    o.mode !== "hybrid" &&
    ranked.length >= n &&
    n < total &&
    capPerNote(ranked, o.topK, o.perNote).kept.length < o.topK
  ) {
    got = await retrieve(ctx, question, o, filter, Math.min(total, Math.max(n, o.pool)), timings, partial);
    ranked = fuseAll(got);
  }
  // one note may hold every candidate a list brings: the other notes' are asked for apart
  const depth = Math.min(total, Math.max(n, o.pool));
  const cut = (r: Retrieved) => Math.max(r.dense.length, r.plainKeyword.length, r.keyword.length) >= depth;
  ranked = await withOtherNotes(ranked, depth < total && cut(got), o, async (leaveOut) => {
    const more = await retrieve(ctx, question, o, withoutNotes(filter, leaveOut), depth, timings, partial);
    return { hits: fuseAll(more), full: cut(more) };
  });
  const { unread, keyword, expansion, spelling, setAside } = got;
  let reranked: SearchResult["reranked"];
  if (rerank && ranked.length) {
    const t = performance.now();
    const reranker = ctx.reranker?.(rerank) ?? createReranker(rerank);
    ranked = await rerankHits(ranked, question, reranker, o.rerankDepth);
    // a note the question names stays first, as the fusion put it (see namedFirst)
    if (o.mode !== "dense") ranked = namedFirst(ranked, question, got.linkNames, got.language);
    timings.rerankMs = performance.now() - t;
    reranked = { model: reranker.id, candidates: Math.min(ranked.length, o.rerankDepth) };
  }
  let hits = diversify(ranked, o.topK, o.perNote);
  if (o.minRatio !== undefined) hits = dropStragglers(hits, o.minRatio);
  // a hit with nothing to show (a heading and images under a blank breadcrumb) shows its note's first words
  hits = await withLeads(ctx.store, hits);
  const unreadNote =
    unread === "language"
      ? `the embedding model (${ctx.embedder.id}) reads English only, and this question is in another language`
      : unread
        ? `the embedding model (${ctx.embedder.id}) knows too few of this question's characters to read it`
        : undefined;
  const reason = hits.length
    ? undefined
    : unread && o.mode === "dense"
      ? `${unreadNote} — search it by keyword or hybrid`
      : filter.where || filter.whereDocument
        ? // a dense list holds every chunk that passes; a keyword list only those with a word of the query
          o.mode === "keyword"
          ? "no chunk that passes the filters matches the query"
          : "no chunk passes the filters"
        : "no chunk matches the query";
  const notice =
    unread && (o.mode === "hybrid" || (o.mode === "dense" && hits.length))
      ? `${unreadNote}; ranked by keywords alone`
      : spelling?.length
        ? spellingNotice(spelling)
        : (commonWordsNotice(question) ??
          (o.mode === "hybrid" && hits.length && !keyword.length ? NO_WORDS_NOTICE : undefined));
  return {
    hits,
    reason,
    timings,
    ...(reranked ? { reranked } : {}),
    ...(notice ? { notice } : {}),
    ...(partial ? { denseCoverage: partial } : {}),
    ...(setAside ? { setAside } : {}),
    ...(expansion
      ? {
          expansion: {
            phrases: expansion.phrases,
            weight: Math.round(expansion.weight * 1000) / 1000,
            coverage: Math.round(expansion.coverage * 1000) / 1000,
          },
        }
      : {}),
    ...(spelling?.length ? { spelling } : {}),
  };
}

export { NO_WORDS_NOTICE };

/**
 * What a reader should know about a query made only of common words ("how to", "the"): no word of
 * it names a topic, so its hits are ranked by words nearly every note holds. `undefined` when a word
 * of the query is not a stopword.
 *
 * @example
 * ```ts
 * commonWordsNotice("how to"); // 'the query\'s words ("how", "to") are all common words, which name no topic — add a word for what you are looking for'
 * commonWordsNotice("how to knead"); // undefined
 * ```
 */
export function commonWordsNotice(question: string): string | undefined {
  const words = [...new Set(queryTokens(question))];
  if (!words.length || words.some((w) => !STOPWORDS.has(w.replace(/’/g, "'")))) return undefined;
  const shown = words.slice(0, 5).map((w) => JSON.stringify(w));
  if (words.length > 5) shown.push(`${words.length - 5} more`);
  return `the query's words (${shown.join(", ")}) are all common words, which name no topic — add a word for what you are looking for`;
}

/** The ranked lists a search fuses: dense and keyword candidates, and the keyword list before expansion. */
export interface Retrieved {
  dense: ScoredRecord[];
  keyword: ScoredRecord[];
  /** The keyword list of the question's own words (the same list as `keyword` when nothing was added). */
  plainKeyword: ScoredRecord[];
  /** How long the query for {@link plainKeyword} took, in ms (what a search without synonyms waits for). */
  plainKeywordMs: number;
  expansion?: ExpansionPlan;
  /** Misspelt words the keyword lists read as the vault's words ({@link spellingFixes}); the dense list read the question as typed. */
  spelling?: SpellingFix[];
  /** The question is one the model cannot read, by most of its characters or its language (see readable.ts): no dense list was asked for. */
  unread?: "characters" | "language";
  /** The display texts of links to the notes the keyword list matched by their backlink text, by path ({@link namedFirst}). */
  linkNames?: Map<string, string[]>;
  /** The question is a few rare words ({@link isRareLookup}): the keyword list's first passages lead a hybrid fusion. */
  rare?: true;
  /**
   * How many dense candidates the model cannot read ({@link unreadPassages}): left out of the dense
   * list, they are ranked by their words (in a dense search, `keyword` holds them).
   */
  setAside?: number;
  /** The passages of the keyword lists the model cannot read: a fusion ranks them by their words alone ({@link fuse}). */
  unreadIds?: Set<string>;
  /** The question's language, when told (readable.ts `questionLanguage`). */
  language?: string;
  /** The stems of the question's rarest words ({@link rarestWords}): a note they name may lead ({@link fuse}). */
  rarest?: RarestWords;
}

/**
 * Asks the store for a search's candidates: `n` per list in a single mode, and at least
 * `o.pool` per list for a hybrid fusion; the keyword list ranked also by how near the question's
 * adjacent words stand (`o.proximity`), and widened by WordNet synonyms when `o.expand` is on and
 * the best keyword hit holds few of the question's words ({@link planExpansion}). `search()` and `vault-rag eval` both rank what this returns, so
 * eval measures what a search does.
 *
 * @example
 * ```ts
 * const { dense, keyword } = await retrieve(ctx, "bring back a lost commit", withSearchDefaults(), {}, 18);
 * ```
 */
export async function retrieve(
  ctx: SearchContext,
  question: string,
  o: SearchOptionsWithDefaults,
  filter: QueryFilter,
  n: number,
  timings: { embedMs: number; retrieveMs: number } = { embedMs: 0, retrieveMs: 0 },
  partial?: VectorCoverage,
): Promise<Retrieved> {
  // passages without vectors (an index run's dense phase) are ranked by keyword in every mode: a
  // dense search fuses its list with the keyword list of those passages; so are passages the
  // model cannot read (another language than the English-only model's), whose vectors place
  // them at random (a keyword search ranks every passage by its words: nothing to judge)
  const judged = o.mode !== "keyword" && modelLanguages(ctx.embedder.model) !== "any";
  const words = o.mode !== "dense" || !!partial || judged;
  const vectors = o.mode !== "keyword" && (!partial || partial.withVectors > 0);
  const depth = o.mode === "hybrid" ? Math.max(n, o.pool) : n;
  let dense: ScoredRecord[] = [];
  let keyword: ScoredRecord[] = [];
  let plainKeyword: ScoredRecord[] = [];
  let plainKeywordMs = 0;
  let expansion: ExpansionPlan | undefined;
  let spelling: SpellingFix[] | undefined;
  let linkNames: Map<string, string[]> | undefined;
  let rare = false;
  let rarest: RarestWords | undefined;
  let setAside = 0;
  let byWords: Set<string> | undefined;
  const t0 = performance.now();
  // the question's language: its words are stemmed by it, WordNet expands English only, and the
  // model reads the languages its profile lists (see readable.ts)
  const held = await ctx.store.keywordLanguages?.();
  const language = await questionLanguage(question, held);
  // a question the model cannot read (Japanese, or German to the English-only bundled model: one
  // vector for every such question) would rank the notes at random; it is ranked by its words alone
  const unread =
    o.mode === "keyword"
      ? undefined
      : unreadable(ctx.embedder, question)
        ? ("characters" as const)
        : questionUnread(ctx.embedder.model, question, language, held ?? [])
          ? ("language" as const)
          : undefined;
  // start embedding first: on a cold start the model loads while the keyword query runs, and so
  // does the dense index (the embedded store reads its snapshot on a thread of its own)
  const vectorPromise = vectors && !unread ? ctx.embedder.embedQuery(question) : undefined;
  vectorPromise?.catch(() => undefined);
  const warming = vectorPromise ? ctx.store.warmDense?.() : undefined;
  // its code loads on this thread's event loop: the load begins before the keyword query holds it
  if (warming) await ctx.store.denseStarted?.();
  // a whereDocument filter is tested over every passage once, for the dense list and the keyword
  // lists alike, before them; a keyword-only search tests only the passages that hold its words
  if (o.mode !== "keyword" && filter.whereDocument && ctx.store.warmFilter) {
    const t = performance.now();
    await ctx.store.warmFilter(filter);
    timings.retrieveMs += performance.now() - t;
  }
  if (words) {
    const t = performance.now();
    const { proximity, backlinks } = o;
    // a misspelt word matches nothing: the keyword lists read the vault's word in its place
    if (o.spell && !isStemmedLanguage(language)) spelling = await spellingFixes(ctx.store, question, readableWordNet());
    const asked = spelling?.length ? withFixes(question, spelling) : question;
    keyword = plainKeyword = await ctx.store.queryKeyword(asked, depth, filter, { proximity, backlinks, language });
    plainKeywordMs = performance.now() - t;
    if (o.expand) {
      expansion = await planExpansion(ctx.store, asked, keyword[0], undefined, undefined, language);
      if (expansion)
        keyword = await ctx.store.queryKeyword(asked, depth, filter, { expansion, proximity, backlinks, language });
    }
    // (one list when nothing was added: its passages are judged once)
    if (judged)
      byWords = await judgePassages(
        ctx.embedder.model,
        keyword === plainKeyword ? keyword : [...keyword, ...plainKeyword],
      );
    if (o.mode === "dense") {
      const rest = partial ? await ctx.store.withoutVectors(keyword.map((r) => r.id)) : new Set<string>();
      keyword = keyword.filter((r) => rest.has(r.id) || byWords?.has(r.id));
      plainKeyword = plainKeyword.filter((r) => rest.has(r.id) || byWords?.has(r.id));
    }
    // a note may be named only by the links to it: its link texts are read for the notes whose
    // backlink text matched
    const linked = [...new Set(keyword.filter((r) => r.backlinked).map((r) => r.meta.path))];
    if (linked.length) linkNames = await ctx.store.linkNames(linked);
    rare = keyword.length > 0 && (await isRareLookup(ctx.store, asked, undefined, language));
    if (keyword.length) rarest = await rarestWords(ctx.store, asked, language);
    timings.retrieveMs += performance.now() - t;
  }
  if (vectorPromise) {
    await warming;
    const vector = await vectorPromise;
    timings.embedMs = performance.now() - t0 - timings.retrieveMs;
    const t2 = performance.now();
    dense = await ctx.store.queryDense(vector, depth, filter);
    if (judged) {
      // (a passage the keyword lists brought was judged there: unreadPassages remembers its text)
      const unread = await judgePassages(ctx.embedder.model, dense);
      setAside = unread.size;
      if (setAside) dense = dense.filter((r) => !unread.has(r.id));
    }
    timings.retrieveMs += performance.now() - t2;
  }
  return {
    dense,
    keyword,
    plainKeyword,
    plainKeywordMs,
    expansion,
    ...(spelling?.length ? { spelling } : {}),
    ...(unread ? { unread } : {}),
    ...(linkNames?.size ? { linkNames } : {}),
    ...(rare ? { rare: true as const } : {}),
    ...(rarest ? { rarest } : {}),
    ...(setAside ? { setAside } : {}),
    ...(byWords?.size ? { unreadIds: byWords } : {}),
    ...(language ? { language } : {}),
  };
}

/**
 * Turns the store's ranked lists into hits for the mode; given the question, a note it names (title,
 * alias, file name, or the display text of links to it in `linkNames`) comes first in keyword and
 * hybrid mode ({@link namedFirst}).
 */
export function fuse(
  o: Pick<SearchOptionsWithDefaults, "mode" | "fusion" | "alpha" | "rrfK">,
  dense: ScoredRecord[],
  keyword: ScoredRecord[],
  question?: string,
  found: Pick<Retrieved, "linkNames" | "rare" | "unreadIds" | "language" | "rarest"> & { partial?: boolean } = {},
): Hit[] {
  // a dense search ranks by its vectors alone, but where its keyword list holds the passages its
  // vectors cannot rank (`partial`: those without vectors yet, or that the model cannot read; see
  // retrieve): that list is fused as a hybrid's
  if (o.mode === "dense" && (!found.partial || !keyword.length)) return dense.map((r) => toHit(r, r.distance));
  let hits = fuseWords(o.mode === "dense" ? { ...o, mode: "hybrid" } : o, dense, keyword, found.unreadIds);
  // a lookup of rare words: the passages that hold them lead, whatever the model made of them
  if (found.rare && o.mode === "hybrid") hits = keywordLed(hits, keyword, RARE_DEFAULTS.top);
  // a note named by the question's rarest word, when the first hit lacks it, leads (title-lead.ts)
  hits = rarestTitledFirst(hits, found.rarest, found.language);
  // a question that names a note (its title, alias, file name or link text) finds that note first
  return question === undefined ? hits : namedFirst(hits, question, found.linkNames, found.language);
}

/**
 * The fused hits with the keyword list's first `top` passages first, in their fused order. A hit
 * moved up takes at most the distance of the place it takes, one moved down at least that of the
 * hit before it, so the list stays in order of distance.
 */
function keywordLed(hits: Hit[], keyword: ScoredRecord[], top: number): Hit[] {
  const lead = new Set(keyword.slice(0, top).map((r) => r.id));
  const first = hits.filter((h) => lead.has(h.id));
  if (!first.length) return hits;
  let before = -Infinity;
  return [...first, ...hits.filter((h) => !lead.has(h.id))].map((h, i) => {
    const distance = Math.max(before, Math.min(h.distance, hits[i].distance));
    before = distance;
    return distance === h.distance ? h : { ...h, distance, score: Math.max(0, 1 - distance) };
  });
}

function fuseWords(
  o: Pick<SearchOptionsWithDefaults, "mode" | "fusion" | "alpha" | "rrfK">,
  dense: ScoredRecord[],
  keyword: ScoredRecord[],
  unread?: ReadonlySet<string>,
): Hit[] {
  const byId = new Map<string, ScoredRecord>();
  for (const r of [...dense, ...keyword]) if (!byId.has(r.id)) byId.set(r.id, r);
  const kList: Ranked[] = keyword.map((r) => ({ id: r.id, score: -r.distance }));
  // a chunk in both lists is kept as the dense list gave it: the keyword list's mark goes with it
  const linked = new Set(keyword.filter((r) => r.backlinked).map((r) => r.id));
  if (o.mode === "keyword") {
    const best = kList[0]?.score || 1;
    return kList.map((r) => toHit(byId.get(r.id)!, 1 - r.score / best, linked.has(r.id) || undefined));
  }
  const dList: Ranked[] = dense.map((r) => ({ id: r.id, score: 1 - r.distance }));
  let fused: Ranked[];
  if (o.fusion === "rrf")
    fused = rrf(
      [dList, kList],
      [1 - o.alpha, o.alpha].map((w) => w * 2),
      o.rrfK,
    );
  else {
    // the dense list holds as many chunks as the pool could; a keyword list shorter than it brought
    // every chunk with a word of the query, and those it left out score 0, below its weakest match
    const kFloor = kList.length < dList.length ? 0 : undefined;
    fused = linearFusion([dList, kList], [1 - o.alpha, o.alpha], [undefined, kFloor]);
  }
  // a passage the model cannot read is in no dense list: its words stand for both halves, or the
  // fusion would weigh it by alpha alone beside passages that score in both (with no dense list,
  // as for a question the model cannot read, every passage is ranked by its words alike)
  if (unread?.size && o.alpha > 0 && dList.length)
    fused = fused
      .map((f) => (unread.has(f.id) ? { id: f.id, score: f.score / o.alpha } : f))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (o.fusion === "rrf") {
    const best = fused[0]?.score || 1;
    fused = fused.map((f) => ({ id: f.id, score: f.score / best }));
  }
  const rankIn = (list: Ranked[]) => new Map(list.map((r, i) => [r.id, i + 1]));
  const [dRank, kRank] = [rankIn(dList), rankIn(kList)];
  return fused.map((f) => ({
    ...toHit(byId.get(f.id)!, 1 - f.score, linked.has(f.id) || undefined),
    ranks: { dense: dRank.get(f.id), keyword: kRank.get(f.id) },
  }));
}

function toHit(r: ScoredRecord, distance: number, backlinked?: true): Hit {
  return {
    id: r.id,
    text: r.text,
    path: r.meta.path,
    title: r.meta.title,
    section: r.meta.section,
    distance,
    score: Math.max(0, 1 - distance),
    label: r.meta.section || r.meta.title,
    meta: r.meta,
    ...(backlinked ? { backlinked } : {}),
  };
}
