// Retrieval cost of a search (question vectors embedded beforehand), by pool depth, expansion, near pairs and backlink text.
import { useLiteEmbedder, type Embedder } from "../../src/embed/index.js";
import { readKnownAnswers } from "../../src/search/eval.js";
import { search } from "../../src/search/index.js";
import { SqliteStore } from "../../src/store/index.js";
const [db, questions] = process.argv.slice(2);
const store = SqliteStore.open(db, { readonly: true });
const real = useLiteEmbedder();
const qs = readKnownAnswers(questions).queries.map((q) => q.text);
const vecs = new Map<string, Float32Array>();
for (const q of qs) vecs.set(q, await real.embedQuery(q));
const embedder = { ...real, embedQuery: async (t: string) => vecs.get(t)! } as Embedder;
for (const [label, opts] of [
  ["pool 300, no synonyms", { pool: 300, expand: false, proximity: 0 }],
  ["pool 300, synonyms", { pool: 300, expand: true, proximity: 0 }],
  ["pool 300, syn + near", { pool: 300, expand: true, proximity: 0.2 }],
  ["pool 300, near", { pool: 300, expand: false, proximity: 0.2 }],
  ["defaults, no backlinks", { backlinks: 0 }],
  ["defaults", {}],
  ["defaults, no backlinks", { backlinks: 0 }],
  ["defaults", {}],
] as const) {
  for (const q of qs.slice(0, 10)) await search({ store, embedder }, q, opts);
  const times: number[] = [];
  for (let r = 0; r < 3; r++)
    for (const q of qs) {
      const t = performance.now();
      await search({ store, embedder }, q, opts);
      times.push(performance.now() - t);
    }
  times.sort((a, b) => a - b);
  console.log(
    label.padEnd(24),
    "p50",
    times[times.length >> 1].toFixed(2),
    "ms  p95",
    times[Math.floor(times.length * 0.95)].toFixed(2),
  );
}
