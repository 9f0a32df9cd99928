/**
 * The dev sets of a model's profile (docs/quality.md, "Measured per model"), on an index built with
 * any model, without the keyword variants of `eval --sweep` (four more keyword queries a question,
 * which the BM25 weight does not change):
 *
 *   npx tsx bench/decisions/model-dev-sets.ts beir <BEIR folder> <out vault> <out .jsonl>
 *   npx tsx bench/decisions/model-dev-sets.ts alpha <index.db> <questions.jsonl> [out.json]
 *   npx tsx bench/decisions/model-dev-sets.ts grid <index.db> <questions.jsonl> <setting>=<v1,v2,…>
 *
 * `beir` copies a BEIR set's corpus as the vault `vault-rag eval` writes for it, and its qrels as a
 * known-answer file, so the set can be indexed with any model (`vault-rag index <out vault> --db …
 * --model …`). `alpha` prints nDCG@10 of keyword, dense, hybrid at the index model's weight, and
 * linear fusion at BM25 weights 0.1–0.9, overall and per kind, and writes them as `eval --json` does.
 * `grid` prints nDCG@10 of keyword, dense and hybrid (at the index model's weight), overall and per
 * kind, at each value of one search default, as `search-grid.ts` does for the bundled model: pool,
 * proximity, backlinks (`SEARCH_DEFAULTS`); expansion.weight, expansion.senses, expansion.maxShare;
 * rare.words, rare.share, rare.top. Runs on the built code (dist/).
 */
import fs from "node:fs";
import { EXPANSION_DEFAULTS, prepareBeir, RARE_DEFAULTS, SEARCH_DEFAULTS } from "../../dist/advanced.js";
import { openForQuery } from "../../dist/core/open-query.js";
import { evaluate, evalSettingsFor, readKnownAnswers, type EvalSetting } from "../../dist/search/eval.js";

const [what, a, b, c] = process.argv.slice(2);
if (what === "beir") {
  const { vault, qrels } = prepareBeir(a);
  fs.cpSync(vault, b, { recursive: true });
  const lines = qrels.queries.map((q) =>
    JSON.stringify({ id: q.id, question: q.text, paths: [...(qrels.relevant.get(q.id) ?? [])] }),
  );
  fs.writeFileSync(c, lines.join("\n") + "\n");
  console.log(`${b}: the corpus; ${c}: ${lines.length} questions`);
} else if (what === "alpha") {
  const { store, embedder } = await openForQuery(a, {});
  const settings: EvalSetting[] = evalSettingsFor(["keyword", "dense", "hybrid"], embedder.model);
  for (const alpha of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9])
    settings.push({ label: `linear α=${alpha}`, mode: "hybrid", fusion: "linear", alpha });
  try {
    const results = (await evaluate({ store, embedder }, readKnownAnswers(b), settings)).map(
      ({ questions: _, ...r }) => r,
    );
    for (const r of results)
      console.log(
        `${r.setting.label.padEnd(26)} ${r.metrics.ndcg10.toFixed(3)}  ${Object.entries(r.byKind)
          .map(([k, m]) => `${k} ${m.ndcg10.toFixed(3)}`)
          .join("  ")}`,
      );
    if (c) fs.writeFileSync(c, JSON.stringify({ title: `${b} on ${a}`, results }, null, 2));
  } finally {
    await store.close();
  }
} else if (what === "grid" && c?.includes("=")) {
  const [setting, list] = c.split("=");
  const [group, key] = setting.startsWith("expansion.")
    ? [EXPANSION_DEFAULTS as Record<string, unknown>, setting.slice("expansion.".length)]
    : setting.startsWith("rare.")
      ? [RARE_DEFAULTS as Record<string, unknown>, setting.slice("rare.".length)]
      : [SEARCH_DEFAULTS as Record<string, unknown>, setting];
  const values = list.split(",").map(Number);
  if (typeof group[key] !== "number" || values.some(Number.isNaN)) {
    console.error(`model-dev-sets.ts: "${setting}" is not a numeric search default, or a value is not a number`);
    process.exit(2);
  }
  const { store, embedder } = await openForQuery(a, {});
  try {
    for (const value of values) {
      group[key] = value;
      const results = await evaluate(
        { store, embedder },
        readKnownAnswers(b),
        evalSettingsFor(["keyword", "dense", "hybrid"], embedder.model),
      );
      for (const r of results)
        console.log(
          `${setting} ${value} ${r.setting.mode.padEnd(8)} ${r.metrics.ndcg10.toFixed(4)} ${Object.entries(r.byKind)
            .map(([k, m]) => `${k}:${m.ndcg10.toFixed(3)}`)
            .join(" ")}`,
        );
    }
  } finally {
    await store.close();
  }
} else {
  console.error(
    "usage: model-dev-sets.ts beir <BEIR folder> <out vault> <out .jsonl> | alpha <index.db> <questions.jsonl> [out.json] | grid <index.db> <questions.jsonl> <setting>=<v1,…>",
  );
  process.exit(2);
}
