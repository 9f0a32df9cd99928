import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  matchesDocument,
  matchesWhere,
  normaliseWhere,
  normaliseWhereDocument,
  SqliteStore,
  type NoteEntry,
  type StoreRecord,
} from "../../src/store/index.js";
import { docArb, recordArb, whereArb } from "./arbitraries.js";
import { meta, openStore, record, tmpDb, vec } from "./helpers.js";

/**
 * A keyword query's filter is answered in memory once a dense query has kept the metadata
 * columns (where-rows.ts), else in SQL. Both must give the rows the reference evaluator selects,
 * in the same order at the same scores.
 */
function dataset(seed: number): { batch: { note: NoteEntry; records: StoreRecord[] }[]; all: StoreRecord[] } {
  const recs = fc.sample(fc.array(recordArb, { minLength: 30, maxLength: 60 }), { seed, numRuns: 1 })[0];
  const byPath = new Map<string, StoreRecord[]>();
  recs.forEach((r, i) => {
    const { text: _text, ...fields } = r;
    const list = byPath.get(r.path) ?? [];
    list.push(record(`k${seed}-${i}`, meta({ ...fields, hash: `h${seed}-${i}` }), vec(1, i / 60, 0, 0), r.text));
    byPath.set(r.path, list);
  });
  const batch = [...byPath].map(([p, records]) => ({ note: { path: p, hash: "h", mtime: 0, size: 0 }, records }));
  return { batch, all: batch.flatMap((b) => b.records) };
}

const QUERY = "motor bread PETG";
const holdsWord = (text: string) => /\b(motor|bread|petg)\b/i.test(text);

describe("a keyword query's filter, in SQL and from the kept metadata columns", () => {
  it("selects the same rows in the same order, as the reference evaluator does", async () => {
    for (const seed of [7, 8]) {
      const { batch, all } = dataset(seed);
      const file = tmpDb();
      const inSql = await openStore(file);
      await inSql.upsertNotes(batch);
      const inMemory = SqliteStore.open(file);
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(whereArb, fc.option(docArb, { nil: undefined }), async (where, wd) => {
          const w = normaliseWhere(where);
          const doc = normaliseWhereDocument(wd);
          const filter = { where: w, whereDocument: doc };
          // the dense query keeps the columns (and tests a whereDocument ahead) for the keyword query after it
          await inMemory.queryDense(vec(1, 0, 0, 0), 1000, filter);
          const fromMemory = await inMemory.queryKeyword(QUERY, 1000, filter);
          const fromSql = await inSql.queryKeyword(QUERY, 1000, filter);
          const expected = all
            .filter(
              (r) => holdsWord(r.text) && (!w || matchesWhere(w, r.meta)) && (!doc || matchesDocument(doc, r.text)),
            )
            .map((r) => r.id)
            .sort();
          expect(fromSql.map((h) => h.id).sort()).toEqual(expected);
          expect(fromMemory.map((h) => [h.id, h.distance])).toEqual(fromSql.map((h) => [h.id, h.distance]));
          if (expected.length) nonEmpty++;
        }),
        { numRuns: 150, seed },
      );
      expect(nonEmpty).toBeGreaterThan(30);
      await inMemory.close();
      await inSql.close();
    }
  });

  it("tests the filter in SQL again once another process has written", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    const note = (p: string, tags: string[]) => ({
      note: { path: p, hash: p, mtime: 0, size: 0 },
      records: [record(p, meta({ path: p, tags }), vec(1, 0, 0, 0), "motor notes")],
    });
    await s.upsertNotes([note("a.md", ["pico"]), note("b.md", [])]);
    const where = normaliseWhere({ tags: { $contains: "pico" } });
    await s.queryDense(vec(1, 0, 0, 0), 10, { where });
    expect((await s.queryKeyword("motor", 10, { where })).map((h) => h.id)).toEqual(["a.md"]);
    // the kept columns are of the generation before this write: c.md must still be found
    const writer = SqliteStore.open(file);
    await writer.upsertNotes([note("c.md", ["pico"])]);
    await writer.close();
    expect((await s.queryKeyword("motor", 10, { where })).map((h) => h.id).sort()).toEqual(["a.md", "c.md"]);
    await s.close();
  });
});
