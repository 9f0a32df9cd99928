/**
 * Retrieval quality on known answers (`vault-rag eval`): a BEIR folder (its corpus indexed once
 * into a cache) or a known-answer `.jsonl` file over a vault, each mode or setting measured by
 * nDCG@10, recall and MRR.
 */
import fs from "node:fs";
import path from "node:path";
import { resolveDb, resolveVault } from "../config.js";
import { createEmbedder, DEFAULT_MODEL } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import { indexVault } from "../indexing/index.js";
import { collectingLogger, silentLogger } from "../log.js";
import {
  EVAL_MODES,
  evalSettingsFor,
  evaluate,
  filteredOut,
  prepareBeir,
  readKnownAnswers,
  type EvalResult,
  type EvalSetting,
} from "../search/eval.js";
import { noteFix } from "../closest.js";
import { shown } from "../shown.js";
import { createReranker, RERANK_DEFAULTS, rerankerKind, type Reranker } from "../rerank/index.js";
import type { SearchMode } from "../search/index.js";
import { openForQuery } from "./open-query.js";

export { EVAL_MODES, type EvalResult, type EvalSetting, type Metrics } from "../search/eval.js";

/** Settings to compare: each mode at the defaults, or with --sweep a grid of fusion parameters. */
/**
 * @example
 * ```ts
 * evalSettings(["keyword", "hybrid"], false).map((s) => s.label); // ["keyword", "hybrid"]
 * ```
 */
export function evalSettings(
  modes: SearchMode[],
  sweep: boolean,
  rerank?: { spec: string; depths: number[] },
  model?: string,
): EvalSetting[] {
  const out: EvalSetting[] = evalSettingsFor(modes, model);
  // the default hybrid, reranked at each depth
  const hybrid = evalSettingsFor(["hybrid"], model)[0];
  for (const d of rerank?.depths ?? [])
    out.push({ ...hybrid, label: `hybrid + rerank@${d}`, rerank: rerank!.spec, rerankDepth: d });
  if (sweep) {
    const alpha = evalSettingsFor(["hybrid"], model)[0].alpha;
    // what the keyword list's two additions bring: each row leaves one out
    for (const [what, off] of [
      ["no synonyms", { expand: false }],
      ["no near pairs", { proximity: false }],
      ["no backlink text", { backlinks: false }],
      ["no spelling fixes", { spell: false }],
    ] as const) {
      if (modes.includes("keyword")) out.push({ label: `keyword, ${what}`, mode: "keyword", ...off });
      if (modes.includes("hybrid"))
        out.push({ label: `hybrid, ${what}`, mode: "hybrid", fusion: "linear", alpha, ...off });
    }
    for (const alpha of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9])
      out.push({ label: `linear α=${alpha}`, mode: "hybrid", fusion: "linear", alpha });
    for (const alpha of [0.5, 0.7, 0.9])
      for (const rrfK of [10, 60])
        out.push({ label: `rrf bm25 weight ${alpha} k=${rrfK}`, mode: "hybrid", fusion: "rrf", alpha, rrfK });
  }
  return out;
}

/** What {@link evaluateTarget} reports while it works: progress of a first index, and warnings. */
export interface EvalReport {
  /** A first index of a BEIR corpus is starting (into `db`). */
  indexing?: (db: string) => void;
  /** Notes indexed so far of a BEIR corpus. */
  progress?: (done: number, total: number) => void;
  /** A warning line (an expected path no note has, a filter that leaves out its answer). */
  warn?: (line: string) => void;
}

/**
 * Measures retrieval on a BEIR folder or a known-answer file: each of `modes` at the defaults, or
 * with `sweep` a grid of fusion settings (`modes`: how many of the results are the modes at the defaults, first). A question whose expected notes are not in the index is
 * warned of; a file none of whose questions can score is refused.
 *
 * @example
 * ```ts
 * const { title, results } = await evaluateTarget("examples/questions.jsonl", { vault: "examples/vault" });
 * results[2].metrics.ndcg10; // 0.923
 * ```
 */
