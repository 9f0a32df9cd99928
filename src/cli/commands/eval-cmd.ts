import fs from "node:fs";
import path from "node:path";
import { createEmbedder, DEFAULT_MODEL } from "../../embed/index.js";
import { VaultRagError } from "../../errors.js";
import { indexVault } from "../../indexing/index.js";
import { collectingLogger, silentLogger } from "../../log.js";
import {
  EVAL_MODES,
  evalSettingsFor,
  evaluate,
  filteredOut,
  prepareBeir,
  readKnownAnswers,
  type EvalResult,
  type EvalSetting,
  type Metrics,
} from "../../search/eval.js";
import { noteFix } from "../../closest.js";
import { printable } from "../printable.js";
import { shown } from "../../shown.js";
import type { SearchMode } from "../../search/index.js";
import { locate, openForQuery } from "../open.js";
import { progressReporter } from "../progress.js";
import { err, out } from "../io.js";

export interface EvalFlags {
  vault?: string;
  db?: string;
  modes?: string;
  sweep?: boolean;
  json?: boolean;
  quiet?: boolean;
  /** Also list each question with where each mode ranked its first answer. */
  questions?: boolean;
}

/** Settings to compare: each mode at the defaults, or with --sweep a grid of fusion parameters. */
export function evalSettings(modes: SearchMode[], sweep: boolean): EvalSetting[] {
  const out: EvalSetting[] = evalSettingsFor(modes);
  if (sweep) {
    const alpha = evalSettingsFor(["hybrid"])[0].alpha;
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
    for (const alpha of [0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9])
      out.push({ label: `linear α=${alpha}`, mode: "hybrid", fusion: "linear", alpha });
    for (const alpha of [0.5, 0.7, 0.9])
      for (const rrfK of [10, 60])
        out.push({ label: `rrf bm25 weight ${alpha} k=${rrfK}`, mode: "hybrid", fusion: "rrf", alpha, rrfK });
  }
  return out;
}

const pct = (x: number) => x.toFixed(3);

function table(rows: { setting: EvalSetting; metrics: Metrics }[], title: string): string {
  const head = `${title}\n${"setting".padEnd(28)} nDCG@10  R@1    R@5    R@10   R@100  MRR@10  p50 ms`;
  return [
    head,
    ...rows.map(
      ({ setting, metrics: m }) =>
        `${setting.label.padEnd(28)} ${pct(m.ndcg10)}    ${pct(m.recall1)}  ${pct(m.recall5)}  ${pct(m.recall10)}  ${pct(m.recall100)}  ${pct(m.mrr10)}   ${m.p50Ms.toFixed(1)}`,
    ),
  ].join("\n");
}

/**
 * One line per question, worst first: where each mode ranked its first answer (`–` beyond the first
 * 100 notes), its kind and its text: which questions a vault's search misses.
 *
 * @example
 * ```ts
 * questionLines(results);
 * // "per question: rank of the first answer (keyword dense hybrid), worst hybrid first\n  –  12   9  paraphrase  bring back a lost commit\n…"
 * ```
 */
export function questionLines(results: EvalResult[]): string {
  const rows = results[0]?.questions.map((q, j) => ({ q, ranks: results.map((r) => r.questions[j].rank) })) ?? [];
  const last = results.length - 1;
  const key = (r: number | null) => r ?? Infinity;
  rows.sort((a, b) => key(b.ranks[last]) - key(a.ranks[last]) || a.q.id.localeCompare(b.q.id));
  const cell = (r: number | null) => (r === null ? "–" : String(r)).padStart(3);
  const kindWidth = Math.max(0, ...rows.map((x) => (x.q.kind ?? "").length));
  return [
    `per question: rank of the first answer (${results.map((r) => r.setting.mode).join(" ")}), worst ${results[last]?.setting.mode} first`,
    ...rows.map(
      ({ q, ranks }) => `${ranks.map(cell).join(" ")}  ${(q.kind ?? "").padEnd(kindWidth)}  ${printable(q.question)}`,
    ),
  ].join("\n");
}

/** `vault-rag eval <dir-or-file>`: retrieval quality per mode on a BEIR folder or a known-answer file. */
export async function runEval(target: string, o: EvalFlags): Promise<void> {
  const modes = (o.modes ?? EVAL_MODES.join(",")).split(",").map((m) => m.trim()) as SearchMode[];
  for (const m of modes)
    if (!EVAL_MODES.includes(m))
      throw new VaultRagError("usage", `vault-rag: unknown mode "${m}" in --modes — use keyword, dense, hybrid`);
  const settings = evalSettings(modes, !!o.sweep);
  const abs = path.resolve(target);
  if (!fs.existsSync(abs))
    throw new VaultRagError(
      "usage",
      `vault-rag: ${abs} does not exist — give a BEIR folder or a known-answer .jsonl file`,
    );
  let loc;
  let qrels;
  let title;
  if (fs.statSync(abs).isDirectory()) {
    const prepared = prepareBeir(abs);
    loc = locate({ vault: prepared.vault });
    qrels = prepared.qrels;
    title = `${path.basename(abs)} (BEIR, ${qrels.queries.length} queries, index cached at ${loc.db})`;
    const log = collectingLogger(silentLogger);
    const progress = progressReporter(process.stderr, !o.quiet && !o.json);
    if (!o.quiet && !o.json) err(`indexing the corpus into ${loc.db} (once; later runs reuse it)`);
    await indexVault(loc.vault, loc.db, createEmbedder(DEFAULT_MODEL, { log }), {
      log,
      onProgress: (phase, d, t) => phase === "index" && progress.update(d, t),
    });
    progress.stop();
  } else {
    loc = locate({ vault: o.vault, db: o.db });
    qrels = readKnownAnswers(abs);
    const n = qrels.queries.length;
    title = `${path.basename(abs)} over ${loc.vault} (${n} question${n === 1 ? "" : "s"})`;
  }
  const { store, embedder } = await openForQuery(loc, { log: silentLogger });
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
      err(`vault-rag: ${listed}; ${fix}; questions expecting only these score 0`);
    }
    // a question whose own filter leaves out its answer (a folder in another case) scores 0 silently too
    for (const q of await filteredOut(store, qrels))
      err(
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
    const all = await evaluate({ store, embedder }, qrels, settings);
    // the per-question rows only when asked (809 SciFact queries × a sweep's 30 settings otherwise)
    const results = o.questions ? all : all.map(({ questions: _, ...r }) => r);
    if (o.json) {
      out(JSON.stringify({ title, results }, null, 2));
      return;
    }
    out(table(results, title));
    const kinds = Object.keys(results[0]?.byKind ?? {});
    for (const k of kinds)
      out(
        "\n" +
          table(
            results.map((r) => ({ setting: r.setting, metrics: r.byKind[k] })),
            `  ${k} questions`,
          ),
      );
    if (o.questions) out("\n" + questionLines(all.slice(0, modes.length)));
  } finally {
    await store.close();
  }
}
