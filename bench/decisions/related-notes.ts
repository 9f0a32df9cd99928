/**
 * How well `vault-rag related` finds related notes, measured with folders as a rough signal: in a
 * vault whose folders are topics (../shared/bench/til/: one folder per tool or language), how often
 * do the top 5 related notes share the note's folder, against the share that 5 notes picked at
 * random would have (the same-folder notes among all the others).
 *
 *   npx tsx bench/decisions/related-notes.ts <indexed vault> [k]
 *
 * Runs on the built code (dist/), on an index built by `vault-rag index <vault>`. Also prints the
 * same figures for a simpler rule, each note as the mean of its chunk vectors, for comparison.
 */
import path from "node:path";
import { relatedNotes, SqliteStore } from "../../dist/advanced.js";
import { pooledVector } from "../../dist/store/index.js";

const vault = path.resolve(process.argv[2] ?? "");
const k = Number(process.argv[3] ?? 5);
const store = SqliteStore.open(path.join(vault, ".vault-rag/index.db"), { readonly: true });
const records = await store.get({ includeVectors: true });
const folderOf = new Map(records.map((r) => [r.meta.path, r.meta.folder]));
const notes = [...folderOf.keys()].sort();
const N = notes.length;
const inFolder = new Map<string, number>();
for (const f of folderOf.values()) inFolder.set(f, (inFolder.get(f) ?? 0) + 1);

/** P(at least one of k random other notes is in the folder) = 1 − C(N−1−m, k) / C(N−1, k), m = others in the folder. */
function atLeastOneByChance(m: number): number {
  let none = 1;
  for (let i = 0; i < k; i++) none *= (N - 1 - m - i) / (N - 1 - i);
  return 1 - Math.max(0, none);
}

interface Tally {
  share: number;
  any: number;
  n: number;
}
const tally = (): Tally => ({ share: 0, any: 0, n: 0 });
const method = tally();
const centroid = tally();
const chance = tally();
const add = (t: Tally, source: string, picked: string[]) => {
  const same = picked.filter((p) => folderOf.get(p) === folderOf.get(source)).length;
  t.share += same / k;
  t.any += same > 0 ? 1 : 0;
  t.n++;
};

// the comparison rule: one vector per note, the normalised mean of its chunks' vectors
const byNote = new Map<string, Float32Array[]>();
for (const r of records) {
  const list = byNote.get(r.meta.path) ?? [];
  list.push(pooledVector(r.windows));
  byNote.set(r.meta.path, list);
}
const means = new Map([...byNote].map(([p, vs]) => [p, pooledVector(vs.map((vector) => ({ vector })))]));
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

const t0 = performance.now();
let sources = 0;
for (const note of notes) {
  const m = inFolder.get(folderOf.get(note)!)! - 1;
  if (m === 0) continue; // alone in its folder: no note could share it
  sources++;
  const { related } = await relatedNotes(store, note, { k });
  add(
    method,
    note,
    related.map((r) => r.path),
  );
  const v = means.get(note)!;
  const nearest = notes
    .filter((p) => p !== note)
    .map((p) => [p, dot(v, means.get(p)!)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([p]) => p);
  add(centroid, note, nearest);
  chance.share += m / (N - 1);
  chance.any += atLeastOneByChance(m);
  chance.n++;
}
const ms = (performance.now() - t0) / sources;
const pc = (x: number, n: number) => `${((100 * x) / n).toFixed(1)}%`;
console.log(
  `related notes on ${vault}: ${N} notes in ${inFolder.size} folders; ${sources} notes share their folder with another`,
);
console.log(`top ${k} in the note's folder (share of the ${k})      at least one of the ${k} in it`);
console.log(
  `  vault-rag related (best pair)   ${pc(method.share, method.n).padStart(6)}                  ${pc(method.any, method.n).padStart(6)}`,
);
console.log(
  `  mean vector per note            ${pc(centroid.share, centroid.n).padStart(6)}                  ${pc(centroid.any, centroid.n).padStart(6)}`,
);
console.log(
  `  random notes (expected)         ${pc(chance.share, chance.n).padStart(6)}                  ${pc(chance.any, chance.n).padStart(6)}`,
);
console.log(`${ms.toFixed(1)} ms per note (vault-rag related, in process, k=${k})`);
await store.close();
