import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesWhere, normaliseWhere, normaliseWhereDocument } from "../../src/store/index.js";
import { forEachBackend } from "./backends.js";
import { meta, openStore, record, vec } from "./helpers.js";

const IDS = ["a", "b", "c", "d", "e"];
const batch = IDS.map((id, i) => ({
  note: { path: `${id}.md`, hash: id, mtime: 0, size: 0 },
  records: [record(id, meta({ path: `${id}.md`, word_count: i }), vec(1, 0, 0, 0), `text ${id}`)],
}));
/** `inner` nested in alternating $and/$or so that it sits at level `depth`. */
const nest = (depth: number, inner: Record<string, unknown>) => {
  let w = inner;
  for (let i = 1; i < depth; i++) w = { [i % 2 ? "$and" : "$or"]: [w, inner] };
  return w;
};
const refusal = (f: () => unknown) =>
  Promise.resolve()
    .then(f)
    .then(
      () => "no error",
      (e: Error) => e.message,
    );
/** `n` paths, with b.md at 123 and d.md last. */
const paths = (n: number) =>
  Array.from({ length: n }, (_, i) => (i === 123 ? "b.md" : i === n - 1 ? "d.md" : `n${i}.md`));

forEachBackend("large filters on $name", (backend) => {
  it("selects with long $in/$nin lists, an $or of 10,000 clauses and 32 levels of nesting", async () => {
    const { store } = await backend.fresh();
    await store.upsertNotes(batch);
    const ids = async (where: Record<string, unknown>) =>
      (await store.queryDense(vec(1, 0, 0, 0), 100, { where: normaliseWhere(where) })).map((h) => h.id).sort();
    // SQLite binds a list as one JSON parameter; a Chroma server takes 30,000 values in one query
    const n = backend.name === "SQLite" ? 40_000 : 29_000;
    expect(await ids({ path: { $in: paths(n) } })).toEqual(["b", "d"]);
    expect(await ids({ path: { $nin: paths(n) } })).toEqual(["a", "c", "e"]);
    expect(await ids({ word_count: { $in: Array.from({ length: n / 2 }, (_, i) => i + 3) } })).toEqual(["d", "e"]);
    expect(await ids({ $or: paths(10_000).map((p) => ({ path: p })) })).toEqual(["b", "d"]);
    expect(await ids({ $and: paths(10_000).map((p) => ({ path: { $ne: p } })) })).toEqual(["a", "c", "e"]);
    expect(await ids(nest(32, { path: { $ne: "c.md" } }))).toEqual(["a", "b", "d", "e"]);
    expect(
      (await store.queryKeyword("text", 100, { where: normaliseWhere({ path: { $in: paths(n) } }) }))
        .map((h) => h.id)
        .sort(),
    ).toEqual(["b", "d"]);
    // a Chroma server's time grows with the square of the number of conditions: 1,000 at most there
    const m = backend.name === "SQLite" ? 2_000 : 200;
    const wd = normaliseWhereDocument({
      $or: IDS.flatMap((id) =>
        Array.from({ length: m }, (_, i) => ({ $contains: i === m - 1 && id !== "c" ? `text ${id}` : `nothing ${i}` })),
      ),
    });
    expect((await store.queryDense(vec(1, 0, 0, 0), 100, { whereDocument: wd })).map((h) => h.id).sort()).toEqual([
      "a",
      "b",
      "d",
      "e",
    ]);
    if (backend.name === "Chroma") {
      expect(
        await refusal(() =>
          store.queryDense(vec(1, 0, 0, 0), 100, {
            where: normaliseWhere({ $or: paths(1_001).map((p) => ({ path: { $ne: p } })) }),
          }),
        ),
      ).toBe(
        "vault-rag: the filter holds 1001 conditions for the Chroma server, which takes at most 1000 in one query (the limit; its time grows with their square) — put the values of many clauses on one field into one $in or $nin list",
      );
      expect(
        await refusal(() =>
          store.queryDense(vec(1, 0, 0, 0), 100, { where: normaliseWhere({ path: { $in: paths(40_000) } }) }),
        ),
      ).toBe(
        "vault-rag: the filter hands 40000 values to the Chroma server (a text $in/$nin value counts 1, a number or any other condition 2), which takes at most 30000 in one query (the limit) — shorten the $in/$nin lists, or filter on folder or tags instead",
      );
    }
    await store.close();
  });
});

