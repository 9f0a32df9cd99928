import { describe, expect, it } from "vitest";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { evaluate } from "../../src/search/eval.js";
import {
  commonWordsNotice,
  noResultHints,
  retrieve,
  search,
  SEARCH_DEFAULTS,
  withSearchDefaults,
} from "../../src/search/index.js";
import { SqliteStore, type NoteEntry, type Store } from "../../src/store/index.js";
import { testManifest } from "../store/backends.js";
import { meta, tmpDb } from "../store/helpers.js";
import { hintLines, type Face } from "../../src/render/hints.js";

const WORDS = "motor starter flour bread wiring sensor garden tomato solder battery pump relay".split(" ");

/** A store of `n` one-chunk notes over a small vocabulary, each with a fixed pseudo-random 512-d vector. */
async function manyNotes(n: number): Promise<SqliteStore> {
  const s = SqliteStore.open(tmpDb(), { create: true });
  await s.setManifest(testManifest(512));
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const batch = [];
  for (let i = 0; i < n; i++) {
    const v = Float32Array.from({ length: 512 }, rnd);
    const norm = Math.hypot(...v);
    for (let j = 0; j < v.length; j++) v[j] /= norm;
    // a few notes say "holiday", which no question says: WordNet's synonym of "vacation"
    const text =
      Array.from({ length: 6 }, (_, k) => WORDS[(i * 7 + k * 3 + (i % 5) * k) % WORDS.length]).join(" ") +
      (i % 97 === 0 ? " holiday" : "");
    const p = `n/${String(i).padStart(4, "0")}.md`;
    const note: NoteEntry = { path: p, hash: p, mtime: 1, size: 1 };
    // every eleventh note links to the next in words of the questions below: backlink text
    const next = `n/${String(i + 1).padStart(4, "0")}.md`;
    const links = i % 11 === 0 ? [{ written: next, target: next, text: "motor wiring for the battery relay" }] : [];
    batch.push({
      note,
      records: [{ id: `c${i}`, text, meta: meta({ path: p }), windows: [{ hash: p, vector: v }] }],
      links,
    });
  }
  await s.upsertNotes(batch);
  return s;
}

/** Records the k of each query the store is asked. */
function spying(store: Store): { store: Store; asked: { dense: number[]; keyword: number[] } } {
  const asked = { dense: [] as number[], keyword: [] as number[] };
  const spy = Object.create(store) as Store;
  spy.queryDense = (v, k, f) => (asked.dense.push(k), store.queryDense(v, k, f));
  spy.queryKeyword = (t, k, f, e) => (asked.keyword.push(k), store.queryKeyword(t, k, f, e));
  return { store: spy, asked };
}

