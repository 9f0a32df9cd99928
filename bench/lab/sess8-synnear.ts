// Near pairs through synonyms: for adjacent question words (a, b), NEAR(s, b) and NEAR(a, s) for
// each single-word synonym s of a (or b) that the search's expansion took, at weight W × the plan's
// synonym weight, added to the search's keyword list (kws). GRID='[W, ...]'.
import { loadLab, denseList } from "./load.js";
import { baseline, fuseLinear, notesOf, type Scored } from "./score.js";
import { planExpansion, sharedWordNet, synonymCandidates } from "../../src/search/expand.js";
import { SqliteStore, queryTerms, NEAR_WINDOW } from "../../src/store/index.js";

const [name, target, vault] = process.argv.slice(2);
const lab = await loadLab(name, target, vault);
const { show } = baseline(lab);
const store = SqliteStore.open(lab.db.name, { readonly: true });
const wn = sharedWordNet();
const stmt = lab.db.prepare(
  "SELECT rowid AS r, -bm25(fts, 4, 4, 2, 1) AS s FROM fts WHERE fts MATCH ? ORDER BY s DESC LIMIT 3000",
);
const q2 = (t: string) => `"${t.replace(/"/g, '""')}"`;
const extra = new Map<string, { list: Scored; weight: number }>();
let fired = 0;
for (const q of lab.queries) {
  const plain = await store.queryKeyword(q.text, 1, { where: q.where }, { proximity: 0.2 });
  const plan = await planExpansion(store, q.text, plain[0]);
  if (!plan) continue;
  const taken = new Set(plan.phrases.filter((p) => !p.includes(" ")));
  const words = queryTerms(q.text).filter((t) => !t.includes(" "));
  const syn = (w: string) => synonymCandidates(wn, w, 3).filter((s) => taken.has(s));
  const near: string[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    for (const s of syn(words[i])) near.push(`NEAR(${q2(s)} ${q2(words[i + 1])}, ${NEAR_WINDOW})`);
    for (const s of syn(words[i + 1])) near.push(`NEAR(${q2(words[i])} ${q2(s)}, ${NEAR_WINDOW})`);
  }
  if (!near.length) continue;
  fired++;
  const list: Scored = [];
  for (const r of stmt.all(near.join(" OR ")) as { r: number; s: number }[]) {
    const i = lab.byRow.get(r.r)!;
    if (q.allowed(i)) list.push({ i, s: r.s });
  }
  extra.set(q.id, { list, weight: plan.weight });
}
console.log(name, "questions with synonym pairs", fired);
for (const w of JSON.parse(process.env.GRID ?? "[0.1,0.2,0.4,0.8]") as number[])
  show(`syn-near W${w}`, (q) => {
    const m = new Map<number, number>();
    for (const x of q.kws) m.set(x.i, x.s);
    const e = extra.get(q.id);
    if (e) for (const x of e.list) m.set(x.i, (m.get(x.i) ?? 0) + w * e.weight * x.s);
    const kw = [...m]
      .map(([i, s]) => ({ i, s }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 300);
    return notesOf(lab, fuseLinear([denseList(lab, q), kw], [0.35, 0.65]));
  });
await store.close();
