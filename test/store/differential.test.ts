import fc from "fast-check";
import { expect, it } from "vitest";
import {
  matchesDocument,
  matchesWhere,
  normaliseWhere,
  normaliseWhereDocument,
  type NoteEntry,
  type StoreRecord,
} from "../../src/store/index.js";
import { docArb, recordArb, whereArb } from "./arbitraries.js";
import { chromaBackend, sqliteBackend, withBackends } from "./backends.js";
import { meta, record } from "./helpers.js";

/**
 * Differential test: the same random records in the embedded store and on a real Chroma server,
 * queried with random `where`/`whereDocument` clauses. Both must return exactly the records the
 * reference evaluator selects, at the same cosine distances.
 * `CHROMA_DIFF_RUNS` sets the number of clauses (default 600; a nightly-style run uses thousands).
 */
const RUNS = Number(process.env.CHROMA_DIFF_RUNS ?? 600);
const DATASETS = 3;

function dataset(seed: number): { batch: { note: NoteEntry; records: StoreRecord[] }[]; all: StoreRecord[] } {
  const recs = fc.sample(fc.array(recordArb, { minLength: 30, maxLength: 60 }), { seed, numRuns: 1 })[0];
  const vectors = fc.sample(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }), {
    seed: seed + 1,
    numRuns: recs.length,
  });
  const byPath = new Map<string, StoreRecord[]>();
  recs.forEach((r, i) => {
    const { text: _text, ...fields } = r; // the record's metadata is all but its text
    const m = meta({ ...fields, hash: `h${seed}-${i}` });
    const v = Float32Array.from(vectors[i]);
    if (v.every((x) => Math.abs(x) < 1e-3)) v[0] = 1; // a zero vector has no direction
    const list = byPath.get(r.path) ?? [];
    list.push(record(`d${seed}-${i}`, m, v, r.text));
    byPath.set(r.path, list);
  });
  const batch = [...byPath].map(([p, records]) => ({ note: { path: p, hash: "h", mtime: 0, size: 0 }, records }));
  return { batch, all: batch.flatMap((b) => b.records) };
}

withBackends([sqliteBackend, chromaBackend], "SQLite and a real Chroma server agree", () => {
  it(`on ${RUNS} random where/whereDocument clauses over ${DATASETS} random record sets`, async () => {
    const query = Float32Array.from([0.3, -0.5, 0.8, 0.1]);
    let checked = 0;
    let nonEmpty = 0;
    for (let d = 0; d < DATASETS; d++) {
      const { batch, all } = dataset(1000 + d);
      const sqlite = (await sqliteBackend.fresh()).store;
      const chroma = (await chromaBackend.fresh()).store;
      await sqlite.upsertNotes(batch);
      await chroma.upsertNotes(batch);
      await fc.assert(
        fc.asyncProperty(whereArb, fc.option(docArb, { nil: undefined }), async (where, wd) => {
          const w = normaliseWhere(where);
          const doc = normaliseWhereDocument(wd);
          const expected = all
            .filter((r) => (!w || matchesWhere(w, r.meta)) && (!doc || matchesDocument(doc, r.text)))
            .map((r) => r.id)
            .sort();
          const fromSqlite = await sqlite.queryDense(query, 1000, { where: w, whereDocument: doc });
          const fromChroma = await chroma.queryDense(query, 1000, { where: w, whereDocument: doc });
          expect(fromSqlite.map((h) => h.id).sort()).toEqual(expected);
          expect(fromChroma.map((h) => h.id).sort()).toEqual(expected);
          // same ranking: the distance at each rank agrees (ties may swap ids), to the 10⁻⁴ that the
          // SQLite store's float16 vectors move a distance by (the server keeps float32)
          fromChroma.forEach((h, i) => expect(h.distance).toBeCloseTo(fromSqlite[i].distance, 3));
          checked++;
          if (expected.length) nonEmpty++;
        }),
        { numRuns: Math.ceil(RUNS / DATASETS), seed: 42 + d },
      );
      await sqlite.close();
      await chroma.close();
    }
    expect(checked).toBeGreaterThanOrEqual(RUNS);
    // the vocabularies are small so that most clauses select something
    expect(nonEmpty / checked).toBeGreaterThan(0.3);
  });
});

withBackends([sqliteBackend, chromaBackend], "SQLite and a real Chroma server agree on pathological regexes", () => {
  // patterns that backtrack exponentially on JavaScript's engine; both stores must answer them quickly
  const texts: Record<string, string> = {
    bang26: "a".repeat(26) + "!",
    b26: "a".repeat(26) + "b",
    a30: "a".repeat(30),
    a4: "aaaa",
    motor: "motor aaaa!",
    bang100k: "a".repeat(100_000) + "!",
  };
  const cases: [string, string[]][] = [
    ["^(a+)+$", ["a30", "a4"]],
    ["(a|aa)+$", ["a30", "a4"]],
    ["^(a*)*$", ["a30", "a4"]],
    ["^(a|a?)+$", ["a30", "a4"]],
    ["(a+)+b", ["b26"]],
    ["^(a+)+!$", ["bang100k", "bang26"]],
  ];
  it(`on ${cases.length} patterns, as $regex and $not_regex`, async () => {
    const query = Float32Array.from([1, 0, 0, 0]);
    const batch = Object.entries(texts).map(([id, text]) => ({
      note: { path: `${id}.md`, hash: "h", mtime: 0, size: 0 },
      records: [record(id, meta({ path: `${id}.md` }), query, text)],
    }));
    const stores = [(await sqliteBackend.fresh()).store, (await chromaBackend.fresh()).store];
    for (const s of stores) await s.upsertNotes(batch);
    for (const [pattern, matching] of cases) {
      const rest = Object.keys(texts)
        .filter((id) => !matching.includes(id))
        .sort();
      for (const [op, expected] of [
        ["$regex", matching],
        ["$not_regex", rest],
      ] as const) {
        const doc = normaliseWhereDocument({ [op]: pattern });
        for (const s of stores)
          expect([
            pattern,
            op,
            (await s.queryDense(query, 100, { whereDocument: doc })).map((h) => h.id).sort(),
          ]).toEqual([pattern, op, expected]);
        expect(
          Object.keys(texts)
            .filter((id) => matchesDocument(doc!, texts[id]))
            .sort(),
        ).toEqual(expected);
      }
    }
    for (const s of stores) await s.close();
  });
});
