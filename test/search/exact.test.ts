import { describe, expect, it } from "vitest";
import { fuse, isRareLookup, namedFirst, withSearchDefaults } from "../../src/search/index.js";
import { SqliteStore, type ScoredRecord } from "../../src/store/index.js";
import { testManifest } from "../store/backends.js";
import { meta, tmpDb } from "../store/helpers.js";

const rec = (id: string, distance: number, backlinked?: true): ScoredRecord => ({
  id,
  text: id,
  meta: meta({ path: `${id}.md` }),
  distance,
  ...(backlinked ? { backlinked } : {}),
});

/**
 * A dense list of 40 passages the model ranks by sound alone, and a keyword list of the three
 * passages that hold a rare word: BM25 8, 3 and 0.9 (the third only through its backlink text).
 */
function lists() {
  const dense = Array.from({ length: 40 }, (_, i) => rec(`d${i}`, 0.2 + i * 0.01));
  dense.push(rec("k1", 0.7), rec("k2", 0.75), rec("k3", 0.8));
  const keyword = [rec("k1", -8), rec("k2", -3), rec("k3", -0.9, true)];
  return { dense, keyword };
}

describe("a dense fusion", () => {
  const o = withSearchDefaults({ mode: "dense" });

  it("ranks by the vectors alone, unless the keyword list holds the passages still without vectors", () => {
    const { dense, keyword } = lists();
    // eval fuses every setting from the same lists: a dense setting must not read the keyword list
    expect(fuse(o, dense, keyword, "quokka").map((h) => h.id)).toEqual(dense.map((r) => r.id));
    // during an index run's dense phase, search passes the passages without vectors in that list
    const partial = fuse(o, dense, keyword, "quokka", { partial: true }).map((h) => h.id);
    expect(partial).not.toEqual(dense.map((r) => r.id));
    expect(partial).toEqual(expect.arrayContaining(["k1", "k2", "k3"]));
  });
});

describe("a lookup of rare words", () => {
  const o = withSearchDefaults();

  it("keeps the keyword list's first passages at the top of a hybrid fusion, in fused order", () => {
    const { dense, keyword } = lists();
    // the plain fusion buries the keyword list's third passage under the passages the model liked
    const plain = fuse(o, dense, keyword).map((h) => h.id);
    expect(plain.indexOf("k3")).toBeGreaterThan(10);
    const led = fuse(o, dense, keyword, undefined, { rare: true });
    expect(led.slice(0, 3).map((h) => h.id)).toEqual(["k1", "k2", "k3"]);
    // the list stays in order of distance, and the rest follow as they were fused
    const distances = led.map((h) => h.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    expect(led.slice(3).map((h) => h.id)).toEqual(plain.filter((id) => !id.startsWith("k")));
    // keyword mode and dense mode are left as they rank
    expect(fuse({ ...o, mode: "keyword" }, dense, keyword, undefined, { rare: true }).map((h) => h.id)).toEqual([
      "k1",
      "k2",
      "k3",
    ]);
    expect(fuse({ ...o, mode: "dense" }, dense, keyword, undefined, { rare: true })[0].id).toBe("d0");
  });

  it("is a question of at most two words besides stopwords, each in at least one passage and at most 1% of them", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(512));
    const vector = new Float32Array(512).fill(1 / Math.sqrt(512));
    // 300 passages: "motor" in every one, "quokka" in 2, "wombat" in 3, "numbat" in 5 (over 1%)
    await store.upsertNotes(
      Array.from({ length: 300 }, (_, i) => {
        const path = `n/${i}.md`;
        const words = ["motor", i < 2 && "quokka", i < 3 && "wombat", i < 5 && "numbat"].filter(Boolean).join(" ");
        return {
          note: { path, hash: path, mtime: 1, size: 1 },
          records: [{ id: path, text: words, meta: meta({ path }), windows: [{ hash: path, vector }] }],
        };
      }),
    );
    expect(await isRareLookup(store, "quokka")).toBe(true);
    expect(await isRareLookup(store, "the quokka and a wombat")).toBe(true);
    expect(await isRareLookup(store, "numbat")).toBe(false);
    expect(await isRareLookup(store, "quokka motor")).toBe(false);
    expect(await isRareLookup(store, "quokka wombat numbat")).toBe(false);
    expect(await isRareLookup(store, "platypus")).toBe(false);
    await store.close();
  });

  it("puts first a note that the display text of links to it names, unless the text is common words", () => {
    const hit = (path: string, distance: number) => ({ path, distance, score: 1 - distance, meta: { title: path } });
    const hits = [hit("Dimensionality reduction.md", 0.1), hit("Principle Component Analysis.md", 0.5)];
    const names = new Map([
      ["Principle Component Analysis.md", ["PCA"]],
      ["Dimensionality reduction.md", ["here"]],
    ]);
    expect(namedFirst(hits, "pca", names).map((h) => [h.path, h.distance])).toEqual([
      ["Principle Component Analysis.md", 0.1],
      ["Dimensionality reduction.md", 0.1],
    ]);
    expect(namedFirst(hits, "pca")).toBe(hits);
    expect(namedFirst(hits, "here", names)).toBe(hits);
  });
});
