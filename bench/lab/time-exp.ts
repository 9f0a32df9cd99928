import { SqliteStore } from "../../src/store/index.js";
import { readKnownAnswers } from "../../src/search/eval.js";
import { planExpansion, synonymCandidates, sharedWordNet } from "../../src/search/expand.js";
const store = SqliteStore.open("/tmp/til/.vault-rag/index.db", { readonly: true });
const qs = readKnownAnswers("../shared/bench/til/questions.jsonl").queries;
const wn = sharedWordNet();
let t = performance.now();
let nc = 0;
for (const q of qs) nc += synonymCandidates(wn, q.text, 3).length;
console.log(
  "candidates cold",
  ((performance.now() - t) / qs.length).toFixed(2),
  "ms/q",
  (nc / qs.length).toFixed(0),
  "cands/q",
);
t = performance.now();
for (const q of qs) synonymCandidates(wn, q.text, 3);
console.log("candidates warm", ((performance.now() - t) / qs.length).toFixed(2), "ms/q");
t = performance.now();
for (const q of qs) await store.queryKeyword(q.text, 300);
console.log("kw query", ((performance.now() - t) / qs.length).toFixed(2), "ms/q");
t = performance.now();
for (const q of qs) {
  const k = await store.queryKeyword(q.text, 300);
  await planExpansion(store, q.text, k[0]);
}
console.log("kw + plan (warm wn)", ((performance.now() - t) / qs.length).toFixed(2), "ms/q");
t = performance.now();
for (const q of qs) {
  const k = await store.queryKeyword(q.text, 300);
  const p = await planExpansion(store, q.text, k[0]);
  if (p) await store.queryKeyword(q.text, 300, {}, { expansion: p });
}
console.log("kw + plan + expanded", ((performance.now() - t) / qs.length).toFixed(2), "ms/q");
