import { expect, it } from "vitest";
import { matchesWhere, normaliseWhere, normaliseWhereDocument, type NoteEntry } from "../../src/store/index.js";
import { forEachBackend } from "./backends.js";
import { meta, record, vec } from "./helpers.js";

const note = (p: string, hash = `h-${p}`): NoteEntry => ({ path: p, hash, mtime: 1, size: 1 });
const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

/** A note and a diary that will link to it, for the backlink tests. */
const sourdoughAndDiary = () => ({
  target: record("t1", meta({ path: "Sourdough.md", title: "Sourdough", section: "s" }), vec(1, 0, 0, 0), "Flour."),
  diary: record("d1", meta({ path: "Diary.md", title: "Diary", section: "d" }), vec(0, 1, 0, 0), "Today."),
});

/** One set of store tests, run against every backend: the embedded SQLite store and a real Chroma server. */
forEachBackend("$name store conformance", (backend) => {
  it("filters before ranking: a filter that keeps only distant chunks still returns k hits", async () => {
    const { store: s } = await backend.fresh();
    const near = Array.from({ length: 20 }, (_, i) =>
      record(`n${i}`, meta({ path: "near.md", ordinal: i, hash: `n${i}` }), vec(1, 0.01 * i, 0, 0)),
    );
    // far from the query, each a little farther than the last (no ties: a tie may come back in any order)
    const far = Array.from({ length: 5 }, (_, i) =>
      record(
        `f${i}`,
        meta({ path: "far/x.md", ordinal: i, tags: ["far"], hash: `f${i}` }),
        vec(0.05 * (5 - i), 1, 0, 0),
      ),
    );
    await s.upsertNotes([
      { note: note("near.md"), records: near },
      { note: note("far/x.md"), records: far },
    ]);
    expect(
      ids(await s.queryDense(vec(1, 0, 0, 0), 3, { where: normaliseWhere({ tags: { $contains: "far" } }) })),
    ).toEqual(["f0", "f1", "f2"]);
    expect(ids(await s.queryDense(vec(1, 0, 0, 0), 3))).toEqual(["n0", "n1", "n2"]);
    const [best] = await s.queryDense(vec(1, 0, 0, 0), 1);
    expect(best.distance).toBeCloseTo(0, 5);
    expect(best.meta).toEqual(near[0].meta);
    expect(best.text).toBe("text of n0");
    await s.close();
  });

  it("ranks a chunk of several windows by its windows' pooled vector, identically on every backend", async () => {
    const { store: s } = await backend.fresh();
    // "long": two windows pointing two ways; its pooled vector (1, 1)/√2 is nearer (1, 1) than either window
    const long = {
      ...record("long", meta({ path: "long.md", hash: "L" }), vec(1, 0, 0, 0)),
      windows: [
        { hash: "L1", vector: vec(1, 0, 0, 0) },
        { hash: "L2", vector: vec(0, 1, 0, 0) },
      ],
    };
    const one = record("one", meta({ path: "one.md", hash: "O" }), vec(1, 0.3, 0, 0));
    await s.upsertNotes([
      { note: note("long.md"), records: [long] },
      { note: note("one.md"), records: [one] },
    ]);
    const hits = await s.queryDense(vec(1, 1, 0, 0), 2);
    expect(ids(hits)).toEqual(["long", "one"]);
    // (to 4 decimals: the SQLite store keeps vectors as float16, see vector-blob.ts)
    expect(hits[0].distance).toBeCloseTo(0, 4);
    expect(hits[1].distance).toBeCloseTo(1 - 1.3 / (Math.SQRT2 * Math.hypot(1, 0.3)), 4);
    await s.close();
  });

  it("keeps a note's old chunks when an upsert fails, and refuses a query vector of the wrong size", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([{ note: note("a.md"), records: [record("a0", meta({ path: "a.md" }), vec(1, 0, 0, 0))] }]);
    const bad = [
      record("b0", meta({ path: "a.md", hash: "x1" }), vec(0, 1, 0, 0)),
      record("b1", meta({ path: "a.md", hash: "x2" }), new Float32Array(7)),
    ];
    await expect(async () => s.upsertNotes([{ note: note("a.md", "new"), records: bad }])).rejects.toThrow(
      'vault-rag: vector of 7 dimensions for "a.md" does not fit the index (4-d) — rebuild the index from the notes',
    );
    expect(ids(await s.get({ path: "a.md" }))).toEqual(["a0"]);
    expect((await s.notes()).get("a.md")?.hash).toBe("h-a.md");
    expect(ids(await s.queryDense(vec(0, 1, 0, 0), 5))).toEqual(["a0"]);
    await expect(async () => s.queryDense(new Float32Array(3), 5)).rejects.toThrow(
      /^vault-rag: query vector has 3 dimensions but the index at .* holds 4-d vectors — query with the model that built the index$/,
    );
    await s.close();
  });

  it("moves every chunk's date when a note is touched, for date filters and for a reader opened before", async () => {
    const { store: s, reopen } = await backend.fresh();
    const old = 1_700_000_000;
    const recs = [0, 1].map((i) =>
      record(`t${i}`, meta({ path: "t.md", ordinal: i, hash: `t${i}`, mtime: old }), vec(1, i, 0, 0)),
    );
    await s.upsertNotes([{ note: { path: "t.md", hash: "h", mtime: old, size: 5 }, records: recs }]);
    const reader = await reopen();
    const since = (store: typeof s) =>
      store.queryDense(vec(1, 0, 0, 0), 5, { where: normaliseWhere({ mtime: { $gte: old + 50 } }) });
    expect(ids(await since(reader))).toEqual([]);
    await s.touchNote({ path: "t.md", hash: "h", mtime: old + 100, size: 5 });
    expect(ids(await since(s))).toEqual(["t0", "t1"]);
    expect(ids(await since(reader))).toEqual(["t0", "t1"]);
    expect((await reader.get({ path: "t.md", includeVectors: true })).map((r) => r.meta.mtime)).toEqual([
      old + 100,
      old + 100,
    ]);
    expect((await s.queryKeyword("text", 5, { where: normaliseWhere({ mtime: { $lt: old + 50 } }) })).length).toBe(0);
    await reader.close();
    await s.close();
  });

  it("replaces a note's chunks, deletes notes, records touches, and survives reopening", async () => {
    const { store: s, reopen } = await backend.fresh();
    await s.upsertNotes([
      {
        note: note("r/SMARS.md"),
        records: [0, 1, 2].map((i) =>
          record(
            `s${i}`,
            meta({ path: "r/SMARS.md", ordinal: i, hash: `s${i}`, tags: ["robots", "projects/robots", "projects"] }),
            vec(1, i, 0, 0),
          ),
        ),
      },
      {
        note: note("k/bread.md"),
        records: [record("b0", meta({ path: "k/bread.md", tags: ["kitchen"] }), vec(0, 1, 0, 0))],
      },
      { note: note("empty.md"), records: [] },
    ]);
    expect(await s.count()).toEqual({ notes: 3, chunks: 4 });
    // a shorter version of the note: the third chunk must go
    await s.upsertNotes([
      {
        note: note("r/SMARS.md", "v2"),
        records: [0, 1].map((i) =>
          record(`s${i}`, meta({ path: "r/SMARS.md", ordinal: i, hash: `s${i}v2` }), vec(1, i, 1, 0)),
        ),
      },
    ]);
    expect(await s.count()).toEqual({ notes: 3, chunks: 3 });
    expect(ids(await s.get({ path: "r/SMARS.md" }))).toEqual(["s0", "s1"]);
    await s.touchNote({ path: "k/bread.md", hash: "h-k/bread.md", mtime: 99, size: 7 });
    await s.deleteNotes(["empty.md"]);
    await s.close();
    const again = await reopen();
    expect(await again.count()).toEqual({ notes: 2, chunks: 3 });
    expect((await again.notes()).get("k/bread.md")).toEqual({
      path: "k/bread.md",
      hash: "h-k/bread.md",
      mtime: 99,
      size: 7,
    });
    expect((await again.notes()).get("r/SMARS.md")?.hash).toBe("v2");
    const withVectors = await again.get({ ids: ["s1", "b0"], includeVectors: true });
    expect(ids(withVectors)).toEqual(["s1", "b0"]);
    // Chroma hands vectors back within a float32 rounding step of what was sent
    [1, 1, 1, 0].forEach((x, i) => expect(withVectors[0].windows[0].vector[i]).toBeCloseTo(x, 6));
    expect(withVectors[1].meta.tags).toEqual(["kitchen"]);
    expect(withVectors[1].meta.links).toEqual([]);
    expect(await again.listTags()).toEqual([{ tag: "kitchen", notes: 1 }]);
    expect(await again.listFolders()).toEqual([
      { folder: "k", notes: 1 },
      { folder: "r", notes: 1 },
    ]);
    await again.deleteNotes(["r/SMARS.md"]);
    expect(ids(await again.queryDense(vec(1, 0, 0, 0), 5))).toEqual(["b0"]);
    await again.close();
  });

  it("keeps the manifest, and serves cached vectors by text hash only to the model that built the index", async () => {
    const { store: s, reopen } = await backend.fresh();
    await s.upsertNotes([
      { note: note("a.md"), records: [record("a0", meta({ path: "a.md", hash: "ha" }), vec(0.5, 0.25, 0, 1))] },
    ]);
    const cached = await s.cachedVectors("test:t", ["ha", "missing"]);
    expect([...cached.keys()]).toEqual(["ha"]);
    expect([...cached.get("ha")!]).toEqual([0.5, 0.25, 0, 1]);
    expect((await s.cachedVectors("other:model", ["ha"])).size).toBe(0);
    await s.close();
    const again = await reopen();
    expect((await again.manifest())?.embedder).toMatchObject({ provider: "test", model: "t", dimensions: 4 });
    await again.close();
  });

  it("answers keyword queries with BM25 over title, aliases, section and text, with filters", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([
      {
        note: note("r/SMARS.md"),
        records: [
          record(
            "s0",
            meta({ path: "r/SMARS.md", title: "SMARS Robot", aliases: ["tracked robot"] }),
            vec(1, 0, 0, 0),
            "Two N20 motors and a DRV8833.",
          ),
        ],
      },
      {
        note: note("k/bread.md"),
        records: [
          record(
            "b0",
            meta({ path: "k/bread.md", title: "Sourdough" }),
            vec(0, 1, 0, 0),
            "Flour, water and the 2-factor starter. Motors? None.",
          ),
        ],
      },
    ]);
    expect(ids(await s.queryKeyword("DRV8833", 5))).toEqual(["s0"]);
    expect(ids(await s.queryKeyword("tracked", 5))).toEqual(["s0"]);
    expect(ids(await s.queryKeyword("2-factor", 5))).toEqual(["b0"]);
    expect(ids(await s.queryKeyword('how do "NEAR" AND the * motors (work', 5)).sort()).toEqual(["b0", "s0"]);
    expect(ids(await s.queryKeyword("motors", 5, { where: normaliseWhere({ folder: "k" }) }))).toEqual(["b0"]);
    expect(
      ids(await s.queryKeyword("motors", 5, { whereDocument: normaliseWhereDocument({ $contains: "N20" }) })),
    ).toEqual(["s0"]);
    await s.close();
  });

  it("adds an expansion's phrases at their weight: a chunk scores the sum, and one with only a synonym matches too", async () => {
    const { store: s } = await backend.fresh();
    const texts: [string, string, string][] = [
      ["a", "a/one.md", "Tally the rows of a table."],
      ["b", "a/two.md", "Count rows fast with an estimate; count them once."],
      ["c", "b/three.md", "Sum a column of numbers, then add up the rest."],
      ["d", "b/four.md", "Nothing about any of it."],
    ];
    await s.upsertNotes(
      texts.map(([id, p, text]) => ({
        note: note(p),
        records: [record(id, meta({ path: p, title: "t", section: "t" }), vec(1, 0, 0, 0), text)],
      })),
    );
    const plain = await s.queryKeyword("tally rows", 10);
    expect(ids(plain)).toEqual(["a", "b"]);
    const expanded = await s.queryKeyword(
      "tally rows",
      10,
      {},
      { expansion: { phrases: ["count", "add up"], weight: 0.5 } },
    );
    expect(ids(expanded).sort()).toEqual(["a", "b", "c"]);
    // a hit's metadata is the record's, without the query's own columns (its scores)
    expect(expanded.find((h) => h.id === "c")!.meta).toEqual(meta({ path: "b/three.md", title: "t", section: "t" }));
    // b's score is its own BM25 plus half its BM25 for the synonyms: lower (better) than alone
    const alone = plain.find((h) => h.id === "b")!.distance;
    const bExpanded = expanded.find((h) => h.id === "b")!;
    const synonymsOnly = await s.queryKeyword("count add up", 10);
    const bSynonyms = (await s.queryKeyword("count", 10)).find((h) => h.id === "b")!.distance;
    expect(synonymsOnly.length).toBeGreaterThan(0);
    expect(bExpanded.distance).toBeCloseTo(alone + 0.5 * bSynonyms, 6);
    expect(expanded.map((h) => h.distance)).toEqual([...expanded.map((h) => h.distance)].sort((x, y) => x - y));
    // a filter applies to the synonyms' matches as well, and k cuts the sum
    expect(
      ids(
        await s.queryKeyword(
          "tally rows",
          10,
          { where: normaliseWhere({ folder: "b" }) },
          { expansion: { phrases: ["count", "add up"], weight: 0.5 } },
        ),
      ),
    ).toEqual(["c"]);
    // k cuts after the sum: with the synonym weighing 3, "b" (which says "count" twice) overtakes "a",
    // which is first on the question's own words
    expect(ids(plain)[0]).toBe("a");
    const heavy = { expansion: { phrases: ["count"], weight: 3 } };
    expect(ids(await s.queryKeyword("tally rows", 10, {}, heavy))[0]).toBe("b");
    expect(ids(await s.queryKeyword("tally rows", 1, {}, heavy))).toEqual(["b"]);
    // weight 0, or no phrases, is the plain query
    expect(ids(await s.queryKeyword("tally rows", 10, {}, { expansion: { phrases: ["count"], weight: 0 } }))).toEqual(
      ids(plain),
    );
    expect(ids(await s.queryKeyword("tally rows", 10, {}, { expansion: { phrases: [], weight: 1 } }))).toEqual(
      ids(plain),
    );
    await s.close();
  });

  it("adds the BM25 of adjacent question words that stand near each other at the proximity weight", async () => {
    const { store: s } = await backend.fresh();
    // both hold "last" and "commit" once and are as long; only "a" holds them near each other
    const texts: [string, string][] = [
      ["a", "Undo the last commit and keep the files around for later."],
      ["b", "The last thing to check before you commit: the files around."],
      ["c", "Nothing about any of it here at all, none whatsoever."],
    ];
    await s.upsertNotes(
      texts.map(([id, text]) => ({
        note: note(`${id}.md`),
        records: [record(id, meta({ path: `${id}.md`, title: "t", section: "t" }), vec(1, 0, 0, 0), text)],
      })),
    );
    const plain = await s.queryKeyword("last commit", 10);
    const near = await s.queryKeyword("last commit", 10, {}, { proximity: 0.5 });
    expect(ids(near)).toEqual(["a", "b"]);
    const d = (l: typeof plain, id: string) => l.find((h) => h.id === id)!.distance;
    // the far pair is scored as without proximity; the near one gains half its NEAR BM25
    expect(d(near, "b")).toBeCloseTo(d(plain, "b"), 9);
    expect(d(near, "a")).toBeLessThan(d(plain, "a"));
    expect(d(plain, "a")).toBeCloseTo(d(plain, "b"), 9);
    // with synonyms too, each part adds: the near pair's gain stays the same
    const both = await s.queryKeyword(
      "last commit",
      10,
      {},
      { proximity: 0.5, expansion: { phrases: ["undo"], weight: 1 } },
    );
    const syn = await s.queryKeyword("last commit", 10, {}, { expansion: { phrases: ["undo"], weight: 1 } });
    expect(d(both, "a") - d(syn, "a")).toBeCloseTo(d(near, "a") - d(plain, "a"), 9);
    // weight 0 and one-word questions are the plain query
    expect(await s.queryKeyword("last commit", 10, {}, { proximity: 0 })).toEqual(plain);
    expect(await s.queryKeyword("commit", 10, {}, { proximity: 0.5 })).toEqual(await s.queryKeyword("commit", 10));
    await s.close();
  });

  it("ranks every chunk of a linked note by the words other notes link to it with, and keeps that text as links change", async () => {
    const { store: s } = await backend.fresh();
    const sourdough = (id: string, ordinal: number, text: string) =>
      record(
        id,
        meta({ path: "Sourdough.md", title: "Sourdough", section: "s", ordinal, hash: id }),
        vec(1, 0, 0, 0),
        text,
      );
    const diary = record(
      "d1",
      meta({ path: "Diary.md", title: "Diary", section: "d" }),
      vec(0, 1, 0, 0),
      "Notes from today.",
    );
    const levain = { written: "Sourdough", target: "Sourdough.md", text: "My levain loaf rose overnight." };
    await s.upsertNotes([
      {
        note: note("Sourdough.md"),
        records: [sourdough("s1", 0, "Flour, water and salt."), sourdough("s2", 1, "Bake at 250 degrees.")],
      },
      { note: note("Diary.md"), records: [diary], links: [levain] },
    ]);
    // neither chunk of the note says "levain"; the diary's sentence about it does, and counts for both
    expect(await s.queryKeyword("levain", 10)).toEqual([]);
    const linked = await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 });
    expect(ids(linked).sort()).toEqual(["s1", "s2"]);
    expect(linked[0].distance).toBeCloseTo(linked[1].distance, 9);
    expect(linked[0].distance).toBeLessThan(0);
    // and each says it was matched by backlink text; chunks matched by their own words alone do not
    expect(linked.map((h) => h.backlinked)).toEqual([true, true]);
    // beside a chunk's own words, the backlink text adds its weighted BM25
    const own = await s.queryKeyword("levain bake", 10);
    const both = await s.queryKeyword("levain bake", 10, {}, { backlinks: 0.5 });
    expect(ids(own)).toEqual(["s2"]);
    expect(ids(both)).toEqual(["s2", "s1"]);
    expect(own[0].backlinked).toBeUndefined();
    expect(both[0].distance).toBeCloseTo(own[0].distance + linked[0].distance, 9);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0 })).toEqual([]);
    expect(await s.linkTexts()).toEqual(new Map([["Diary.md", [levain]]]));
    // a filter applies to the linked note's chunks as to any others
    const onlyS2 = normaliseWhere({ ordinal: 1 });
    expect(ids(await s.queryKeyword("levain", 10, { where: onlyS2 }, { backlinks: 0.5 }))).toEqual(["s2"]);
    // the diary rewritten without the link: its words about the note are gone
    await s.upsertNotes([{ note: note("Diary.md", "h2"), records: [diary] }]);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    expect(await s.linkTexts()).toEqual(new Map());
    // a link to a note that no single note fitted waits unresolved, and counts once it resolves
    const waiting = { written: "sourdough", text: "My levain loaf rose overnight." };
    await s.upsertNotes([{ note: note("Diary.md", "h3"), records: [diary], links: [waiting] }]);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    const resolve = (l: { written: string }) => (l.written.toLowerCase() === "sourdough" ? "Sourdough.md" : undefined);
    expect(await s.resolveLinks("notes-1", resolve)).toBe(true);
    expect(ids(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).sort()).toEqual(["s1", "s2"]);
    // the same set of notes again, and no links written since: nothing to do
    expect(await s.resolveLinks("notes-1", () => undefined)).toBe(false);
    // links written since (the note rewritten, as an interrupted run may leave it): all resolved again
    await s.upsertNotes([{ note: note("Diary.md", "h4"), records: [diary], links: [waiting] }]);
    expect(await s.resolveLinks("notes-1", resolve)).toBe(true);
    expect(ids(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).sort()).toEqual(["s1", "s2"]);
    // the linked note deleted: what was said of it ranks nothing (and goes once links resolve again)
    await s.deleteNotes(["Sourdough.md"]);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    expect(await s.resolveLinks("notes-2", () => undefined)).toBe(true);
    expect([...(await s.linkTexts()).get("Diary.md")!]).toEqual([waiting]);
    // the linking note deleted: so is what it said
    await s.deleteNotes(["Diary.md"]);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    await s.close();
  });

  it("leaves backlink text to the next resolveLinks when asked, even across a reopen", async () => {
    const { store: s, reopen } = await backend.fresh();
    const { target, diary } = sourdoughAndDiary();
    const levain = { written: "Sourdough", target: "Sourdough.md", text: "My levain loaf rose overnight." };
    await s.upsertNotes([{ note: note("Sourdough.md"), records: [target] }]);
    await s.upsertNotes([{ note: note("Diary.md"), records: [diary], links: [levain] }], { backlinksLater: true });
    // the link is stored, its text not yet filed under the note it names
    expect(await s.linkTexts()).toEqual(new Map([["Diary.md", [levain]]]));
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    await s.close();
    // an interrupted run: the next one's resolveLinks files it, under the same key as before or not
    const again = await reopen();
    const resolve = (l: { written: string }) => (l.written === "Sourdough" ? "Sourdough.md" : undefined);
    expect(await again.resolveLinks("notes-1", resolve)).toBe(true);
    const later = await again.queryKeyword("levain", 10, {}, { backlinks: 0.5 });
    expect(ids(later)).toEqual(["t1"]);
    // the same key again: nothing left to file
    expect(await again.resolveLinks("notes-1", resolve)).toBe(false);
    expect(await again.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual(later);
    // a rewrite without the link, left for later, then filed under an unchanged key: the text is gone
    await again.upsertNotes([{ note: note("Diary.md", "h2"), records: [diary] }], { backlinksLater: true });
    expect(ids(await again.queryKeyword("levain", 10, {}, { backlinks: 0.5 }))).toEqual(["t1"]);
    await again.resolveLinks("notes-1", resolve);
    expect(await again.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    await again.close();
  });

  it("resolves no link again when every link stored was written resolved against the notes resolveLinks is given", async () => {
    const { store: s } = await backend.fresh();
    const { target, diary } = sourdoughAndDiary();
    const log = record("l1", meta({ path: "Log.md", title: "Log", section: "l" }), vec(0, 0, 1, 0), "Baked.");
    const levain = { written: "Sourdough", target: "Sourdough.md", text: "My levain loaf rose overnight." };
    const crumb = { written: "Sourdough", target: "Sourdough.md", text: "An open crumb at last." };
    // a resolver that fits nothing: any link it is asked about loses its target
    const none = () => undefined;
    const resolve = (l: { written: string }) => (l.written === "Sourdough" ? "Sourdough.md" : undefined);
    const later = (key: string) => ({ backlinksLater: true, linksResolvedBy: key });
    // a first index: every batch's links resolved against the notes of key notes-1
    await s.upsertNotes([{ note: note("Sourdough.md"), records: [target] }], later("notes-1"));
    await s.upsertNotes([{ note: note("Diary.md"), records: [diary], links: [levain] }], later("notes-1"));
    await s.upsertNotes([{ note: note("Log.md"), records: [log], links: [crumb] }], later("notes-1"));
    expect(await s.resolveLinks("notes-1", none)).toBe(false);
    // the text is filed under the note its links named when written
    expect(ids(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 }))).toEqual(["t1"]);
    expect(ids(await s.queryKeyword("crumb", 10, {}, { backlinks: 0.5 }))).toEqual(["t1"]);
    // a batch resolved against other notes (an interrupted run that saw others): all resolved again
    await s.upsertNotes([{ note: note("Log.md", "h2"), records: [log], links: [crumb] }], later("notes-0"));
    await s.upsertNotes([{ note: note("Log.md", "h3"), records: [log], links: [crumb] }], later("notes-1"));
    expect(await s.resolveLinks("notes-1", resolve)).toBe(true);
    // links written with no key (a rewrite outside an indexing run): all resolved again, even by the same key
    await s.upsertNotes([{ note: note("Diary.md", "h2"), records: [diary], links: [levain] }]);
    await s.upsertNotes([{ note: note("Log.md", "h4"), records: [log], links: [crumb] }], later("notes-1"));
    expect(await s.resolveLinks("notes-1", none)).toBe(true);
    expect(await s.queryKeyword("levain", 10, {}, { backlinks: 0.5 })).toEqual([]);
    await s.close();
  });

  it("counts the chunks holding each phrase, stops counting at the cap, and says which phrases a chunk holds", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes(
      ["x1", "x2", "x3"].map((id, i) => ({
        note: note(`n${i}.md`),
        records: [
          record(id, meta({ path: `n${i}.md` }), vec(1, 0, 0, 0), i ? "a common word here" : "common rarity, add up"),
        ],
      })),
    );
    const st = await s.keywordStats(["common", "rarity", "add up", "absent", ""], { id: "x1" });
    expect(st).toEqual({ chunks: 3, counts: [3, 1, 1, 0, 0], inChunk: [true, true, true, false, false] });
    expect(await s.keywordStats(["common", "rarity"], { cap: 2, id: "x2" })).toEqual({
      chunks: 3,
      counts: [2, 1],
      inChunk: [true, false],
    });
    expect((await s.keywordStats(["common"])).inChunk).toEqual([false]);
    await s.close();
  });

  it("spells a word as the passages write it: the nearest stems first, then the commonest, and learns a note's words after a write", async () => {
    const { store: s, reopen } = await backend.fresh();
    const text = (id: string, t: string) => record(id, meta({ path: `${id}.md`, hash: id }), vec(1, 0, 0, 0), t);
    await s.upsertNotes([
      { note: note("a.md"), records: [text("a", "An approximate count of the rows. Approximation is fine.")] },
      { note: note("b.md"), records: [text("b", "Counting rows exactly is slow; the count takes a minute.")] },
      { note: note("c.md"), records: [text("c", "A county fair.")] },
    ]);
    // "aproximate" stems to "aproxim": one edit from "approxim", written "approximate" and "approximation"
    expect(await s.keywordSpellings("aproximate", 1)).toEqual([{ word: "approximate", chunks: 1, edits: 1 }]);
    // a swap of neighbours is one edit; "county" ("counti" to the stemmer) is two away
    expect(await s.keywordSpellings("cuont", 1)).toEqual([{ word: "count", chunks: 2, edits: 1 }]);
    expect((await s.keywordSpellings("cuont", 2)).map((x) => [x.word, x.edits])).toEqual([
      ["count", 1],
      ["county", 2],
    ]);
    // never the word's own stem: "counts" is "count", so only "county" ("counti") is one edit away
    expect(await s.keywordSpellings("counts", 1)).toEqual([{ word: "county", chunks: 1, edits: 1 }]);
    // and nothing near a word far from every other
    expect(await s.keywordSpellings("zebra", 2)).toEqual([]);
    await s.upsertNotes([{ note: note("d.md"), records: [text("d", "A zebra crossing.")] }]);
    expect(await s.keywordSpellings("zebar", 1)).toEqual([{ word: "zebra", chunks: 1, edits: 1 }]);
    await s.close();
    const again = await reopen();
    expect(await again.keywordSpellings("zebar", 1)).toEqual([{ word: "zebra", chunks: 1, edits: 1 }]);
    await again.close();
  });

  it("finds words inside Chinese and Japanese runs, apart in the query too, and forgets them when the note is replaced or deleted", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([
      {
        note: note("k/ramen.md"),
        records: [
          record(
            "r0",
            meta({ path: "k/ramen.md", title: "ラーメン" }),
            vec(1, 0, 0, 0),
            "醤油ラーメン is my favourite. 京都 in autumn.",
          ),
        ],
      },
    ]);
    expect(ids(await s.queryKeyword("ラーメン", 5))).toEqual(["r0"]);
    expect(ids(await s.queryKeyword("京都", 5))).toEqual(["r0"]);
    // a run's bigrams are terms of their own, as words are: a query that shares "ラーメン" finds it, one
    // that shares no bigram does not
    expect(ids(await s.queryKeyword("味噌ラーメン", 5))).toEqual(["r0"]);
    expect(ids(await s.queryKeyword("醤油と京都", 5))).toEqual(["r0"]);
    expect(await s.queryKeyword("味噌汁", 5)).toEqual([]);
    expect(
      ids(await s.queryDense(vec(1, 0, 0, 0), 5, { whereDocument: normaliseWhereDocument({ $contains: "醤油" }) })),
    ).toEqual(["r0"]);
    await s.upsertNotes([
      {
        note: note("k/ramen.md", "v2"),
        records: [record("r1", meta({ path: "k/ramen.md", title: "Ramen" }), vec(1, 0, 0, 0), "Shoyu tare only.")],
      },
    ]);
    expect(await s.queryKeyword("ラーメン", 5)).toEqual([]);
    expect(ids(await s.queryKeyword("shoyu", 5))).toEqual(["r1"]);
    await s.deleteNotes(["k/ramen.md"]);
    expect(await s.queryKeyword("shoyu", 5)).toEqual([]);
    expect(await s.queryDense(vec(1, 0, 0, 0), 5)).toEqual([]);
    await s.close();
  });

  it("applies where and whereDocument filters to dense queries: folders, numbers, sets, lists, $or, regex", async () => {
    const { store: s } = await backend.fresh();
    const recs = [
      record(
        "a",
        meta({ path: "robots/SMARS.md", mtime: 1_700_000_000, tags: ["robots"], word_count: 50 }),
        vec(1, 0, 0, 0),
        "The N20 motors need a driver.",
      ),
      record(
        "b",
        meta({ path: "robots/arm/servo.md", mtime: 1_750_000_000, tags: ["robots", "servo"], word_count: 20 }),
        vec(0.9, 0.1, 0, 0),
        "SG90 servos are cheap.",
      ),
      record(
        "c",
        meta({ path: "kitchen/bread.md", mtime: 1_760_000_000, tags: [], word_count: 80 }),
        vec(0.8, 0.2, 0, 0),
        "Bake at 250 degrees.",
      ),
    ];
    for (const r of recs) await s.upsertNotes([{ note: note(r.meta.path), records: [r] }]);
    const q = async (where?: object, whereDocument?: object) =>
      ids(
        await s.queryDense(vec(1, 0, 0, 0), 10, {
          where: normaliseWhere(where),
          whereDocument: normaliseWhereDocument(whereDocument),
        }),
      ).sort();
    expect(await q({ top_folder: "robots" })).toEqual(["a", "b"]);
    expect(await q({ folder: "robots" })).toEqual(["a"]);
    expect(await q({ mtime: { $gte: 1_750_000_000 } })).toEqual(["b", "c"]);
    expect(await q({ $and: [{ mtime: { $gt: 1_700_000_000 } }, { word_count: { $lt: 50 } }] })).toEqual(["b"]);
    expect(await q({ path: { $in: ["kitchen/bread.md", "nope.md"] } })).toEqual(["c"]);
    expect(await q({ path: { $nin: ["kitchen/bread.md"] } })).toEqual(["a", "b"]);
    expect(await q({ tags: { $not_contains: "robots" } })).toEqual(["c"]);
    expect(await q({ $or: [{ tags: "servo" }, { folder: "kitchen" }] })).toEqual(["b", "c"]);
    expect(await q(undefined, { $contains: "motors" })).toEqual(["a"]);
    expect(await q(undefined, { $regex: "^[A-Z]{2}\\d{2}" })).toEqual(["b"]);
    expect(await q({ top_folder: "robots" }, { $not_contains: "SG90" })).toEqual(["a"]);
    await s.close();
  });

  it("filters on notes' properties and dates, dense and keyword alike, as the reference reads them", async () => {
    const { store: s, reopen } = await backend.fresh();
    const due = 1_773_446_400;
    const recs = [
      record(
        "a",
        meta({
          path: "uni/Lecture.md",
          props: {
            type: "Uni Note",
            status: "draft",
            rating: 4,
            done: true,
            due: { date: due },
            topics: ["ml", "stats"],
            path: "x",
          },
          date: 1_600_000_000,
          date_source: "updated",
        }),
        vec(1, 0, 0, 0),
        "gradient descent lecture",
      ),
      record(
        "b",
        meta({
          path: "uni/Essay.md",
          props: { type: "Essay", status: "final", rating: 2.5, done: false, topics: ["ml"] },
        }),
        vec(0.9, 0.1, 0, 0),
        "gradient descent essay",
      ),
      record("c", meta({ path: "Plain.md", mtime: 1_000, date: 1_000 }), vec(0.8, 0.2, 0, 0), "gradient descent plain"),
    ];
    for (const r of recs) await s.upsertNotes([{ note: note(r.meta.path), records: [r] }]);
    const names = ["type", "status", "rating", "done", "due", "topics", "path"];
    const reader = await reopen();
    const check = async (where: object, want: string[]) => {
      const filter = { where: normaliseWhere(where, names) };
      const expected = recs.filter((r) => matchesWhere(filter.where!, r.meta)).map((r) => r.id);
      expect(expected, JSON.stringify(where)).toEqual(want);
      for (const store of [s, reader]) {
        expect(ids(await store.queryDense(vec(1, 0, 0, 0), 10, filter)).sort(), JSON.stringify(where)).toEqual(want);
        expect(ids(await store.queryKeyword("gradient", 10, filter)).sort(), JSON.stringify(where)).toEqual(want);
      }
    };
    await check({ type: "Uni Note" }, ["a"]);
    await check({ Type: { $ne: "Uni Note" } }, ["b", "c"]);
    await check({ rating: { $gte: 2.5 } }, ["a", "b"]);
    await check({ rating: { $in: [4, 2.5] } }, ["a", "b"]);
    await check({ rating: { $nin: [4] } }, ["b", "c"]);
    await check({ done: true }, ["a"]);
    await check({ done: { $ne: true } }, ["b", "c"]);
    await check({ due: { $gte: "2026-03-14" } }, ["a"]);
    await check({ due: "2026-03-14" }, ["a"]);
    await check({ topics: { $contains: "stats" } }, ["a"]);
    await check({ topics: { $not_contains: "stats" } }, ["b", "c"]);
    await check({ topics: "ml" }, []); // $eq is no list match, as in Chroma
    await check({ status: { $contains: "draft" } }, []); // $contains is no text match
    await check({ "prop.path": "x" }, ["a"]);
    await check({ path: "uni/Essay.md" }, ["b"]);
    await check({ $or: [{ status: "final" }, { date: { $lt: 2_000 } }] }, ["b", "c"]);
    await check({ date_source: "updated" }, ["a"]);
    // a note dated by its mtime moves with a touch; one dated by its frontmatter keeps its date
    await s.touchNote({ path: "Plain.md", hash: "h-Plain.md", mtime: 5_000, size: 1 });
    await s.touchNote({ path: "uni/Lecture.md", hash: "h-uni/Lecture.md", mtime: 5_000, size: 1 });
    expect((await reader.get({ path: "Plain.md" }))[0].meta.date).toBe(5_000);
    expect((await reader.get({ path: "uni/Lecture.md" }))[0].meta).toMatchObject({ date: 1_600_000_000, mtime: 5_000 });
    expect((await reader.get({ path: "uni/Lecture.md" }))[0].meta.props).toEqual(recs[0].meta.props);
    expect(await reader.noteProperties()).toEqual([
      { path: "Plain.md", date: 5_000, dateSource: "mtime", props: {} },
      { path: "uni/Essay.md", date: 1_760_000_000, dateSource: "mtime", props: recs[1].meta.props },
      { path: "uni/Lecture.md", date: 1_600_000_000, dateSource: "updated", props: recs[0].meta.props },
    ]);
    await reader.close();
    await s.close();
  });

  it("keeps passages without vectors keyword-searchable and filterable, and gives them vectors later", async () => {
    const { store: s, reopen } = await backend.fresh();
    const done = record(
      "d0",
      meta({ path: "a.md", ordinal: 0, hash: "d0", tags: ["bread"] }),
      vec(1, 0, 0, 0),
      "sourdough starter",
    );
    const later = {
      ...record(
        "p0",
        meta({ path: "a.md", ordinal: 1, hash: "p0", tags: ["bread"] }),
        vec(0, 1, 0, 0),
        "sourdough crumb",
      ),
      windows: [],
    };
    const other = { ...record("q0", meta({ path: "b.md", hash: "q0" }), vec(0, 0, 1, 0), "rye flour"), windows: [] };
    await s.upsertNotes([
      { note: note("a.md"), records: [done, later] },
      { note: note("b.md"), records: [other] },
    ]);
    expect(await s.vectorCoverage()).toEqual({ chunks: 3, withVectors: 1 });
    expect(await s.pendingVectorPaths(10)).toEqual(["a.md", "b.md"]);
    expect(await s.pendingVectorPaths(1, "a.md")).toEqual(["b.md"]);
    expect([...(await s.withoutVectors(["d0", "p0", "q0", "nope"]))].sort()).toEqual(["p0", "q0"]);
    // the dense ranking holds only passages with vectors; keyword search and filters reach every one
    expect(ids(await s.queryDense(vec(0, 1, 0, 0), 5))).toEqual(["d0"]);
    expect(ids(await s.queryKeyword("sourdough", 5)).sort()).toEqual(["d0", "p0"]);
    const bread = { where: normaliseWhere({ tags: { $contains: "bread" } }) };
    expect(ids(await s.queryKeyword("crumb", 5, bread))).toEqual(["p0"]);
    expect(ids(await s.queryKeyword("rye", 5, bread))).toEqual([]);
    const progress = {
      phase: "dense" as const,
      windows: 2,
      done: 1,
      started: "2026-01-01T00:00:00Z",
      updated: "2026-01-01T00:00:01Z",
    };
    // a passage that already has vectors, or is gone, is left as it is
    expect(
      await s.setVectors(
        [
          { id: "p0", windows: [{ hash: "p0", vector: vec(0, 1, 0, 0) }] },
          { id: "d0", windows: [{ hash: "x", vector: vec(0, 0, 0, 1) }] },
          { id: "gone", windows: [{ hash: "g", vector: vec(0, 0, 0, 1) }] },
        ],
        progress,
      ),
    ).toBe(1);
    expect(await s.denseProgress()).toEqual(progress);
    expect(await s.vectorCoverage()).toEqual({ chunks: 3, withVectors: 2 });
    expect(ids(await s.queryDense(vec(0, 1, 0, 0), 5))).toEqual(["p0", "d0"]);
    expect(ids(await s.queryDense(vec(0, 1, 0, 0), 5, bread))).toEqual(["p0", "d0"]);
    await s.close();
    const r = await reopen();
    expect(await r.vectorCoverage()).toEqual({ chunks: 3, withVectors: 2 });
    expect(await r.pendingVectorPaths(10)).toEqual(["b.md"]);
    expect(await r.denseProgress()).toEqual(progress);
    await r.setDenseProgress(undefined);
    expect(await r.denseProgress()).toBeUndefined();
    await r.close();
  });
});
