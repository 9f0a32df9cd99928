/**
 * The figures measured here, per embedding model: the one table `vault-rag models`, the hint after a
 * first index and `status` read. Quality is nDCG@10 as `vault-rag eval` reports it (docs/quality.md
 * gives the commands); speed is windows embedded per second on this machine's CPU
 * (`BENCH_ONLY=threads npm run bench`, docs/performance.md).
 */
import fs from "node:fs";
import { VaultRagError } from "../errors.js";
import type { ModelHint } from "../shared/api.js";

export type { ModelHint } from "../shared/api.js";

/** A figure measured here, or {@link NOT_MEASURED}. */
export type Measured = number | typeof NOT_MEASURED;

/** The value of a figure nobody has measured here yet. */
export const NOT_MEASURED = undefined;

/** What was measured of one model. */
export interface MeasuredModel {
  /** The `--model` value. */
  id: string;
  /** til: 1,871 real notes, 110 questions. `paraphrase`: the hybrid score on the questions asked in other words. */
  til: { keyword: Measured; dense: Measured; hybrid: Measured; paraphrase: Measured };
  /** SciFact train: 5,183 abstracts, 809 claims. */
  scifact: { keyword: Measured; dense: Measured; hybrid: Measured };
  /** Windows (texts the model reads) embedded per second, on 1 and on 2 threads. */
  windowsPerSecond: { threads1: Measured; threads2: Measured };
  /** The `vault-rag models pull` that fetches it (none for the bundled model). */
  pull?: { repo: string; dtype: "q8" | "fp32" };
}

/** Where the figures and the commands that measured them are written. */
export const MEASURED_SOURCE = "docs/quality.md, docs/performance.md";

/** The figures measured here. */
export const MEASURED: readonly MeasuredModel[] = [
  {
    id: "use-lite",
    til: { keyword: 0.736, dense: 0.433, hybrid: 0.778, paraphrase: 0.524 },
    scifact: { keyword: 0.699, dense: 0.249, hybrid: 0.701 },
    windowsPerSecond: { threads1: 26.1, threads2: 43.9 },
  },
  {
    id: "transformers:sentence-transformers/all-MiniLM-L6-v2",
    // the fp32 weights, as `models pull` fetches them (int8: til 0.871, SciFact 0.677, 40.9 / 74.3 windows/s)
    til: { keyword: 0.736, dense: 0.847, hybrid: 0.878, paraphrase: 0.749 },
    scifact: { keyword: 0.699, dense: 0.631, hybrid: 0.68 },
    windowsPerSecond: { threads1: 25.6, threads2: 39.2 },
    pull: { repo: "sentence-transformers/all-MiniLM-L6-v2", dtype: "fp32" },
  },
];

/** The environment variable naming a JSON file of figures measured on this machine. */
export const MEASURED_ENV = "VAULT_RAG_MEASURED";

const isFigure = (x: unknown) => x === undefined || x === null || (typeof x === "number" && x >= 0);

/** Reads one row of a measured-figures file; `null` is "not measured", as JSON writes it. */
function measuredRow(row: unknown, where: string): MeasuredModel {
  const r = row as Partial<Record<keyof MeasuredModel, Record<string, unknown>>> & { id?: unknown };
  const groups = {
    til: ["keyword", "dense", "hybrid", "paraphrase"],
    scifact: ["keyword", "dense", "hybrid"],
    windowsPerSecond: ["threads1", "threads2"],
  } as const;
  const fine =
    r !== null &&
    typeof r === "object" &&
    typeof r.id === "string" &&
    Object.entries(groups).every(
      ([g, keys]) =>
        r[g as keyof typeof groups] === undefined ||
        (typeof r[g as keyof typeof groups] === "object" &&
          keys.every((k) => isFigure(r[g as keyof typeof groups]?.[k]))),
    );
  if (!fine)
    throw new VaultRagError(
      "usage",
      `${MEASURED_ENV}: ${where} is no row of figures — give { "id": "<--model value>", "til": { "hybrid": 0.8, … }, "scifact": { … }, "windowsPerSecond": { … } }`,
    );
  const figure = (g: keyof typeof groups, k: string): Measured => {
    const v = (r[g] as Record<string, unknown> | undefined)?.[k];
    return typeof v === "number" ? v : NOT_MEASURED;
  };
  const of = <G extends keyof typeof groups>(g: G) =>
    Object.fromEntries(groups[g].map((k) => [k, figure(g, k)])) as unknown as MeasuredModel[G];
  return { id: String(r.id), til: of("til"), scifact: of("scifact"), windowsPerSecond: of("windowsPerSecond") };
}

