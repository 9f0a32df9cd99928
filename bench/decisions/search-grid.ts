/**
 * nDCG@10 of the shipped search at each value of one search default, through `evaluate` (what
 * `vault-rag eval` runs): keyword and hybrid, overall and per kind of question. Reproduces the
 * figures of docs/decisions/ for the fusion weight, the candidate depth, near pairs, backlink text
 * and synonyms. Reads the built package (`npm run build` first) and an existing index: a BEIR
 * folder's cached one (`vault-rag eval <folder>` makes it), or `<vault>/.vault-rag/index.db`
 * (`vault-rag index <vault>`; index a copy of a vault you may not write to).
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/search-grid.ts ../shared/bench/til/questions.jsonl /tmp/til proximity=0,0.15,0.2,0.25,0.35
 * npx tsx bench/decisions/search-grid.ts ../shared/bench/scifact-train alpha=0.6,0.65,0.7
 * npx tsx bench/decisions/search-grid.ts examples/questions.jsonl examples/vault expansion.weight=0.3,0.5,1
 * ```
 * Settings: alpha, pool, proximity, backlinks (`SEARCH_DEFAULTS`); expansion.senses,
 * expansion.weight, expansion.maxShare (`EXPANSION_DEFAULTS`); rare.words, rare.share, rare.top
 * (`RARE_DEFAULTS`: `rare.top=0` turns the rare-word lead off).
 */
import fs from "node:fs";
import path from "node:path";
import {
  evaluate,
  EXPANSION_DEFAULTS,
  prepareBeir,
  RARE_DEFAULTS,
  readKnownAnswers,
  SEARCH_DEFAULTS,
  SqliteStore,
  useLiteEmbedder,
} from "../../dist/advanced.js";

const args = process.argv.slice(2);
const gridArg = args.find((a) => a.includes("="));
const [target, vault] = args.filter((a) => a !== gridArg);
if (!target || !gridArg) {
  console.error("usage: search-grid.ts <questions.jsonl> <vault> | <BEIR folder>  <setting>=<v1,v2,…>");
  process.exit(2);
}
const [setting, list] = gridArg.split("=");
const values = list.split(",").map(Number);
const [group, key] = setting.startsWith("expansion.")
  ? [EXPANSION_DEFAULTS as Record<string, unknown>, setting.slice("expansion.".length)]
  : setting.startsWith("rare.")
    ? [RARE_DEFAULTS as Record<string, unknown>, setting.slice("rare.".length)]
    : [SEARCH_DEFAULTS as Record<string, unknown>, setting];
if (typeof group[key] !== "number" || values.some(Number.isNaN)) {
  console.error(`search-grid.ts: "${setting}" is not a numeric search default, or a value is not a number`);
  process.exit(2);
}
const beir = target.endsWith(".jsonl") ? undefined : prepareBeir(target);
const db = path.join(beir ? beir.vault : vault, ".vault-rag", "index.db");
if (!fs.existsSync(db)) {
  console.error(
    `search-grid.ts: no index at ${db} — run \`vault-rag index\` (or \`vault-rag eval\` on a BEIR folder) first`,
  );
  process.exit(2);
}
const qrels = beir ? beir.qrels : readKnownAnswers(target);
const store = SqliteStore.open(db, { readonly: true });
const embedder = useLiteEmbedder();
for (const value of values) {
  group[key] = value;
  const results = await evaluate({ store, embedder }, qrels, [
    { label: "keyword", mode: "keyword" },
    { label: "hybrid", mode: "hybrid" },
  ]);
  for (const r of results)
    console.log(
      `${setting} ${value} ${r.setting.label.padEnd(8)} ${r.metrics.ndcg10.toFixed(4)} ` +
        Object.entries(r.byKind)
          .map(([kind, m]) => `${kind}:${m.ndcg10.toFixed(3)}`)
          .join(" "),
    );
}
await store.close();
