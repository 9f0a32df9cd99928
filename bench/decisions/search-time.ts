/**
 * Retrieval time of a search with each keyword addition on and off (question vectors embedded
 * beforehand, so only retrieval and fusion are timed): p50 and p95 over three passes of a
 * known-answer file's questions, the settings alternating. Reproduces the cost figures of
 * docs/decisions/proximity.md, backlink-text.md and candidate-depth.md. Reads the built package.
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/search-time.ts /tmp/til/.vault-rag/index.db ../shared/bench/til/questions.jsonl
 * ```
 */
import { readKnownAnswers, search, SqliteStore, useLiteEmbedder, type Embedder } from "../../dist/advanced.js";

const [db, questions] = process.argv.slice(2);
if (!db || !questions) {
  console.error("usage: search-time.ts <index.db> <questions.jsonl>");
  process.exit(2);
}
const store = SqliteStore.open(db, { readonly: true });
const model = useLiteEmbedder();
const qs = readKnownAnswers(questions).queries.map((q) => q.text);
const vectors = new Map<string, Float32Array>();
for (const q of qs) vectors.set(q, await model.embedQuery(q));
const embedder = { ...model, embedQuery: async (t: string) => vectors.get(t)! } as Embedder;
const settings = [
  ["defaults", {}],
  ["no near pairs", { proximity: 0 }],
  ["no backlink text", { backlinks: 0 }],
  ["no synonyms", { expand: false }],
  ["pool 50", { pool: 50 }],
] as const;
const times = new Map<string, number[]>(settings.map(([label]) => [label, []]));
for (const [, opts] of settings) for (const q of qs.slice(0, 10)) await search({ store, embedder }, q, opts); // warm
for (let pass = 0; pass < 3; pass++)
  for (const q of qs)
    for (const [label, opts] of pass % 2 ? [...settings].reverse() : settings) {
      const t = performance.now();
      await search({ store, embedder }, q, opts);
      times.get(label)!.push(performance.now() - t);
    }
for (const [label, ts] of times) {
  ts.sort((a, b) => a - b);
  const p = (q: number) => ts[Math.min(ts.length - 1, Math.floor((ts.length - 1) * q))].toFixed(2);
  console.log(`${label.padEnd(18)} p50 ${p(0.5)} ms  p95 ${p(0.95)} ms`);
}
await store.close();