export async function evaluateTarget(
  target: string,
  o: {
    vault?: string;
    db?: string;
    modes?: string;
    sweep?: boolean;
    /** Also measure the default hybrid reranked by this reranker, at each of `rerankDepth` (default 50). */
    rerank?: string;
    /** Depths to rerank at, comma-separated (`20,50,100`). */
    rerankDepth?: string;
    /** Where a `transformers:` reranker's folder is. */
    modelDir?: string;
  },
  report: EvalReport = {},
): Promise<{ title: string; results: EvalResult[]; modes: number }> {
  const modes = (o.modes ?? EVAL_MODES.join(",")).split(",").map((m) => m.trim()) as SearchMode[];
  for (const m of modes)
    if (!EVAL_MODES.includes(m))
      throw new VaultRagError("usage", `vault-rag: unknown mode "${m}" in --modes — use keyword, dense, hybrid`);
  const depths = (o.rerankDepth ?? String(RERANK_DEFAULTS.depth)).split(",").map((d) => d.trim());
  if (o.rerank !== undefined) {
    rerankerKind(o.rerank);
    for (const d of depths)
      if (!/^\d+$/.test(d) || Number(d) < 1)
        throw new VaultRagError(
          "usage",
          `vault-rag: --rerank-depth takes whole numbers of at least 1, comma-separated (20,50,100), got "${d}"`,
        );
  }
  const rerank = o.rerank === undefined ? undefined : { spec: o.rerank, depths: depths.map(Number) };
  const abs = path.resolve(target);
  if (!fs.existsSync(abs))
    throw new VaultRagError(
      "usage",
      `vault-rag: ${abs} does not exist — give a BEIR folder or a known-answer .jsonl file`,
    );
  let db: string;
  let qrels;
  let title;
  if (fs.statSync(abs).isDirectory()) {
    const prepared = prepareBeir(abs);
    const vault = resolveVault(prepared.vault);
    db = resolveDb(vault, undefined);
    qrels = prepared.qrels;
    title = `${path.basename(abs)} (BEIR, ${qrels.queries.length} queries, index cached at ${db})`;
    const log = collectingLogger(silentLogger);
    report.indexing?.(db);
    await indexVault(vault, db, createEmbedder(DEFAULT_MODEL, { log }), {
      log,
      onProgress: (phase, d, t) => phase === "index" && report.progress?.(d, t),
    });
  } else {
    const vault = resolveVault(o.vault);
    db = resolveDb(vault, o.db);
    qrels = readKnownAnswers(abs);
    const n = qrels.queries.length;
    title = `${path.basename(abs)} over ${vault} (${n} question${n === 1 ? "" : "s"})`;
  }
  const warn = report.warn ?? (() => {});
  const { store, embedder } = await openForQuery(db, { log: silentLogger });
  try {
    // an expected path that is no note in the index can never be found: say so, or it scores 0 silently
    const indexed = new Set((await store.notes()).keys());
    const unknown = [...new Set([...qrels.relevant.values()].flatMap((ps) => [...ps]))].filter((p) => !indexed.has(p));
    if (unknown.length) {
      // the fix for the first: the note it most likely means ("semaphore.md" for Semaphore.md), or
      // a path of this vault's own as the example
      const listed = `${unknown.length} expected path${unknown.length === 1 ? " is" : "s are"} not a note in the index (${unknown
        .slice(0, 3)
        .map((p) => `"${p}"`)
        .join(", ")}${unknown.length > 3 ? ", …" : ""}) — paths are vault-relative, as the index names notes`;
      const fix = noteFix(unknown[0], [...indexed]);
      const hopeless = [...qrels.relevant.values()].every((ps) => [...ps].every((p) => !indexed.has(p)));
      // no question can score: a table of zeros would read as a measurement
      if (hopeless)
        throw new VaultRagError("usage", `vault-rag: no question's expected note is in the index: ${listed}; ${fix}`);
      warn(`vault-rag: ${listed}; ${fix}; questions expecting only these score 0`);
    }
    // a question whose own filter leaves out its answer (a folder in another case) scores 0 silently too
    for (const q of await filteredOut(store, qrels))
      warn(
        `vault-rag: ${abs} line ${q.id}: its filter ${shown(q.where)} leaves out ${q.paths.length === 1 ? "the note it expects" : "every note it expects"} (${q.paths
          .slice(0, 2)
          .map((p) => `"${p}"`)
          .join(
            ", ",
          )}${q.paths.length > 2 ? ", …" : ""}, in ${q.folders.length === 1 ? "folder" : "folders"} ${q.folders
          .slice(0, 2)
          .map((f) => `"${f}"`)
          .join(", ")}) — it scores 0 as written; fix the filter or the paths`,
      );
    const rerankers = new Map<string, Reranker>();
    const reranker = (spec: string) =>
      rerankers.get(spec) ?? rerankers.set(spec, createReranker(spec, { modelDir: o.modelDir })).get(spec)!;
    const settings = evalSettings(modes, !!o.sweep, rerank, embedder.model);
    return { title, results: await evaluate({ store, embedder }, qrels, settings, { reranker }), modes: modes.length };
  } finally {
    await store.close();
  }
}
