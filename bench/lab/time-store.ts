import { useLiteEmbedder } from "../../src/embed/index.js";
import { readKnownAnswers } from "../../src/search/eval.js";
import { SqliteStore } from "../../src/store/index.js";
const [db, questions] = process.argv.slice(2);
const store = SqliteStore.open(db, { readonly: true });
const e = useLiteEmbedder();
const qs = readKnownAnswers(questions).queries.map((q) => q.text);
const vecs = await Promise.all(qs.map((q) => e.embedQuery(q)));
await store.warmDense();
for (const k of [50, 300]) {
  for (const [label, f] of [
    ["dense", (i: number) => store.queryDense(vecs[i], k)],
    ["keyword", (i: number) => store.queryKeyword(qs[i], k)],
  ] as const) {
    for (let i = 0; i < 10; i++) await f(i);
    const t: number[] = [];
    for (let r = 0; r < 3; r++)
      for (let i = 0; i < qs.length; i++) {
        const s = performance.now();
        await f(i);
        t.push(performance.now() - s);
      }
    t.sort((a, b) => a - b);
    console.log(label, k, "p50", t[t.length >> 1].toFixed(2));
  }
}
const idx = (store as unknown as { denseIndex(): { search(v: Float32Array, k: number): unknown[] } }).denseIndex();
for (const k of [50, 300]) {
  for (let i = 0; i < 10; i++) idx.search(vecs[i], k);
  const t: number[] = [];
  for (let r = 0; r < 3; r++)
    for (let i = 0; i < qs.length; i++) {
      const s = performance.now();
      idx.search(vecs[i], k);
      t.push(performance.now() - s);
    }
  t.sort((a, b) => a - b);
  console.log("index.search", k, "p50", t[t.length >> 1].toFixed(2));
}
