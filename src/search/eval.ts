import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { createReranker, RERANK_DEFAULTS, type Reranker } from "../rerank/index.js";
import { diversify, namedFirst } from "./rank.js";
import { rerankHits } from "./rerank.js";
import { judgePassages } from "./readable.js";
import { fuse, retrieve, withSearchDefaults, type Retrieved } from "./search.js";
import { SEARCH_DEFAULTS, type SearchMode } from "./types.js";
import { matchesWhere, normaliseWhere, type ScoredRecord, type Store, type Where } from "../store/index.js";

/** A retrieval benchmark: queries with their relevant item ids. */
export interface Qrels {
  /** `where`: the question is asked with this filter (as `--where` takes it), like a user who limits a search. */
  queries: { id: string; text: string; kind?: string; where?: Where }[];
  relevant: Map<string, Set<string>>;
}

/** Metrics of one run, averaged over queries. */
export interface Metrics {
  ndcg10: number;
  recall1: number;
  recall5: number;
  recall10: number;
  recall100: number;
  mrr10: number;
  queries: number;
  p50Ms: number;
}

/**
 * Scores one ranked list against the relevant set (binary relevance).
 *
 * @example
 * ```ts
 * scoreRanking(["a", "x", "b"], new Set(["a", "b"])).ndcg10; // (1 + 1/log2(4)) / (1 + 1/log2(3))
 * ```
 */
export function scoreRanking(ranked: string[], relevant: Set<string>): Omit<Metrics, "queries" | "p50Ms"> {
  const seen = new Set<string>();
  const list = ranked.filter((id) => (seen.has(id) ? false : (seen.add(id), true)));
  let dcg = 0;
  for (let i = 0; i < Math.min(10, list.length); i++) if (relevant.has(list[i])) dcg += 1 / Math.log2(i + 2);
  let idcg = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  const hitsAt = (k: number) => list.slice(0, k).filter((id) => relevant.has(id)).length / (relevant.size || 1);
  const first = list.slice(0, 10).findIndex((id) => relevant.has(id));
  return {
    ndcg10: idcg ? dcg / idcg : 0,
    recall1: hitsAt(1),
    recall5: hitsAt(5),
    recall10: hitsAt(10),
    recall100: hitsAt(100),
    mrr10: first >= 0 ? 1 / (first + 1) : 0,
  };
}

/** Averages per-query scores. */
export function averageMetrics(scores: Omit<Metrics, "queries" | "p50Ms">[], times: number[]): Metrics {
  const n = scores.length || 1;
  const avg = (k: keyof Omit<Metrics, "queries" | "p50Ms">) => scores.reduce((s, x) => s + x[k], 0) / n;
  const sorted = [...times].sort((a, b) => a - b);
  return {
    ndcg10: avg("ndcg10"),
    recall1: avg("recall1"),
    recall5: avg("recall5"),
    recall10: avg("recall10"),
    recall100: avg("recall100"),
    mrr10: avg("mrr10"),
    queries: scores.length,
    p50Ms: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0,
  };
}

const readJsonl = (file: string, kind = "a BEIR file") =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .map((l, i) => ({ l, n: i + 1 }))
    .filter(({ l }) => l.trim())
    .map(({ l, n }) => {
      try {
        return JSON.parse(l) as Record<string, string>;
      } catch {
        throw new VaultRagError(
          "usage",
          `vault-rag: ${file} line ${n} is not JSON — ${kind} holds one JSON object per line`,
        );
      }
    });

/**
 * Reads a BEIR folder (`corpus.jsonl`, `queries.jsonl`, `qrels.tsv` or `qrels/test.tsv`) and
 * writes its corpus as Markdown notes (one per document, `<id>.md`, title in frontmatter) into a
 * cache folder keyed by the corpus's content, so the normal indexer builds — and caches — its index.
 */