describe("search", () => {
  const embedder = useLiteEmbedder();

  it("fuses `pool` candidates from each list in hybrid mode, and only topK × oversample in a single mode", async () => {
    const real = await manyNotes(40);
    const { store, asked } = spying(real);
    await search({ store, embedder }, "motor wiring", { topK: 3 });
    expect(asked.dense).toEqual([SEARCH_DEFAULTS.pool]);
    expect(asked.keyword.every((k) => k === SEARCH_DEFAULTS.pool)).toBe(true);
    asked.dense.length = asked.keyword.length = 0;
    await search({ store, embedder }, "motor wiring", { topK: 3, pool: 20 });
    expect(asked.dense).toEqual([20]);
    asked.dense.length = asked.keyword.length = 0;
    await search({ store, embedder }, "motor wiring", { topK: 3, mode: "keyword" });
    expect(asked.dense).toEqual([]);
    expect(asked.keyword.every((k) => k === 9)).toBe(true);
    await expect(search({ store, embedder }, "motor", { pool: 0 })).rejects.toThrow(
      "vault-rag: pool must be a whole number of at least 1, got 0",
    );
    for (const [q, shown] of [
      ["???", "???"],
      [" -- ", "--"],
      ["!".repeat(50), "!".repeat(40) + "…"],
    ])
      await expect(search({ store, embedder }, q)).rejects.toThrow(
        `vault-rag: the search query ${JSON.stringify(shown)} has no words in it — type what you are looking for`,
      );
    // a query is a question, not a document
    await expect(search({ store, embedder }, "motor ".repeat(1001))).rejects.toThrow(
      "vault-rag: the query has over 1000 words — ask in fewer words",
    );
    await expect(search({ store, embedder }, "m".repeat(100_001))).rejects.toThrow(
      "vault-rag: the query is 100001 characters, over the limit of 100000 — ask in fewer words",
    );
    // a word, a number or an emoji is something to look for (an emoji the model has no token for, and
    // no note holds, finds nothing rather than the notes nearest the model's "unknown")
    for (const q of ["42", "é?"]) expect((await search({ store, embedder }, q)).hits.length).toBeGreaterThan(0);
    expect(await search({ store, embedder }, "🍞")).toMatchObject({ hits: [], reason: "no chunk matches the query" });
    await expect(search({ store, embedder }, "motor", { backlinks: 2 })).rejects.toThrow(
      "vault-rag: backlinks must be between 0 and 1, got 2",
    );
    await real.close();
  });

  it("ranks what eval scores: on more chunks than the pool, eval finds each search's first hit first", async () => {
    const store = await manyNotes(SEARCH_DEFAULTS.pool + 150);
    const questions = [
      "motor wiring",
      "bread starter flour",
      "garden tomato pump",
      "solder the battery relay",
      "vacation pump",
      "vacation garden sensor",
    ];
    const queries = [];
    const relevant = new Map<string, Set<string>>();
    for (const [i, q] of questions.entries()) {
      const { hits, expansion } = await search({ store, embedder }, q, { topK: 1 });
      // the "vacation" questions are widened with "holiday"; eval must rank those lists too
      if (q.startsWith("vacation")) expect(expansion?.phrases).toContain("holiday");
      queries.push({ id: String(i), text: q });
      relevant.set(String(i), new Set([hits[0].path]));
    }
    const [hybrid] = await evaluate({ store, embedder }, { queries, relevant }, [{ label: "h", mode: "hybrid" }]);
    expect(hybrid.metrics.recall1).toBe(1);
    // and a search that fused fewer candidates would rank differently here
    const shallow = await Promise.all(
      questions.map(async (q) => (await search({ store, embedder }, q, { topK: 1, pool: 50 })).hits[0].path),
    );
    expect(shallow.filter((p, i) => !relevant.get(String(i))!.has(p)).length).toBeGreaterThan(0);
    await store.close();
  });

  it("fills the per-note cap from notes deeper than topK × oversample before it backfills from one note", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(512));
    const v = (k: number) => Float32Array.from({ length: 512 }, (_, j) => (j === k ? 1 : 0));
    // twenty chunks of one note say "hyperbola" twice; two other notes say it once, among more words
    const big = Array.from({ length: 20 }, (_, i) => ({
      id: `big${i}`,
      text: `hyperbola hyperbola ${i}`,
      meta: meta({ path: "big.md", ordinal: i, hash: `big${i}` }),
      windows: [{ hash: `big${i}`, vector: v(i) }],
    }));
    const one = (p: string, k: number) => ({
      note: { path: p, hash: p, mtime: 1, size: 1 },
      records: [
        {
          id: p,
          text: "the hyperbola and its asymptotes, foci and more",
          meta: meta({ path: p }),
          windows: [{ hash: p, vector: v(k) }],
        },
      ],
    });
    await store.upsertNotes([
      { note: { path: "big.md", hash: "big", mtime: 1, size: 1 }, records: big },
      one("b.md", 30),
      one("c.md", 31),
    ]);
    for (const mode of ["keyword", "hybrid"] as const) {
      const { hits } = await search({ store, embedder }, "hyperbola", { mode, topK: 3, perNote: 1 });
      expect(hits.map((h) => h.path).sort(), mode).toEqual(["b.md", "big.md", "c.md"]);
    }
    // with too few notes to fill it, the cap still backfills (as documented)
    const { hits } = await search({ store, embedder }, "hyperbola", { mode: "keyword", topK: 5, perNote: 1 });
    expect(hits).toHaveLength(5);
    expect(new Set(hits.map((h) => h.path))).toEqual(new Set(["big.md", "b.md", "c.md"]));
    await store.close();
  });

  it("scores its rows without synonyms, near pairs or backlink text on the lists such searches rank", async () => {
    const store = await manyNotes(SEARCH_DEFAULTS.pool + 150);
    const questions = ["motor wiring", "bread starter flour", "vacation pump", "solder the battery relay"];
    const queries = questions.map((text, i) => ({ id: String(i), text }));
    for (const [off, setting] of [
      [{ expand: false }, { expand: false }],
      [{ proximity: 0 }, { proximity: false }],
      [{ backlinks: 0 }, { backlinks: false }],
      [
        { expand: false, proximity: 0, backlinks: 0 },
        { expand: false, proximity: false, backlinks: false },
      ],
    ] as const)
      for (const mode of ["keyword", "hybrid"] as const) {
        const relevant = new Map<string, Set<string>>();
        for (const [i, q] of questions.entries())
          relevant.set(
            String(i),
            new Set([(await search({ store, embedder }, q, { topK: 1, mode, ...off })).hits[0].path]),
          );
        const [row] = await evaluate({ store, embedder }, { queries, relevant }, [{ label: "x", mode, ...setting }]);
        expect(row.metrics.recall1, `${mode} ${JSON.stringify(off)}`).toBe(1);
      }
    // backlink text moves these lists: with it, a note linked to in the question's words leads
    const top = async (o: { backlinks?: number }) =>
      (await search({ store, embedder }, "motor wiring", { topK: 1, mode: "keyword", ...o })).hits[0].path;
    const linked = await top({});
    expect((Number(linked.slice(2, 6)) - 1) % 11).toBe(0); // n/0001.md, n/0012.md, …: each linked from the one before
    expect(await top({ backlinks: 0 })).not.toBe(linked);
    await store.close();
  });
  it("ranks a question the model cannot read by its words alone, and says so; dense mode says why when no word matches", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(512));
    const notes = [
      ["ja/テーマ.md", "テーマを閲覧する。外観からテーマを変更できます。"],
      ["ja/同期.md", "デバイス間でノートを同期する。"],
      ["en/themes.md", "Browse community themes under Appearance."],
    ];
    const vectors = await embedder.embedDocuments(notes.map(([, text]) => text));
    await store.upsertNotes(
      notes.map(([p, text], i) => ({
        note: { path: p, hash: p, mtime: 1, size: 1 },
        records: [{ id: `c${i}`, text, meta: meta({ path: p }), windows: [{ hash: p, vector: vectors[i] }] }],
      })),
    );
    expect(embedder.unknownShare!("テーマ")).toBe(1);
    expect(embedder.unknownShare!("browse themes")).toBe(0);
    const model =
      "the embedding model (use-lite:universal-sentence-encoder-lite) knows too few of this question's characters to read it";
    const hybrid = await search({ store, embedder }, "テーマ");
    // every Japanese question embeds to one vector: only the note with the word is a hit
    expect(hybrid.hits.map((h) => h.path)).toEqual(["ja/テーマ.md"]);
    expect(hybrid.notice).toBe(`${model}; ranked by keywords alone`);
    // a dense search ranks the passages the model cannot read by their words too
    const dense = await search({ store, embedder }, "テーマ", { mode: "dense" });
    expect(dense.hits.map((h) => h.path)).toEqual(["ja/テーマ.md"]);
    expect(dense.notice).toBe(`${model}; ranked by keywords alone`);
    const none = await search({ store, embedder }, "設定", { mode: "dense" });
    expect(none).toMatchObject({ hits: [], reason: `${model} — search it by keyword or hybrid` });
    // a question the model reads is embedded
    const english = await search({ store, embedder }, "browse themes", { mode: "dense" });
    expect(english.hits[0].path).toBe("en/themes.md");
    expect(english.notice).toBeUndefined();
    await store.close();
  });
  it("gives each hybrid hit its place in the dense and keyword lists it was fused from, and none in a single mode", async () => {
    const store = await manyNotes(40);
    const q = "motor wiring battery";
    const o = withSearchDefaults({ topK: 40, perNote: 1 });
    const { dense, keyword } = await retrieve({ store, embedder }, q, o, {}, 40);
    const { hits } = await search({ store, embedder }, q, { topK: 40 });
    expect(hits.length).toBeGreaterThan(10);
    for (const h of hits) {
      const d = dense.findIndex((r) => r.id === h.id);
      const k = keyword.findIndex((r) => r.id === h.id);
      expect(h.ranks).toEqual({ dense: d < 0 ? undefined : d + 1, keyword: k < 0 ? undefined : k + 1 });
    }
    // some hit holds none of the words: the keyword list did not bring it
    expect(hits.some((h) => h.ranks?.keyword === undefined)).toBe(true);
    for (const mode of ["dense", "keyword"] as const)
      expect((await search({ store, embedder }, q, { mode })).hits[0].ranks).toBeUndefined();
    await store.close();
  });
  it("says when a query holds only common words, in every mode, and not when one word names a topic", async () => {
    const store = await manyNotes(12);
    const notice =
      'the query\'s words ("how", "to", "do", "it") are all common words, which name no topic — add a word for what you are looking for';
    for (const mode of ["hybrid", "keyword", "dense"] as const) {
      const r = await search({ store, embedder }, "How to do it?", { mode });
      expect(r.notice).toBe(notice);
    }
    expect((await search({ store, embedder }, "how to wire the motor")).notice).toBeUndefined();
    // six or more words are named five at a time
    expect(commonWordsNotice("what is it that you would have")).toBe(
      'the query\'s words ("what", "is", "it", "that", "you", 2 more) are all common words, which name no topic — add a word for what you are looking for',
    );
    await store.close();
  });
});

