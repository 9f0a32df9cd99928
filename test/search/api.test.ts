import { describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embed/index.js";
import { K, Knn, normaliseWhereDocument, Rrf, runSearches, Search, Val } from "../../src/advanced.js";
import { normaliseWhere } from "../../src/store/index.js";
import { meta, openStore, record, vec } from "../store/helpers.js";

/** Queries are given as vectors here, so no model is involved; bm25 uses the real FTS5 index. */
const embedder = { embedQuery: async () => vec(1, 0, 0, 0) } as unknown as Embedder;

async function fixture() {
  const store = await openStore();
  const rows = [
    record(
      "a",
      meta({ path: "r/a.md", tags: ["robots"], word_count: 5, hash: "a" }),
      vec(1, 0, 0, 0),
      "motor driver DRV8833",
    ),
    record(
      "b",
      meta({ path: "r/b.md", tags: ["robots", "pico"], word_count: 50, hash: "b" }),
      vec(0.9, 0.1, 0, 0),
      "pico power saving",
    ),
    record(
      "c",
      meta({ path: "k/c.md", tags: ["baking"], word_count: 30, hash: "c" }),
      vec(0, 1, 0, 0),
      "sourdough bread motor",
    ),
    record("d", meta({ path: "k/d.md", tags: ["baking"], word_count: 10, hash: "d" }), vec(0, 0, 1, 0), "pizza dough"),
  ];
  await store.upsertNotes(
    rows.map((r) => ({ note: { path: r.meta.path, hash: r.id, mtime: 1, size: 1 }, records: [r] })),
  );
  return store;
}

describe("Search API", () => {
  it("is immutable: every call returns a new Search", () => {
    const base = new Search();
    const limited = base.limit(3);
    const filtered = limited.where(K("folder").eq("r"));
    expect(base.limitN).toBe(10);
    expect(limited.limitN).toBe(3);
    expect(limited.filter).toBeUndefined();
    expect(filtered.filter?.where).toEqual({ folder: { $eq: "r" } });
  });

  it("compiles K expressions to the filter language", () => {
    const f = K("tags").contains("Pico").and(K("word_count").gt(10)).and(K.DOCUMENT.contains("power"));
    expect(normaliseWhere(f.where)).toEqual({
      kind: "and",
      clauses: [
        { kind: "list", field: "tags", op: "$contains", value: "pico" },
        { kind: "cmp", field: "word_count", op: "$gt", value: 10 },
      ],
    });
    expect(normaliseWhereDocument(f.whereDocument)).toEqual({ kind: "doc", op: "$contains", value: "power" });
    expect(K("folder").isIn(["r", "k"]).or(K("mtime").lte(5)).where).toEqual({
      $or: [{ folder: { $in: ["r", "k"] } }, { mtime: { $lte: 5 } }],
    });
    expect(() => K("folder").eq("r").or(K.DOCUMENT.contains("x"))).toThrow(
      "vault-rag: `or` can join metadata conditions or document conditions, not one of each — split the search in two",
    );
    expect(K("a").ne(1).where).toEqual({ a: { $ne: 1 } });
    expect(K("a").gte(1).where).toEqual({ a: { $gte: 1 } });
    expect(K("a").lt(1).where).toEqual({ a: { $lt: 1 } });
    expect(K("a").notIn([1]).where).toEqual({ a: { $nin: [1] } });
    expect(K("tags").notContains("x").where).toEqual({ tags: { $not_contains: "x" } });
    expect(K.DOCUMENT.notContains("x").whereDocument).toEqual({ $not_contains: "x" });
    expect(K.DOCUMENT.regex("^m").whereDocument).toEqual({ $regex: "^m" });
    expect(K.DOCUMENT.notRegex("x").whereDocument).toEqual({ $not_regex: "x" });
    for (const doc of [K.DOCUMENT.notContains("x"), K.DOCUMENT.regex("^m")]) expect(doc.where).toBeUndefined();
    for (const meta of [K("a").ne(1), K("tags").notContains("x")]) expect(meta.whereDocument).toBeUndefined();
  });

  it("ranks by a dense Knn with filters applied before ranking, and selects fields", async () => {
    const store = await fixture();
    const s = new Search()
      .where(K("folder").eq("k"))
      .rank(Knn({ query: [1, 0, 0, 0], limit: 5 }))
      .limit(2)
      .select(K.SCORE, "title");
    const [rows] = (await runSearches({ store, embedder }, s)).rows();
    expect(rows.map((r) => r.id)).toEqual(["c", "d"]);
    expect(rows[0].score).toBeCloseTo(1, 6);
    expect(rows[0].metadata).toEqual({ title: "k/c.md" });
    expect(rows[0].document).toBeUndefined();
    await store.close();
  });

  it("applies the inclusion rules: every Knn without a default must hold the record", async () => {
    const store = await fixture();
    const dense = Knn({ query: [1, 0, 0, 0], limit: 2 }); // a, b
    const bm25 = Knn({ query: "motor", key: "bm25", limit: 5 }); // a, c
    const intersect = await runSearches({ store, embedder }, new Search().rank(dense.add(bm25)).limit(10));
    expect(intersect.rows()[0].map((r) => r.id)).toEqual(["a"]);
    // with a default on the bm25 Knn, b stays in the pool with that score; c (only in bm25) is still out
    const withDefault = Knn({ query: "motor", key: "bm25", limit: 5, default: 1000 });
    const rows = (
      await runSearches({ store, embedder }, new Search().rank(dense.mul(0.5).add(withDefault.mul(0.5))).limit(10))
    ).rows()[0];
    expect(rows.map((r) => r.id)).toEqual(["a", "b"]);
    // (the store keeps window vectors as float16: the distance is exact to about 4 decimals)
    expect(rows[1].score).toBeCloseTo(0.5 * (1 - 0.9 / Math.hypot(0.9, 0.1)) + 500, 4);
    await store.close();
  });

  it("fuses ranks with Rrf (negative scores, lower is better) and runs several searches at once", async () => {
    const store = await fixture();
    const rrf = Rrf({
      ranks: [
        Knn({ query: [1, 0, 0, 0], returnRank: true, limit: 4, default: 10 }),
        Knn({ query: "motor", key: "bm25", returnRank: true, limit: 4, default: 10 }),
      ],
      weights: [1, 1],
      k: 60,
    });
    const res = await runSearches({ store, embedder }, [
      new Search().rank(rrf).limit(3),
      new Search().rank(Val(1).add(Knn({ query: [0, 0, 1, 0], limit: 1 }))).limit(1),
    ]);
    const [fused, single] = res.rows();
    expect(fused[0].id).toBe("a");
    expect(fused[0].score).toBeCloseTo(-(1 / 60 + 1 / 60), 12);
    expect(single.map((r) => r.id)).toEqual(["d"]);
    expect(single[0].score).toBeCloseTo(1, 6);
    await store.close();
  });

  it("filters by id and supports arithmetic on rank expressions", async () => {
    const store = await fixture();
    const knn = Knn({ query: [1, 0, 0, 0], limit: 4 });
    const rows = (
      await runSearches(
        { store, embedder },
        new Search()
          .where(K.ID.notIn(["a"]))
          .rank(knn.neg().abs().max(0).sub(Val(0)).div(1).exp().log().min(100))
          .limit(4),
      )
    ).rows()[0];
    expect(rows.map((r) => r.id)).toEqual(["b", "c", "d"]);
    await store.close();
  });
});
