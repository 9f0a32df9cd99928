import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/store/index.js";
import { ftsNames } from "../../src/store/sqlite/fts-text.js";
import { meta, openStore, record, tmpDb, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: p, mtime: 1, size: 1 });

/** A German passage of more than eight words: the index stems it by German's Snowball stemmer. */
const GERMAN =
  "Ein synchroner Zähler besteht aus mehreren Flip-Flops, die alle am selben Takt hängen und gemeinsam zählen.";

async function germanStore(file = tmpDb()): Promise<SqliteStore> {
  const s = await openStore(file);
  await s.upsertNotes([
    {
      note: note("Zähler.md"),
      records: [record("z0", meta({ path: "Zähler.md", title: "Zähler", section: "Zähler" }), vec(1, 0, 0, 0), GERMAN)],
    },
    {
      note: note("Gray Code.md"),
      records: [
        record(
          "g0",
          meta({ path: "Gray Code.md", title: "Gray Code", section: "Gray Code" }),
          vec(0, 1, 0, 0),
          "One bit changes between neighbouring values.",
        ),
      ],
    },
  ]);
  return s;
}

const ids = async (s: SqliteStore, q: string, language?: string) =>
  (await s.queryKeyword(q, 5, {}, language ? { language } : {})).map((h) => h.id);

describe("keyword index stems by language", () => {
  it("stems a German passage by German's Snowball stemmer, and a question by its language", async () => {
    const s = await germanStore();
    expect(await s.keywordLanguages()).toEqual(["de"]);
    // "Zählern" and "Zähler" share the stem "zahl"; Porter alone reads them apart
    expect(await ids(s, "Zählern", "de")).toEqual(["z0"]);
    // a question whose language is not told is asked in every language the index stems
    expect(await ids(s, "Zählern")).toEqual(["z0"]);
    // an English question is asked as typed
    expect(await ids(s, "Zählern", "en")).toEqual([]);
    expect((await s.keywordStats(["zählern"], { language: "de" })).counts).toEqual([1]);
    await s.close();
  });

  it("finds a name written joined or split: the index holds names joined, a question's words are joined too", async () => {
    const s = await germanStore();
    expect(await ids(s, "graycode")).toEqual(["g0"]);
    expect(ftsNames("D-Flip-Flop", "", undefined)).toBe(" dflipflop dflip flipflop");
    expect(ftsNames("Graycode", "", undefined)).toBe("");
    await s.close();
  });

  it("reads an index written by the rules before as before, and stems it once `index` reads it again; nothing is lost", async () => {
    const file = tmpDb();
    const s = await germanStore(file);
    // the keyword text as the build before wrote it: the fields as they stand, no languages
    s.db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
    s.db
      .prepare(
        "INSERT INTO fts (rowid, title, aliases, section, text) SELECT rowid, title, aliases, section, text FROM chunks",
      )
      .run();
    s.db.prepare("UPDATE meta SET value = 'nfkc cjk-bigrams 1; unicode 15.1' WHERE key = 'keyword_text'").run();
    s.db.prepare("DELETE FROM meta WHERE key = 'keyword_languages'").run();
    await s.close();
    const old = SqliteStore.open(file);
    // a German question is asked as typed (Porter): the word as written is found, the stem is not asked
    expect(await ids(old, "Zähler", "de")).toEqual(["z0"]);
    expect(await ids(old, "Zählern", "de")).toEqual([]);
    expect(await old.keywordLanguages()).toEqual([]);
    expect(await old.upgradeKeywordText()).toBe(true);
    expect(await ids(old, "Zählern", "de")).toEqual(["z0"]);
    expect(await ids(old, "graycode")).toEqual(["g0"]);
    expect((await old.count()).chunks).toBe(2);
    // its rows leave the keyword index whole when the notes are deleted: stemmed as they were inserted
    await old.deleteNotes(["Zähler.md", "Gray Code.md"]);
    old.db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')");
    expect(old.db.prepare("SELECT count(*) FROM temp.vocab").pluck().get()).toBe(0);
    await old.close();
  });
});
