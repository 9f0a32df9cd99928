import { afterEach, describe, expect, it, vi } from "vitest";
import { normaliseWhere, normaliseWhereDocument } from "../../src/store/index.js";
import { REGEX_LIMITS } from "../../src/store/regex.js";
import { DOCUMENT_FILTER_DEFAULTS, DocumentRows } from "../../src/store/sqlite/document-rows.js";
import { meta, openStore, record, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const defaults = { ...DOCUMENT_FILTER_DEFAULTS };
const budget = REGEX_LIMITS.budgetMs;

/** A store of `n` one-passage notes; every third passage names a DRV part. */
async function partsStore(n: number) {
  const s = await openStore();
  await s.upsertNotes(
    Array.from({ length: n }, (_, i) => ({
      note: note(`n${i}.md`),
      records: [
        record(
          `n${i}`,
          meta({ path: `n${i}.md`, word_count: i }),
          vec(1, i / n, 0, 0),
          `motor notes ${i % 3 === 0 ? `DRV${8800 + i}` : "no part"} ${"word ".repeat(50)}`,
        ),
      ],
    })),
  );
  return s;
}

describe("a whereDocument filter runs in slices", () => {
  afterEach(() => {
    Object.assign(DOCUMENT_FILTER_DEFAULTS, defaults);
    REGEX_LIMITS.budgetMs = budget;
  });

  it("lets the process do other work between slices of a query's tests, and finds what one pass finds", async () => {
    const s = await partsStore(600);
    const wd = normaliseWhereDocument({ $regex: "DRV\\d{4}" })!;
    Object.assign(DOCUMENT_FILTER_DEFAULTS, { sliceMs: 0.001, firstSlice: 16 }); // the smallest slices: 16 rows
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const hits = await s.queryKeyword("motor", 1000, { whereDocument: wd });
    const during = turns;
    ticking = false;
    // 600 rows in 38 slices of 16: the other work ran between them (a query run in one go lets none run)
    expect(during).toBeGreaterThanOrEqual(30);
    expect(hits.map((h) => h.id).sort()).toEqual(
      Array.from({ length: 600 }, (_, i) => i)
        .filter((i) => i % 3 === 0)
        .map((i) => `n${i}`)
        .sort(),
    );
    await s.close();
  });

  it("tests each passage once for a search's queries, and again after a write", async () => {
    const s = await partsStore(30);
    const wd = normaliseWhereDocument({ $regex: "DRV\\d{4}" })!;
    const where = normaliseWhere({ word_count: { $gte: 15 } });
    expect(await s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: wd })).toHaveLength(10);
    // no time left for any test: what was kept still answers, with or without a where filter
    REGEX_LIMITS.budgetMs = -1;
    expect(await s.queryKeyword("motor", 100, { whereDocument: wd })).toHaveLength(10);
    const both = await s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: wd, where });
    expect(both.map((h) => h.id).sort()).toEqual(["n15", "n18", "n21", "n24", "n27"]);
    // another filter is tested, and stopped
    await expect(
      s.queryKeyword("motor", 100, { whereDocument: normaliseWhereDocument({ $regex: "DRV88\\d\\d" })! }),
    ).rejects.toThrow(/^vault-rag: the regular expression "DRV88\\\\d\\\\d" in whereDocument ran for over/);
    // a write makes the kept rows old: the same filter is tested again
    await s.upsertNotes([
      { note: note("new.md"), records: [record("new", meta({ path: "new.md" }), vec(1, 0, 0, 0), "motor DRV8833")] },
    ]);
    await expect(s.queryKeyword("motor", 100, { whereDocument: wd })).rejects.toThrow(/ran for over/);
    REGEX_LIMITS.budgetMs = budget;
    expect(await s.queryKeyword("motor", 100, { whereDocument: wd })).toHaveLength(11);
    await s.close();
  });

  it("tests the passages once for searches asked at the same time with the same filter", async () => {
    const s = await partsStore(200);
    Object.assign(DOCUMENT_FILTER_DEFAULTS, { sliceMs: 0.001, firstSlice: 16 });
    const tests = vi.spyOn(DocumentRows.prototype as unknown as { test: () => unknown }, "test");
    const wd = () => normaliseWhereDocument({ $regex: "DRV\\d{4}" })!;
    const answers = await Promise.all([
      s.queryKeyword("motor", 100, { whereDocument: wd() }),
      s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: wd() }),
      s.queryKeyword("notes", 100, { whereDocument: wd() }),
    ]);
    expect(answers.map((a) => a.length)).toEqual([67, 67, 67]);
    expect(tests).toHaveBeenCalledTimes(1);
    tests.mockRestore();
    await s.close();
  });

  it("lets a query between its filter's slices finish before the store closes", async () => {
    const s = await partsStore(600);
    Object.assign(DOCUMENT_FILTER_DEFAULTS, { sliceMs: 0.001, firstSlice: 16 });
    const wd = normaliseWhereDocument({ $regex: "DRV\\d{4}" })!;
    const keyword = s.queryKeyword("motor", 1000, { whereDocument: wd });
    const dense = s.queryDense(vec(1, 0, 0, 0), 1000, { whereDocument: wd });
    await new Promise((r) => setImmediate(r)); // the slices are under way
    await s.close();
    expect((await keyword).length).toBe(200);
    expect((await dense).length).toBe(200);
  });

  it("stops a filter whose slices together run past the budget, each slice well within it", async () => {
    // 1,000 passages in slices of 16: about 15 ms in all here, a quarter of a ms a slice
    const s = await partsStore(1000);
    Object.assign(DOCUMENT_FILTER_DEFAULTS, { sliceMs: 0.001, firstSlice: 16 });
    REGEX_LIMITS.budgetMs = 3;
    await expect(
      s.queryKeyword("motor", 10, { whereDocument: normaliseWhereDocument({ $regex: "(\\w+\\s){30}DRV" })! }),
    ).rejects.toThrow(
      /^vault-rag: the regular expression "\(\\\\w\+\\\\s\)\{30\}DRV" in whereDocument ran for over 0.003 s/,
    );
    await s.close();
  });
});
