import { describe, expect, it } from "vitest";
import {
  partWords,
  proximityPairs,
  proximityQuery,
  queryTerms,
  toFtsQuery,
  type NoteEntry,
} from "../../src/store/index.js";
import { meta, openStore, record, vec } from "./helpers.js";

const note = (p: string): NoteEntry => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });

describe("keyword query terms", () => {
  it("drops stopwords, contractions as written, and reads a possessive as its word", () => {
    expect(queryTerms("how do I save power? 2-factor")).toEqual(["save", "power", "2 factor"]);
    // "won't" is a stopword as written; not searched as "wont", which no note holds
    expect(queryTerms("why won't the motors start")).toEqual(["motors", "start"]);
    expect(queryTerms("why won’t the motors start")).toEqual(["motors", "start"]);
    expect(queryTerms("someone else's fork")).toEqual(["someone", "else", "fork"]);
    // only stopwords: they are kept, as the index splits them ("couldn't" → "couldn t")
    expect(queryTerms("couldn't")).toEqual(["couldn t"]);
    expect(toFtsQuery('AND "NEAR" 2-factor')).toBe('"near" OR "2 factor"');
  });

  it("drops the stopwords of the question's language, not those of another", () => {
    expect(queryTerms("wie kann man den Sauerteig füttern", "de")).toEqual(["sauerteig", "füttern"]);
    // told as English (or not told), German's stopwords are words like any other
    expect(queryTerms("wie kann man den Sauerteig füttern")).toEqual([
      "wie",
      "kann",
      "man",
      "den",
      "sauerteig",
      "füttern",
    ]);
    expect(toFtsQuery("Wie funktioniert ein D-Flip-Flop", [], "de")).toBe('"funktioniert" OR "d flip flop"');
    expect(proximityPairs("wie kann man den Sauerteig füttern", "de")).toEqual([["sauerteig", "füttern"]]);
  });

  it("takes apart the words of a hyphenated term, of two letters or more and no stopword", () => {
    expect(partWords("warum kommt meine DNS-Änderung nicht an", "de")).toEqual(["dns", "änderung"]);
    expect(partWords("2-factor login")).toEqual(["factor"]);
    expect(partWords("Wie funktioniert ein D-Flip-Flop", "de")).toEqual(["flip", "flop"]);
    expect(partWords("gray code")).toEqual([]);
  });

  it("reads a Chinese or Japanese run as its bigrams, each a term, leaving out particles and bigrams across scripts", () => {
    // から is a particle, トか and ら復 straddle a word's edge: they would match nearly any note
    expect(queryTerms("スナップショットから復元")).toEqual([
      "スナ",
      "ナッ",
      "ップ",
      "プシ",
      "ショ",
      "ョッ",
      "ット",
      "復元",
    ]);
    expect(queryTerms("京都から東京へ")).toEqual(["京都", "東京"]);
    expect(queryTerms("中文搜索")).toEqual(["中文", "文搜", "搜索"]);
    // hiragana alone is all there is: kept
    expect(queryTerms("ひらがな")).toEqual(["ひら", "らが", "がな"]);
    expect(queryTerms("京 ramen")).toEqual(["京", "ramen"]);
  });

  it("finds a note by a contraction alone, as it is written there", async () => {
    const s = await openStore();
    await s.upsertNotes([
      { note: note("a.md"), records: [record("a", meta({ path: "a.md" }), vec(1, 0, 0, 0), "It couldn't start.")] },
      { note: note("b.md"), records: [record("b", meta({ path: "b.md" }), vec(1, 0, 0, 0), "It could start.")] },
    ]);
    expect((await s.queryKeyword("couldn't", 5)).map((h) => h.id)).toEqual(["a"]);
    await s.close();
  });

  it("pairs each question word with the next one left after stopwords, quoted, and nothing for one word or phrases alone", () => {
    expect(proximityPairs("undo the last commit")).toEqual([
      ["undo", "last"],
      ["last", "commit"],
    ]);
    expect(proximityQuery("undo the last commit")).toBe('NEAR("undo" "last", 4) OR NEAR("last" "commit", 4)');
    // user text never becomes FTS5 syntax; phrase terms take no part
    expect(proximityQuery('NEAR AND 2-factor "OR" login', 2)).toBe('NEAR("near" "login", 2)');
    expect(proximityQuery("sourdough")).toBeUndefined();
    expect(proximityQuery("2-factor v1.2")).toBeUndefined();
    // a question of stopwords alone is searched by them (see queryTerms), and so paired
    expect(proximityQuery("to be")).toBe('NEAR("to" "be", 4)');
  });

  it("adds each quoted phrase of two or more words as a term, stopwords kept, so a passage that holds it as written ranks first", async () => {
    expect(queryTerms('"connection pool" exhausted')).toEqual(["connection", "pool", "exhausted", "connection pool"]);
    expect(toFtsQuery("“to be or not to be”")).toBe('"to" OR "be" OR "or" OR "not" OR "to be or not to be"');
    expect(queryTerms('say "hi" to the "2-factor" prompt')).toEqual(["say", "hi", "2 factor", "prompt"]); // one word: no phrase
    expect(toFtsQuery('"unclosed quote')).toBe('"unclosed" OR "quote"');
    const s = await openStore();
    const text = (id: string, t: string) => ({
      note: note(`${id}.md`),
      records: [record(id, meta({ path: `${id}.md` }), vec(1, 0, 0, 0), t)],
    });
    await s.upsertNotes([
      text("apart", "Each connection waits in the pool; the pool hands a connection to a query."),
      text(
        "asWritten",
        "Under load the connection pool was exhausted, and requests queued behind one another for a while.",
      ),
      ...Array.from({ length: 8 }, (_, i) => text(`other${i}`, `Sourdough loaf number ${i} rose overnight.`)),
    ]);
    expect((await s.queryKeyword("connection pool", 2)).map((h) => h.id)).toEqual(["apart", "asWritten"]);
    expect((await s.queryKeyword('"connection pool"', 2)).map((h) => h.id)).toEqual(["asWritten", "apart"]);
    await s.close();
  });
});
