import type { MeasuredModel, ModelHint } from "../../core/measured.js";
import { MODELS_NOTE, recommendedModels, type RecommendedModel } from "../../core/models.js";
import { shellArg } from "../../shell-arg.js";
import { out } from "../io.js";

/**
 * The `vault-rag index` command that switches a vault's index to a model: with the vault's path
 * when given, else in the vault of the working directory.
 *
 * @example
 * ```ts
 * switchCommand("transformers:Xenova/bge-small-en-v1.5", "/home/me/notes");
 * // "vault-rag index /home/me/notes --full --model transformers:Xenova/bge-small-en-v1.5"
 * ```
 */
export function switchCommand(spec: string, vault?: string): string {
  return `vault-rag index${vault ? ` ${shellArg(vault)}` : ""} --full --model ${shellArg(spec)}`;
}

/**
 * The one command that switches to a hint's model: `models pull … --use` when its files must be
 * fetched first, else the `index --full`.
 *
 * @example
 * ```ts
 * hintCommand({ model: "transformers:a/b", pull: { repo: "a/b", dtype: "fp32" }, … }, "/home/me/notes");
 * // "vault-rag models pull a/b --dtype fp32 --use --vault /home/me/notes"
 * ```
 */
export function hintCommand(hint: ModelHint, vault?: string): string {
  if (!hint.pull) return switchCommand(hint.model, vault);
  const dtype = hint.pull.dtype === "q8" ? "" : ` --dtype ${hint.pull.dtype}`;
  return `vault-rag models pull ${shellArg(hint.pull.repo)}${dtype} --use${vault ? ` --vault ${shellArg(vault)}` : ""}`;
}

/**
 * The hint after a first index and in `status`: the strongest model measured here, its gain over
 * the index's model, and the one command that switches.
 *
 * @example
 * ```ts
 * hintLine({ model: "transformers:a/b", current: "use-lite", score: 0.83, currentScore: 0.779, gain: 0.051, … });
 * // "stronger model: transformers:a/b reaches 0.830 nDCG@10 on til (hybrid) here, +0.051 over use-lite (0.779) — switch: vault-rag index --full --model transformers:a/b"
 * ```
 */
export function hintLine(hint: ModelHint, vault?: string): string {
  return `stronger model: ${hint.model} reaches ${hint.score.toFixed(3)} nDCG@10 on til (hybrid) here, +${hint.gain.toFixed(3)} over ${hint.current} (${hint.currentScore.toFixed(3)}) — switch: ${hintCommand(hint, vault)}`;
}

const figure = (x: number | undefined) => (x === undefined ? "not measured" : x.toFixed(3));

/**
 * The figures measured here, on one line: nDCG@10 on til and SciFact train (hybrid, with dense
 * alone), and windows per second.
 *
 * @example
 * ```ts
 * measuredLine(measuredFigures("use-lite")!);
 * // "til 0.778 (dense 0.433) · SciFact train 0.701 (dense 0.249) · 26.1 / 43.9 windows/s on 1 / 2 threads"
 * ```
 */
export function measuredLine(m: MeasuredModel): string {
  const { threads1, threads2 } = m.windowsPerSecond;
  const speed =
    threads1 === undefined && threads2 === undefined
      ? "windows/s not measured"
      : threads1 === undefined || threads2 === undefined
        ? `${(threads1 ?? threads2)!.toFixed(1)} windows/s on ${threads1 === undefined ? 2 : 1} thread${threads1 === undefined ? "s" : ""}`
        : `${threads1.toFixed(1)} / ${threads2.toFixed(1)} windows/s on 1 / 2 threads`;
  return `til ${figure(m.til.hybrid)} (dense ${figure(m.til.dense)}) · SciFact train ${figure(m.scifact.hybrid)} (dense ${figure(m.scifact.dense)}) · ${speed}`;
}

/** One model as lines of text: name, facts, measured figures, published scores, the commands that switch to it. */
function modelLines(m: RecommendedModel, current: string | undefined): string[] {
  const lines = [
    `${m.id}${m.id === current ? "   ← the index uses this model" : ""}`,
    `  ${m.languages}, ${m.dimensions}-d, ${m.parameters}${/^\d/.test(m.parameters) ? " parameters" : ""}; download: ${m.download}`,
    `  ${m.use}`,
  ];
  if (m.measured) lines.push(`  measured:  ${measuredLine(m.measured)}`);
  for (const s of m.published) lines.push(`  published: ${s.benchmark} ${s.value} (${s.source})`);
  if (m.queryPrefix || m.documentPrefix)
    lines.push(
      `  prefixes:  query ${JSON.stringify(m.queryPrefix)}, document ${JSON.stringify(m.documentPrefix)} (applied for you)`,
    );
  if (m.id !== current) lines.push(`  switch:    ${m.commands.join("\n             ")}`);
  return lines;
}

/** The model of the index of the vault named, or of the working directory's; undefined without one. */
async function indexModel(vault: string | undefined): Promise<string | undefined> {
  const { locate, openCore } = await import("../open.js");
  try {
    const loc = locate({ vault });
    const v = await openCore(loc, { vault });
    try {
      return (await v.status({ countStale: false })).model ?? undefined;
    } finally {
      await v.close();
    }
  } catch {
    // no vault, no index, an index that cannot be read: the list is the same without a mark
    return undefined;
  }
}

/**
 * `vault-rag models`: the recommended embedding models, the figures measured here beside the
 * published ones, the model the index uses (of `--vault`, or of the vault the working directory
 * is in), and how to switch to each.
 *
 * @example
 * ```ts
 * await runModels({ json: true }); // prints {"models": [...], "current": "use-lite", "note": "..."}
 * ```
 */
export async function runModels(o: { vault?: string; json?: boolean }): Promise<void> {
  const models = recommendedModels({ vault: o.vault });
  const current = await indexModel(o.vault);
  // a figure not measured is null in JSON (undefined would drop its key)
  if (o.json)
    return out(
      JSON.stringify(
        { models, current: current ?? null, note: MODELS_NOTE },
        (_, v) => (v === undefined ? null : v),
        2,
      ),
    );
  out(models.map((m) => modelLines(m, current).join("\n")).join("\n\n"));
  if (current && !models.some((m) => m.id === current)) out(`\nThe index uses ${current}, which is not in this list.`);
  out(`\n${MODELS_NOTE}\nMore: docs/models.md`);
}
