import { evaluateTarget, type EvalResult, type EvalSetting, type Metrics } from "../../core/eval.js";
import { printable } from "../../shared/snippet-text.js";
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
  rerank?: string;
  rerankDepth?: string;
  modelDir?: string;
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
  const talk = !o.quiet && !o.json;
  const progress = progressReporter(process.stderr, talk);
  const {
    title,
    results: all,
    modes,
  } = await evaluateTarget(target, o, {
    indexing: (db) => talk && err(`indexing the corpus into ${db} (once; later runs reuse it)`),
    progress: (d, t) => progress.update(d, t),
    warn: err,
  }).finally(() => progress.stop());
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
  if (o.questions) out("\n" + questionLines(all.slice(0, modes)));
}
