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

  it("leaves a German question's stopwords out, and asks the words of its hyphenated terms apart", async () => {
    const s = await openStore(tmpDb());
    const german = (id: string, title: string, text: string) => ({
      note: note(`${title}.md`),
      records: [record(id, meta({ path: `${title}.md`, title, section: title }), vec(1, 0, 0, 0), text)],
    });
    await s.upsertNotes([
      german(
        "brot",
        "Sauerteigbrot",
        "Wenn der Sauerteig nach dem Urlaub träge ist, zwei- bis dreimal im Abstand von zwölf Stunden füttern.",
      ),
      german(
        "fragen",
        "Fragen an die Vermieterin",
        "Wie kann man die Heizung entlüften, und wie oft muss man das machen? Kann man den Keller nutzen?",
      ),
      german(
        "dns",
        "DNS",
        "Wenn eine Änderung nicht ankommt, ist meistens noch der alte Eintrag im Cache des Resolvers.",
      ),
    ]);
    expect(await s.keywordLanguages()).toEqual(["de"]);
    // "wie", "kann", "man", "den" are German stopwords: the tenancy note holds nothing else of the question
    expect(await ids(s, "wie kann man den Sauerteig füttern", "de")).toEqual(["brot"]);
    // no note writes "DNS-Änderung": the one titled DNS that says "Änderung" is found by the two words
    expect((await ids(s, "warum kommt meine DNS-Änderung nicht an", "de"))[0]).toBe("dns");
    await s.close();
  });
});