/** The no-result hints in a face's words, as the CLI (the default) or a request gives them. */
const words = async (store: Store, f: Parameters<typeof noResultHints>[1], face: Face = "cli") =>
  hintLines(await noResultHints(store, f), face);

describe("no-result hints", () => {
  /** A store of one note of one passage, with this metadata (its note changed at its mtime). */
  async function oneNoteStore(m: Parameters<typeof meta>[0]): Promise<SqliteStore> {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(4));
    const note = { path: m.path, hash: m.path, mtime: m.mtime ?? 1, size: 1 };
    const windows = [{ hash: m.path, vector: new Float32Array([1, 0, 0, 0]) }];
    await store.upsertNotes([{ note, records: [{ id: "c0", text: "text", meta: meta(m), windows }] }]);
    return store;
  }
  it("says when a time range is empty: since after until, or since in the future", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(4));
    expect(await words(store, { since: "2026-11-01", until: "2026-01-01" })).toEqual([
      'vault-rag: --since "2026-11-01" is after --until "2026-01-01", so no note can be in between — swap them',
    ]);
    expect(await words(store, { since: "2999-01-01" }, "request")).toEqual([
      'vault-rag: since "2999-01-01" is in the future — no note has changed since then',
    ]);
    expect(await words(store, { since: "2026-01-01", until: "2026-11-01" })).toEqual([]);
    await store.close();
  });
  it("gives the closest tags of five unknown tags at most, and counts the rest in one line", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(4));
    const hints = await words(store, { tags: ["t1", "t2", "t3", "t4", "t5", "t6", "t7"] }, "request");
    expect(hints).toEqual([
      ...["t1", "t2", "t3", "t4", "t5"].map((t) => `vault-rag: no note has the tag "${t}"`),
      "vault-rag: and 2 more tags that no note has",
    ]);
    await store.close();
  });
  it("says when a time range misses every note, when they did change, and that m is minutes; and that a folder holds only folders", async () => {
    const noon = Date.UTC(2026, 5, 1, 12) / 1000; // 2026-06-01 in any time zone within 12 hours of UTC
    const p = "Sources/Books/Dune.md";
    const store = await oneNoteStore({ path: p, folder: "Sources/Books", top_folder: "Sources", mtime: noon });
    expect(await words(store, { since: "3m" })).toEqual([
      'vault-rag: --since "3m" leaves out every note ("m" is minutes: give months in days, like 90d): the newest note is dated 2026-06-01',
    ]);
    expect(await words(store, { since: "3m", by: "mtime" })).toEqual([
      'vault-rag: --since "3m" leaves out every note ("m" is minutes: give months in days, like 90d): the last change was on 2026-06-01',
    ]);
    expect(await words(store, { until: "2020-01-01" }, "request")).toEqual([
      'vault-rag: until "2020-01-01" leaves out every note: the oldest note is dated 2026-06-01',
    ]);
    expect(await words(store, { since: "2026-01-01", until: "2026-12-01" })).toEqual([]);
    expect(await words(store, { folder: "Sources/" })).toEqual([
      'vault-rag: no note is directly in the folder "Sources/", only in its subfolders ("Sources/Books") — for all of them give --under "Sources"',
    ]);
    await store.close();
  });
  it("names the paths, folders, tags and link targets a where filter asks for that no note has, with the closest", async () => {
    const p = "robots/SMARS.md";
    const store = await oneNoteStore({
      path: p,
      folder: "robots",
      top_folder: "robots",
      tags: ["pico"],
      links: ["Pico W"],
    });
    const where = {
      $and: [
        { path: "robots/smars.md" },
        { path: { $in: ["robots/SMARS Quad.md", "robots/Rover.md"] } },
        { folder: "robotz" },
        { top_folder: "Robots" },
        { tags: { $contains: "picoo" } },
        { links: { $contains: "Pico W" } }, // a link some note has: no hint
      ],
    };
    expect(await words(store, { where }, "request")).toEqual([
      'vault-rag: no note has the path "robots/smars.md" in the index — did you mean "robots/SMARS.md"?',
      'vault-rag: no note has the path "robots/SMARS Quad.md" in the index — closest: "robots/SMARS.md"',
      'vault-rag: no note has the path "robots/Rover.md" in the index — closest: "robots/SMARS.md"',
      'vault-rag: no folder "robotz" in the index — closest: "robots"',
      'vault-rag: no top folder "Robots" in the index — did you mean "robots"?',
      "vault-rag: and 1 more value of the where filter that no note has",
    ]);
    // an $or is explained only when no branch can match; an $in when none of its values can
    const or = (...clauses: object[]) => words(store, { where: { $or: clauses } });
    expect(await or({ links: { $contains: "Pico  W" } }, { tags: { $contains: "picoo" } })).toEqual([
      'vault-rag: no note links to "Pico  W" in the index — closest: "Pico W"',
      'vault-rag: no note has the tag "picoo" in the index — closest: "pico"',
    ]);
    expect(await or({ links: { $contains: "Pico  W" } }, { path: p })).toEqual([]);
    expect(await words(store, { where: { path: { $in: [p, "nowhere.md"] } } })).toEqual([]);
    // a value a clause leaves out cannot be why nothing was found
    expect(await words(store, { where: { path: { $ne: "nowhere.md" } } })).toEqual([]);
    expect(await words(store, { where: { links: { $not_contains: "Nowhere" } } })).toEqual([]);
    expect(await words(store, { where: { path: p } })).toEqual([]);
    // a tag with a dot, which a note's text ends a tag at
    expect(await words(store, { tags: ["pico.w"] })).toEqual([
      'vault-rag: no note has the tag "pico.w" — in a note\'s text a tag ends at ".", as in Obsidian: #pico.w is the tag "pico"; give --tag "pico"',
    ]);
    expect(await words(store, { tags: ["Pico.W"] }, "request")).toEqual([
      'vault-rag: no note has the tag "Pico.W" — in a note\'s text a tag ends at ".", as in Obsidian: #pico.w is the tag "pico"; give the tag "pico"',
    ]);
    await store.close();
  });
  it("says a top folder is a path's first part when given a folder path, in the CLI's terms and a request's", async () => {
    const store = await oneNoteStore({ path: "Bases/Layouts/Cards view.md" });
    expect(await words(store, { topFolder: "Bases/Layouts" })).toEqual([
      'vault-rag: no top folder "Bases/Layouts" — a top folder is a path\'s first part ("Bases"); for this folder give --folder "Bases/Layouts"',
    ]);
    expect(await words(store, { topFolder: "Bases/Layouts/" }, "request")).toEqual([
      'vault-rag: no top folder "Bases/Layouts/" — a top folder is a path\'s first part ("Bases"); for this folder give the folder "Bases/Layouts"',
    ]);
    // a top folder that is one is no hint
    expect(await words(store, { topFolder: "Bases" })).toEqual([]);
    await store.close();
  });
  it("names the root folder's flag when given the name `folders` prints for it", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(4));
    const rec = (p: string) => ({
      note: { path: p, hash: p, mtime: 1, size: 1 },
      records: [
        { id: p, text: "x", meta: meta({ path: p }), windows: [{ hash: p, vector: new Float32Array([1, 0, 0, 0]) }] },
      ],
    });
    await store.upsertNotes([rec("Inbox.md"), rec("kitchen/Bread.md")]);
    expect(await words(store, { folder: "(vault root)" })).toEqual([
      'vault-rag: no folder "(vault root)" — that is how `vault-rag folders` shows the vault\'s root; give --folder "" for the notes at the root',
    ]);
    expect(await words(store, { folder: "(vault root)" }, "request")).toEqual([
      'vault-rag: no folder "(vault root)" — that is how `vault-rag folders` shows the vault\'s root; give the folder "" for the notes at the root',
    ]);
    await store.close();
  });
});