/**
 * The measured figures: {@link MEASURED}, with the rows of the JSON file `VAULT_RAG_MEASURED` names
 * (figures measured on this machine with `vault-rag eval`), a row replacing the built-in one of the
 * same model. A file that cannot be read, or a row that is no row of figures, is a usage error.
 *
 * @example
 * ```ts
 * measuredTable({ VAULT_RAG_MEASURED: "/home/me/measured.json" }).map((m) => m.id);
 * // ["use-lite", "transformers:sentence-transformers/all-MiniLM-L6-v2", "ollama:nomic-embed-text"]
 * ```
 */
export function measuredTable(env: NodeJS.ProcessEnv = process.env): MeasuredModel[] {
  const file = env[MEASURED_ENV];
  if (!file) return [...MEASURED];
  let rows: unknown;
  try {
    rows = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new VaultRagError(
      "usage",
      `${MEASURED_ENV}: cannot read ${file} as JSON (${(err as Error).message.split("\n")[0]}) — give a file holding a list of rows, or unset it`,
    );
  }
  if (!Array.isArray(rows))
    throw new VaultRagError("usage", `${MEASURED_ENV}: ${file} holds no list — give a list of rows of figures`);
  const own = rows.map((row, i) => measuredRow(row, `row ${i + 1} of ${file}`));
  const ids = new Set(own.map((m) => m.id));
  return [...MEASURED.filter((m) => !ids.has(m.id)).map((m) => ({ ...m })), ...own];
}

/**
 * The figures measured here of a model, if any.
 *
 * @example
 * ```ts
 * measuredFigures("use-lite")?.til.hybrid; // 0.778
 * measuredFigures("ollama:nomic-embed-text"); // undefined
 * ```
 */
export function measuredFigures(id: string, table: readonly MeasuredModel[] = MEASURED): MeasuredModel | undefined {
  return table.find((m) => m.id === id);
}

/**
 * The strongest model by measured til hybrid nDCG@10, when it beats the index's model (which must
 * have been measured too: a gain is claimed only between two measured figures).
 *
 * @example
 * ```ts
 * strongerModel("use-lite"); // { model: "transformers:sentence-transformers/all-MiniLM-L6-v2", gain: 0.1, … }
 * strongerModel("transformers:sentence-transformers/all-MiniLM-L6-v2"); // undefined: none beats it
 * strongerModel("use-lite", [...MEASURED, { id: "transformers:a/b", til: { hybrid: 0.83, … }, … }]);
 * // { model: "transformers:a/b", current: "use-lite", score: 0.83, currentScore: 0.779, gain: 0.051, … }
 * ```
 */
export function strongerModel(
  current: string,
  table: readonly MeasuredModel[] = measuredTable(),
): ModelHint | undefined {
  const own = measuredFigures(current, table)?.til.hybrid;
  if (own === NOT_MEASURED) return undefined;
  let best: MeasuredModel | undefined;
  for (const m of table) if (m.til.hybrid !== NOT_MEASURED && (!best || m.til.hybrid > best.til.hybrid!)) best = m;
  if (!best || best.id === current || best.til.hybrid! <= own) return undefined;
  const score = best.til.hybrid!;
  return {
    model: best.id,
    current,
    measure: "til hybrid nDCG@10",
    score,
    currentScore: own,
    gain: Math.round((score - own) * 1000) / 1000,
    ...(best.pull ? { pull: best.pull } : {}),
  };
}
