import { afterEach, describe, expect, it, vi } from "vitest";
import { normaliseWhere, normaliseWhereDocument } from "../../src/store/index.js";
import { REGEX_LIMITS } from "../../src/store/regex.js";
import { DOCUMENT_FILTER_DEFAULTS, DocumentRows } from "../../src/store/sqlite/document-rows.js";
import { meta, openStore, record, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const defaults = { ...DOCUMENT_FILTER_DEFAULTS };
const budget = REGEX_LIMITS.budgetMs;
const parts = () => normaliseWhereDocument({ $regex: "DRV\\d{4}" })!;
const smallest = () => Object.assign(DOCUMENT_FILTER_DEFAULTS, { sliceMs: 0.001, firstSlice: 16 }); // slices of 16 rows

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

const newPart = {
  note: note("new.md"),
  records: [record("new", meta({ path: "new.md" }), vec(1, 0, 0, 0), "motor DRV8833")],
};

describe("a whereDocument filter is tested ahead, in slices", () => {
  afterEach(() => {
    Object.assign(DOCUMENT_FILTER_DEFAULTS, defaults);
    REGEX_LIMITS.budgetMs = budget;
    vi.restoreAllMocks();
  });

  it("lets the process do other work between a dense query's slices, and finds what one pass finds", async () => {
    const s = await partsStore(600);
    smallest();
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const hits = await s.queryDense(vec(1, 0, 0, 0), 1000, { whereDocument: parts() });
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

  it("tests each passage once for a search's dense and keyword queries, and again after a write", async () => {
    const s = await partsStore(30);
    expect(await s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: parts() })).toHaveLength(10);
    // no time left for any test: the rows kept still answer, with or without a where filter
    REGEX_LIMITS.budgetMs = -1;
    expect(await s.queryKeyword("motor", 100, { whereDocument: parts() })).toHaveLength(10);
    const where = normaliseWhere({ word_count: { $gte: 15 } });
    const both = await s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: parts(), where });
    expect(both.map((h) => h.id).sort()).toEqual(["n15", "n18", "n21", "n24", "n27"]);
    const keywordBoth = await s.queryKeyword("motor", 100, { whereDocument: parts(), where });
    expect(keywordBoth.map((h) => h.id).sort()).toEqual(["n15", "n18", "n21", "n24", "n27"]);
    // another filter is tested within the keyword query, and stopped
    await expect(
      s.queryKeyword("motor", 100, { whereDocument: normaliseWhereDocument({ $regex: "DRV88\\d\\d" })! }),
    ).rejects.toThrow(/^vault-rag: the regular expression "DRV88\\\\d\\\\d" in whereDocument ran for over/);
    // a write makes the kept rows old: the same filter is tested again
    await s.upsertNotes([newPart]);
    await expect(s.queryKeyword("motor", 100, { whereDocument: parts() })).rejects.toThrow(/ran for over/);
    REGEX_LIMITS.budgetMs = budget;
    expect(await s.queryKeyword("motor", 100, { whereDocument: parts() })).toHaveLength(11);
    await s.close();
  });

  it("keeps no rows tested while the index changed, and answers such a query from its own read", async () => {
    const s = await partsStore(600);
    smallest();
    const dense = s.queryDense(vec(1, 0, 0, 0), 1000, { whereDocument: parts() });
    await new Promise((r) => setImmediate(r)); // the slices are under way
    await s.upsertNotes([newPart]);
    // the new passage passes: the query tested its filter again, within the read that found it
    const hits = (await dense).map((h) => h.id);
    expect(hits).toHaveLength(201);
    expect(hits).toContain("new");
    // nothing was kept from the slices on either side of the write
    REGEX_LIMITS.budgetMs = -1;
    await expect(s.queryKeyword("motor", 100, { whereDocument: parts() })).rejects.toThrow(/ran for over/);
    await s.close();
  });

  it("tests the passages once for queries asked at the same time with the same filter", async () => {
    const s = await partsStore(200);
    smallest();
    const slices = vi.spyOn(DocumentRows.prototype as unknown as { slices: () => unknown }, "slices");
    const answers = await Promise.all([
      s.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: parts() }),
      s.warmFilter({ whereDocument: parts() }).then(() => s.queryKeyword("motor", 100, { whereDocument: parts() })),
      s.queryDense(vec(0, 1, 0, 0), 100, { whereDocument: parts() }),
    ]);
    expect(answers.map((a) => a.length)).toEqual([67, 67, 67]);
    expect(slices).toHaveBeenCalledTimes(1);
    await s.close();
  });

  it("lets a query between its filter's slices finish before the store closes", async () => {
    const s = await partsStore(600);
    smallest();
    const dense = s.queryDense(vec(1, 0, 0, 0), 1000, { whereDocument: parts() });
    const warmed = s.warmFilter({ whereDocument: parts() });
    await new Promise((r) => setImmediate(r)); // the slices are under way
    await s.close();
    expect((await dense).length).toBe(200);
    await expect(warmed).resolves.toBeUndefined();
  });

  it("stops a filter whose slices together run past the budget, each slice well within it", async () => {
    const s = await partsStore(1000);
    smallest();
    // one pattern, told apart by flags that change nothing here (each its own kept rows)
    const costly = (flags: string) => normaliseWhereDocument({ $regex: `${flags}(\\w+\\s){30}DRV` })!;
    // the filter's whole run here (once warmed up), then a budget of an eighth of it: about 8 of its 63 slices
    await s.warmFilter({ whereDocument: costly("(?m)") });
    let t = performance.now();
    await s.warmFilter({ whereDocument: costly("") });
    t = performance.now() - t;
    REGEX_LIMITS.budgetMs = t / 8;
    await expect(s.warmFilter({ whereDocument: costly("(?s)") })).rejects.toThrow(
      /^vault-rag: the regular expression "\(\?s\)\(\\\\w\+\\\\s\)\{30\}DRV" in whereDocument ran for over 0\.\d+ s/,
    );
    await s.close();
  });
});