export function prepareBeir(dir: string, cacheRoot = defaultCacheRoot()): { vault: string; qrels: Qrels } {
  const abs = path.resolve(dir);
  const corpusFile = path.join(abs, "corpus.jsonl");
  const qrelsFile = [path.join(abs, "qrels.tsv"), path.join(abs, "qrels", "test.tsv")].find((f) => fs.existsSync(f));
  if (!fs.existsSync(corpusFile) || !fs.existsSync(path.join(abs, "queries.jsonl")) || !qrelsFile)
    throw new VaultRagError(
      "usage",
      `vault-rag: ${abs} is not a BEIR folder — it needs corpus.jsonl, queries.jsonl and qrels.tsv`,
    );
  // keyed by what the corpus holds (8 MB hash in about 20 ms), not by its file's time: a copy of the
  // same corpus, or the same file touched, reuses the index instead of embedding it all again
  const key = createHash("sha256").update(fs.readFileSync(corpusFile)).digest("hex").slice(0, 12);
  const vault = path.join(cacheRoot, `${path.basename(abs)}-${key}`);
  const done = path.join(vault, ".vault-rag-corpus-complete");
  if (!fs.existsSync(done)) {
    fs.mkdirSync(path.join(vault, "docs"), { recursive: true });
    for (const d of readJsonl(corpusFile)) {
      const id = String(d._id);
      const safe = id.replace(/[^A-Za-z0-9._-]/g, "_");
      fs.writeFileSync(
        path.join(vault, "docs", `${safe}.md`),
        `---\ntitle: ${JSON.stringify(d.title || id)}\nbeir_id: ${JSON.stringify(id)}\n---\n${d.text ?? ""}\n`,
      );
    }
    fs.writeFileSync(done, new Date().toISOString());
  }
  const relevant = new Map<string, Set<string>>();
  const lines = fs.readFileSync(qrelsFile, "utf8").split("\n").slice(1);
  for (const l of lines) {
    const [q, doc, score] = l.split("\t");
    if (!q || !doc || Number(score) <= 0) continue;
    if (!relevant.has(q)) relevant.set(q, new Set());
    relevant.get(q)!.add(`docs/${doc.replace(/[^A-Za-z0-9._-]/g, "_")}.md`);
  }
  const queries = readJsonl(path.join(abs, "queries.jsonl"))
    .map((q) => ({ id: String(q._id), text: q.text }))
    .filter((q) => relevant.has(q.id));
  return { vault, qrels: { queries, relevant } };
}

/**
 * Reads a known-answer file over a vault: JSON lines `{"question", "paths": [...], "kind"?,
 * "filter"?}`, where `filter` is a `where` object in Chroma's language (`{"folder": "git"}`) that
 * the question is asked with. A filter is validated here, so a typo names its line.
 *
 * @example
 * ```ts
 * readKnownAnswers("examples/questions.jsonl").queries.length; // 62
 * ```
 */
export function readKnownAnswers(file: string): Qrels {
  const queries: Qrels["queries"] = [];
  const relevant = new Map<string, Set<string>>();
  const rows = readJsonl(file, "a known-answer file");
  if (!rows.length)
    throw new VaultRagError(
      "usage",
      `vault-rag: ${file} holds no questions — write one JSON object per line, like {"question": "how do I save power", "paths": ["electronics/Pico W.md"]}`,
    );
  rows.forEach((row, i) => {
    const r = row as unknown as { question?: string; paths?: string[]; kind?: string; filter?: Where };
    if (!r.question || !Array.isArray(r.paths) || !r.paths.length) {
      // a field no known-answer line has (`relevant`, `answers`, `query`) is likely the one meant
      const known = new Set(["question", "paths", "kind", "filter"]);
      const other = Object.keys(row).filter((k) => !known.has(k));
      throw new VaultRagError(
        "usage",
        `vault-rag: ${file} line ${i + 1} needs "question" and a non-empty "paths" list (the notes that answer it)${other.length ? `; it has ${other.map((k) => JSON.stringify(k)).join(", ")}, which eval does not read` : ""} — write {"question": "how do I save power", "paths": ["electronics/Pico W.md"]}`,
      );
    }
    if (r.filter !== undefined) {
      try {
        normaliseWhere(r.filter);
      } catch (err) {
        throw new VaultRagError(
          "usage",
          `vault-rag: ${file} line ${i + 1} has a bad "filter": ${(err as Error).message.replace(/^vault-rag: /, "")}`,
        );
      }
    }
    const id = String(i + 1);
    queries.push({ id, text: r.question, kind: r.kind, ...(r.filter !== undefined ? { where: r.filter } : {}) });
    relevant.set(id, new Set(r.paths));
  });
  return { queries, relevant };
}