describe("filter size limits", () => {
  it("refuses nesting deeper than 32 levels and more than 10,000 conditions, word for word", async () => {
    for (const depth of [33, 20_000]) {
      expect(await refusal(() => normaliseWhere(nest(depth, { folder: "kitchen" })))).toBe(
        "vault-rag: the where filter nests $and/$or more than 32 levels deep (the limit) — flatten it: one $and or $or takes any number of clauses",
      );
      expect(await refusal(() => normaliseWhereDocument(nest(depth, { $contains: "PETG" })))).toBe(
        "vault-rag: the whereDocument filter nests $and/$or more than 32 levels deep (the limit) — flatten it: one $and or $or takes any number of clauses",
      );
    }
    expect(await refusal(() => normaliseWhere({ $or: paths(10_001).map((p) => ({ path: p })) }))).toBe(
      "vault-rag: the where filter holds more than 10000 conditions (the limit) — put the values of many $eq clauses on one field into one $in list",
    );
    // values of $in/$nin lists count together: two lists of 25,001 are one too many
    expect(await refusal(() => normaliseWhere({ path: { $nin: paths(50_000) } }))).toBe("no error");
    expect(
      await refusal(() =>
        normaliseWhere({
          $and: [{ path: { $in: paths(25_001) } }, { word_count: { $nin: [...Array(25_000).keys()] } }],
        }),
      ),
    ).toBe(
      "vault-rag: the where filter's $in/$nin lists hold more than 50000 values together (the limit) — narrow the search with a folder or a tag instead",
    );
    // whereDocument has no $in: its advice is its own
    expect(await refusal(() => normaliseWhereDocument({ $or: paths(10_001).map((p) => ({ $contains: p })) }))).toBe(
      "vault-rag: the whereDocument filter holds more than 10000 conditions (the limit) — narrow the search with where (a tag, a folder) instead",
    );
  });

  it("agrees with the reference evaluator on random large lists and deep or wide filters", async () => {
    const store = await openStore();
    await store.upsertNotes(batch);
    const leaf = fc.oneof(
      fc
        .record({
          op: fc.constantFrom("$in", "$nin"),
          n: fc.integer({ min: 1, max: 50_000 }),
          seed: fc.integer({ min: 0, max: 9 }),
        })
        .map(({ op, n, seed }) => ({
          [seed % 2 ? "path" : "word_count"]: {
            [op]: Array.from({ length: n }, (_, i) => (seed % 2 ? `${"abcdexyz"[(i * seed) % 8]}.md` : (i * seed) % 9)),
          },
        })),
      fc.constantFrom(...IDS).map((id) => ({ path: { $ne: `${id}.md` } })),
    );
    const shape = fc.record({
      depth: fc.integer({ min: 1, max: 40 }),
      width: fc.integer({ min: 0, max: 12_000 }),
      big: leaf,
      small: leaf.filter(
        (x) => !("word_count" in x) && !("$in" in (x.path as object)) && !("$nin" in (x.path as object)),
      ),
    });
    await fc.assert(
      fc.asyncProperty(shape, async ({ depth, width, big, small }) => {
        // one long list, `width` small clauses beside it, all `depth` levels down
        const wide = width
          ? { [width % 2 ? "$or" : "$and"]: [big, ...Array.from({ length: width }, () => small)] }
          : big;
        let w: Record<string, unknown> = wide;
        for (let i = 1; i < depth; i++) w = { [i % 2 ? "$and" : "$or"]: [w, small] };
        const conditions = (width ? width + 1 : 1) + depth - 1;
        let node;
        try {
          node = normaliseWhere(w)!;
        } catch (e) {
          const msg = (e as Error).message;
          if (depth + (width ? 1 : 0) > 32)
            expect(msg).toBe(
              "vault-rag: the where filter nests $and/$or more than 32 levels deep (the limit) — flatten it: one $and or $or takes any number of clauses",
            );
          else {
            expect(conditions).toBeGreaterThan(10_000);
            expect(msg).toBe(
              "vault-rag: the where filter holds more than 10000 conditions (the limit) — put the values of many $eq clauses on one field into one $in list",
            );
          }
          return;
        }
        expect(depth + (width ? 1 : 0)).toBeLessThanOrEqual(32);
        expect(conditions).toBeLessThanOrEqual(10_000);
        const expected = batch
          .flatMap((b) => b.records)
          .filter((r) => matchesWhere(node, r.meta))
          .map((r) => r.id)
          .sort();
        expect((await store.queryDense(vec(1, 0, 0, 0), 100, { where: node })).map((h) => h.id).sort()).toEqual(
          expected,
        );
      }),
      { numRuns: Number(process.env.FUZZ_RUNS_LARGE ?? 60), seed: 7 },
    );
    await store.close();
  });
});
