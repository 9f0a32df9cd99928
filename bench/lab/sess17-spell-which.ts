// Which questions of a known-answer file the search reads with spelling fixes, and the fixes. Not shipped.
// npx tsx bench/lab/sess17-spell-which.ts ../shared/bench/til/questions.jsonl /tmp/til
import { SqliteStore } from "../../src/store/index.js";
import { readKnownAnswers } from "../../src/search/eval.js";
import { spellingFixes } from "../../src/search/spelling.js";
import { sharedWordNet } from "../../src/search/expand.js";
const [target, vault] = process.argv.slice(2);
const store = SqliteStore.open(`${vault}/.vault-rag/index.db`, { readonly: true });
for (const q of readKnownAnswers(target).queries) {
  const f = await spellingFixes(store, q.text, sharedWordNet());
  if (f.length) console.log(q.id, JSON.stringify(f), "|", q.text);
}
