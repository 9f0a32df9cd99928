// Which SciFact claims the search reads with spelling fixes (the index `vault-rag eval` caches). Not shipped.
// npx tsx bench/lab/sess17-spell-sci.ts
import { SqliteStore } from "../../src/store/index.js";
import { prepareBeir } from "../../src/search/eval.js";
import { spellingFixes } from "../../src/search/spelling.js";
import { sharedWordNet } from "../../src/search/expand.js";
const b = prepareBeir("../shared/bench/scifact-train");
const store = SqliteStore.open(`${b.vault}/.vault-rag/index.db`, { readonly: true });
let n = 0;
for (const q of b.qrels.queries) {
  const f = await spellingFixes(store, q.text, sharedWordNet());
  if (f.length) {
    n++;
    console.log(q.id, JSON.stringify(f), "|", q.text.slice(0, 100));
  }
}
console.log("fixed", n, "of", b.qrels.queries.length);