/**
 * The questions whose own filter leaves out every note expected to answer them (a folder typed in
 * another case, a tag no note has): as they stand they can only score 0, so eval names them. Notes
 * the index holds no chunk of are not judged (eval names paths that are no note apart).
 *
 * @example
 * ```ts
 * (await filteredOut(store, readKnownAnswers("questions.jsonl"))).map((q) => q.id); // ["12"]: its line
 * ```
 */
export async function filteredOut(
  store: Store,
  qrels: Qrels,
): Promise<{ id: string; where: Where; paths: string[]; folders: string[] }[]> {
  const found: { id: string; where: Where; paths: string[]; folders: string[] }[] = [];
  for (const q of qrels.queries) {
    const node = q.where === undefined ? undefined : normaliseWhere(q.where);
    if (!node) continue;
    const paths = [...qrels.relevant.get(q.id)!];
    const folders = new Set<string>();
    let passes = false;
    for (const p of paths) {
      const records = await store.get({ path: p });
      for (const r of records) folders.add(r.meta.folder);
      if ((passes = records.some((r) => matchesWhere(node, r.meta)))) break;
    }
    if (!passes && folders.size) found.push({ id: q.id, where: q.where!, paths, folders: [...folders] });
  }
  return found;
}

/** Where eval caches its corpora and indexes: `$XDG_CACHE_HOME/vault-rag/eval`, else `~/.cache/vault-rag/eval`. */
export function defaultCacheRoot(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "vault-rag", "eval");
}

/** The modes an evaluation compares by default. */
export const EVAL_MODES: SearchMode[] = ["keyword", "dense", "hybrid"];

/** One retrieval setting to evaluate. */
export interface EvalSetting {
  label: string;
  mode: SearchMode;
  fusion?: "linear" | "rrf";
  alpha?: number;
  rrfK?: number;
  /** Rank by the keyword list before its WordNet expansion (default: as a search does, expanded). */
  expand?: boolean;
  /** false: rank by a keyword list without near pairs (default: as a search does, with them). */
  proximity?: boolean;
  /** false: rank by a keyword list without backlink text (default: as a search does, with it). */
  backlinks?: boolean;
  /** false: rank by a keyword list of the words as typed, misspelt ones too (default: as a search does, fixed). */
  spell?: boolean;
  /** Rerank the fused top `rerankDepth` with this reranker (a spec), as a search with `rerank` does. */
  rerank?: string;
  /** How many fused candidates the reranker reorders (default `RERANK_DEFAULTS.depth`). */
  rerankDepth?: number;
}

/** The keyword list a setting ranks: "" as a search ranks it, else what it leaves out ("far", "unlinked", "typed", "far-unlinked"). */
function keywordVariant(st: EvalSetting): string {
  return [st.proximity === false && "far", st.backlinks === false && "unlinked", st.spell === false && "typed"]
    .filter(Boolean)
    .join("-");
}

/** The search options of a setting's keyword list: what it leaves out (a weight of 0, or spelling off). */
function variantOptions(st: EvalSetting): { proximity?: number; backlinks?: number; spell?: boolean } {
  return {
    ...(st.proximity === false ? { proximity: 0 } : {}),
    ...(st.backlinks === false ? { backlinks: 0 } : {}),
    ...(st.spell === false ? { spell: false } : {}),
  };
}

