// Sense selection for the synonyms: keep the WordNet senses that fit the question (by the model's
// similarity of the gloss to the question, or by Lesk word overlap).
import { loadLab, denseList, dot } from "./load.js";
import { evaluateRun, fmt, fuseLinear, notesOf } from "./score.js";
import { EXPANSION_DEFAULTS, keywordCoverage, sharedWordNet } from "../../src/search/expand.js";
import { baseForms } from "../../src/search/wordnet.js";
import { SqliteStore, STOPWORDS } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const store = SqliteStore.open(lab.db.name, { readonly: true });
const wn = sharedWordNet();
const e = useLiteEmbedder();
const glossVec = new Map<string, Float32Array>();
interface Cand {
  phrase: string;
  dense: number;
  lesk: number;
  rank: number;
}
const cands = new Map<string, Cand[]>();
const stem = (w: string) => w.replace(/(ing|ed|es|s)$/, "");
for (const q of lab.queries) {
  const words =
    q.text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[a-z0-9]+/g) ?? [];
  const own = new Set(words);
  const content = new Set(words.filter((w) => !STOPWORDS.has(w)).map(stem));
  const sources = [...new Set(words.filter((w) => !STOPWORDS.has(w) && /[a-z]/.test(w)))];
  for (let i = 0; i + 1 < words.length; i++) sources.push(`${words[i]}_${words[i + 1]}`, `${words[i]}-${words[i + 1]}`);
  const out: Cand[] = [];
  const seen = new Set<string>();
  for (const source of sources)
    for (const lemma of baseForms(wn, source)) {
      const senses = wn.senseList(lemma, 3);
      for (const [rank, s] of senses.entries()) {
        const key = s.gloss;
        let v = glossVec.get(key);
        if (!v)
          glossVec.set(
            key,
            (v = await e.embedQuery(`${s.words.join(", ").replace(/_/g, " ")}: ${s.gloss.split(";")[0]}`)),
          );
        const glossWords = new Set(
          (s.gloss.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !STOPWORDS.has(w)).map(stem),
        );
        let lesk = 0;
        for (const w of glossWords) if (content.has(w) && w !== stem(lemma)) lesk++;
        for (const synonym of s.words) {
          if (synonym === lemma) continue;
          const parts = synonym.split(/[_-]/);
          if (parts.some((p) => !/^[a-z0-9]+$/.test(p) || STOPWORDS.has(p))) continue;
          if (parts.length === 1 && (own.has(parts[0]) || source.startsWith(parts[0]) || parts[0].startsWith(lemma)))
            continue;
          const phrase = parts.join(" ");
          if (seen.has(phrase)) continue;
          seen.add(phrase);
          out.push({ phrase, dense: dot(v, q.vec), lesk, rank });
        }
      }
    }
  cands.set(q.id, out);
}
const plans = new Map<string, { phrases: string[]; weight: number } | undefined>();
async function kwFor(q: (typeof lab.queries)[number], keep: (c: Cand, all: Cand[]) => boolean, key: string) {
  const cacheKey = key + q.id;
  if (!plans.has(cacheKey)) {
    const best = q.kw[0] ? { ...lab.chunks[q.kw[0].i], distance: 0 } : undefined;
    const { coverage, chunks } = await keywordCoverage(store, q.text, best);
    const weight = EXPANSION_DEFAULTS.weight * Math.max(0, 1 - coverage);
    const all = cands.get(q.id)!;
    const chosen = all
      .filter((c) => keep(c, all))
      .map((c) => c.phrase)
      .slice(0, 100);
    const cap = Math.floor(EXPANSION_DEFAULTS.maxShare * chunks) + 1;
    const { counts } = await store.keywordStats(chosen, { cap });
    const phrases = chosen.filter((_, i) => counts[i] > 0 && counts[i] < cap);
    plans.set(cacheKey, weight > 0 && phrases.length ? { phrases, weight } : undefined);
  }
  const plan = plans.get(cacheKey);
  if (!plan) return q.kw;
  const recs = await store.queryKeyword(q.text, 300, { where: q.where }, { expansion: plan });
  const idx = new Map(lab.chunks.map((c, i) => [c.id, i]));
  return recs.map((r) => ({ i: idx.get(r.id)!, s: -r.distance }));
}
const rules: [string, (c: Cand, all: Cand[]) => boolean][] = [
  ["all (production)", () => true],
  ["dense ≥ 0.2", (c) => c.dense >= 0.2],
  ["dense ≥ 0.25", (c) => c.dense >= 0.25],
  ["dense ≥ 0.3", (c) => c.dense >= 0.3],
  ["lesk ≥ 1 or first sense", (c) => c.lesk >= 1 || c.rank === 0],
  ["first sense only", (c) => c.rank === 0],
];
for (const [label, keep] of rules) {
  const kws = new Map<string, { i: number; s: number }[]>();
  for (const q of lab.queries) kws.set(q.id, await kwFor(q, keep, label));
  console.log(
    name,
    label.padEnd(26),
    "hybrid",
    fmt(evaluateRun(lab, (q) => notesOf(lab, fuseLinear([denseList(lab, q), kws.get(q.id)!], [0.35, 0.65])))),
  );
}
const d = [...cands.values()]
  .flat()
  .map((c) => c.dense)
  .sort((a, b) => a - b);
console.log(
  "gloss-question similarity quartiles",
  [0.25, 0.5, 0.75].map((p) => d[Math.floor(p * d.length)].toFixed(2)).join(" "),
);