/**
 * The passages of a keyword list that a hybrid fusion ranks by their words alone (see
 * `Retrieved.unreadIds`): a keyword search judges none, so eval judges them for its hybrid settings.
 */
function unreadOf(ctx: { embedder: { model: string } }, ...lists: ScoredRecord[][]): Promise<Set<string>> {
  return judgePassages(ctx.embedder.model, lists.flat());
}

/**
 * Runs every query once against the store through the search's own {@link retrieve} (one query
 * embedding, one dense and one BM25 list of `pool` candidates — the search's default depth — with
 * the question's own filter when it has one, and the keyword list expanded as a search expands
 * it) and scores each setting on those lists, so sweeps cost no extra retrieval. Items are note paths; each note counts once (its
 * best chunk). Each setting's p50 is the time its mode waits for: BM25 alone, embedding plus kNN,
 * or both.
 */
export async function evaluate(
  ctx: { store: import("../store/index.js").Store; embedder: import("../embed/index.js").Embedder },
  qrels: Qrels,
  settings: EvalSetting[],
  opts: {
    pool?: number;
    depth?: number;
    onProgress?: (done: number, total: number) => void;
    /** The reranker of a setting's `rerank` spec (default: {@link createReranker}, one per spec). */
    reranker?: (spec: string) => Reranker;
  } = {},
): Promise<EvalResult[]> {
  const pool = opts.pool ?? SEARCH_DEFAULTS.pool;
  const made = new Map<string, Reranker>();
  const rerankerOf =
    opts.reranker ?? ((spec: string) => made.get(spec) ?? made.set(spec, createReranker(spec)).get(spec)!);
  // per setting, the time each question's reranking took (added to its mode's time)
  const rerankMs = settings.map(() => [] as number[]);
  const depth = opts.depth ?? 100;
  // per setting, each question's result and its full scores (averaged below)
  const scores = settings.map(() => [] as { q: QuestionResult; s: ReturnType<typeof scoreRanking> }[]);
  // time per mode: what a search in that mode waits for (keyword: BM25; dense: embed + kNN; hybrid: both)
  // "-plain": the same without the keyword query's synonyms (its first query, timed on its own);
  // "-far", "-unlinked": without near pairs, without backlink text (keyword queries of their own,
  // run only when a setting asks)
  const times: Record<string, number[]> = {};
  const time = (key: string, ms: number) => (times[key] ??= []).push(ms);
  const variants = new Map(settings.filter(keywordVariant).map((st) => [keywordVariant(st), variantOptions(st)]));
  let done = 0;
  for (const q of qrels.queries) {
    const filter = { where: normaliseWhere(q.where) };
    const t0 = performance.now();
    // a dense search's keyword list holds only the passages its vectors cannot rank (see retrieve)
    const { dense, ...byWords } = await retrieve(ctx, q.text, withSearchDefaults({ mode: "dense" }), filter, pool);
    const t2 = performance.now();
    const byKeyword = await retrieve(ctx, q.text, withSearchDefaults({ mode: "keyword" }), filter, pool);
    const { keyword, plainKeyword, plainKeywordMs } = byKeyword;
    const t3 = performance.now();
    time("keyword", t3 - t2);
    time("dense", t2 - t0);
    time("hybrid", t3 - t0);
    time("keyword-plain", plainKeywordMs);
    time("hybrid-plain", t2 - t0 + plainKeywordMs);
    const lists = new Map<string, Omit<Retrieved, "dense">>([
      ["", { ...byKeyword, unreadIds: await unreadOf(ctx, keyword, plainKeyword) }],
    ]);
    for (const [v, off] of variants) {
      const t4 = performance.now();
      const other = await retrieve(ctx, q.text, withSearchDefaults({ mode: "keyword", ...off }), filter, pool);
      const ms = performance.now() - t4;
      lists.set(v, { ...other, unreadIds: await unreadOf(ctx, other.keyword, other.plainKeyword) });
      time(`keyword-${v}`, ms);
      time(`hybrid-${v}`, t2 - t0 + ms);
      time(`keyword-${v}-plain`, other.plainKeywordMs);
      time(`hybrid-${v}-plain`, t2 - t0 + other.plainKeywordMs);
    }
    const relevant = qrels.relevant.get(q.id)!;
    for (const [i, st] of settings.entries()) {
      const list = st.mode === "dense" ? { ...byWords, partial: true } : lists.get(keywordVariant(st))!;
      let hits = fuse(
        { mode: st.mode, fusion: st.fusion ?? "linear", alpha: st.alpha ?? SEARCH_DEFAULTS.alpha, rrfK: st.rrfK ?? 60 },
        dense,
        st.expand === false ? list.plainKeyword : list.keyword,
        q.text,
        list,
      );
      if (st.rerank) {
        // as search() reranks: the fused top, then a note the question names first again
        const t = performance.now();
        hits = await rerankHits(hits, q.text, rerankerOf(st.rerank), st.rerankDepth ?? RERANK_DEFAULTS.depth);
        if (st.mode !== "dense") hits = namedFirst(hits, q.text, list.linkNames, list.language);
        rerankMs[i].push(performance.now() - t);
      }
      const ranked = diversify(hits, depth, 1).map((h) => h.path);
      const s = scoreRanking(ranked, relevant);
      const at = ranked.findIndex((p) => relevant.has(p));
      scores[i].push({
        q: {
          id: q.id,
          question: q.text,
          ...(q.kind ? { kind: q.kind } : {}),
          rank: at < 0 ? null : at + 1,
          ndcg10: s.ndcg10,
        },
        s,
      });
    }
    opts.onProgress?.(++done, qrels.queries.length);
  }
  return settings.map((setting, i) => {
    const byKind: Record<string, Metrics> = {};
    const kinds = [...new Set(scores[i].map((x) => x.q.kind).filter((k): k is string => !!k))];
    const t = times[
      setting.mode === "dense"
        ? "dense"
        : [setting.mode, keywordVariant(setting), setting.expand === false && "plain"].filter(Boolean).join("-")
    ].map((ms, j) => ms + (rerankMs[i][j] ?? 0));
    for (const k of kinds)
      byKind[k] = averageMetrics(
        scores[i].filter((x) => x.q.kind === k).map((x) => x.s),
        t.filter((_, j) => qrels.queries[j].kind === k),
      );
    return {
      setting,
      metrics: averageMetrics(
        scores[i].map((x) => x.s),
        t,
      ),
      byKind,
      questions: scores[i].map((x) => x.q),
    };
  });
}

/** How one question fared in one setting: where its first answer note ranked, and its nDCG@10. */
export interface QuestionResult {
  id: string;
  question: string;
  kind?: string;
  /** 1-based rank of the first note that answers it, among the first 100 notes; `null` when none is there. */
  rank: number | null;
  ndcg10: number;
}

/** One setting's results: overall, per kind, and per question. */
export interface EvalResult {
  setting: EvalSetting;
  metrics: Metrics;
  byKind: Record<string, Metrics>;
  questions: QuestionResult[];
}

/** The default setting of each mode (hybrid with the default fusion, at the weight of the index's `model`). */
export function evalSettingsFor(modes: SearchMode[], model?: string): EvalSetting[] {
  const { alpha } = withSearchDefaults({}, model);
  return modes.map((mode) => ({
    label: mode === "hybrid" ? `hybrid (${SEARCH_DEFAULTS.fusion}, α=${alpha})` : mode,
    mode,
    fusion: SEARCH_DEFAULTS.fusion,
    alpha,
  }));
}
