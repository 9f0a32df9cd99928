import { describe, expect, it } from "vitest";
import { EXPANSION_DEFAULTS, planExpansion, sharedWordNet, synonymCandidates } from "../../src/search/expand.js";
import type { NoteEntry } from "../../src/store/index.js";
import { meta, openStore, record, vec } from "../store/helpers.js";

const note = (p: string): NoteEntry => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });

describe("query expansion", () => {
  const wn = sharedWordNet();

  it("offers WordNet synonyms of the question's words and two-word phrases, never its own words, stopwords or clipped forms", () => {
    const c = synonymCandidates(wn, "Total up a column of figures", 3);
    expect(c).toEqual(expect.arrayContaining(["sum", "aggregate", "add together", "number", "digit"]));
    expect(c).not.toContain("total");
    expect(c).not.toContain("column");
    // "add up" and "tot up" are WordNet's too, but "up" is a stopword: a phrase with one is dropped
    expect(c).not.toContain("add up");
    for (const p of c) for (const w of p.split(" ")) expect(["a", "of", "up", "the"]).not.toContain(w);
    // "pot" is WordNet's clipped form of "potentiometer"; "counting" an inflection of "count"
    expect(synonymCandidates(wn, "potentiometer", 3)).not.toContain("pot");
    expect(synonymCandidates(wn, "count", 3)).not.toContain("counting");
    // adverbs carry no topic
    expect(synonymCandidates(wn, "really", 3)).toEqual([]);
    // two words WordNet knows as one lemma: "upside down" → "inverted", "hard disk" → "fixed disk"
    expect(synonymCandidates(wn, "turn it upside down", 3)).toContain("inverted");
    expect(synonymCandidates(wn, "a hard disk", 3)).toEqual(expect.arrayContaining(["fixed disk", "hard disc"]));
    expect(synonymCandidates(wn, "the of and", 3)).toEqual([]);
    // a phrase made of the question's own words is no synonym ("single file", a line of people)
    expect(synonymCandidates(wn, "extract a single file from an archive", 3)).not.toContain("single file");
  });

  it("offers no proper names, no form of another word of the question, and no fragments of words it cannot read whole", () => {
    // "stop" is also Chicago, the card game; "lines" is also Maya Lin
    expect(wn.synonyms("stop", 3)).not.toContain("chicago");
    expect(synonymCandidates(wn, "git stops asking", 3)).not.toContain("chicago");
    expect(synonymCandidates(wn, "count the lines", 3)).not.toContain("maya lin");
    // "branching" (from "fork") would only weigh "branch" again
    expect(synonymCandidates(wn, "fork", 3)).toContain("branching");
    expect(synonymCandidates(wn, "fetch a branch from someone else's fork", 3)).not.toContain("branching");
    // contractions and accented words are left out whole, not cut into "don" → "wear"
    expect(synonymCandidates(wn, "don't", 3)).toEqual([]);
    expect(synonymCandidates(wn, "won't", 3)).toEqual([]);
    expect(synonymCandidates(wn, "résumé naïve", 3)).toEqual([]);
    // one inflection per stem: "count" from "tally", not "counting" as well
    const tally = synonymCandidates(wn, "tallying", 3);
    expect(tally).toContain("count");
    expect(tally).not.toContain("counting");
  });

  it("expands only as far as the best keyword hit misses the question, with synonyms the index holds but not everywhere", async () => {
    const s = await openStore();
    const texts = [
      "Rows of a table, listed fast.",
      "Count the rows of a table with an estimate.",
      ...Array.from({ length: 30 }, (_, i) => `Filler note ${i}: check it.`),
    ];
    await s.upsertNotes(
      texts.map((text, i) => ({
        note: note(`n${i}.md`),
        records: [record(`c${i}`, meta({ path: `n${i}.md`, title: "t", section: "t" }), vec(1, 0, 0, 0), text)],
      })),
    );
    // the best hit for "count rows" holds both words: coverage 1, nothing to add
    const [best] = await s.queryKeyword("count rows", 5);
    expect(best.id).toBe("c1");
    expect(await planExpansion(s, "count rows", best)).toBeUndefined();
    // "tally" is in no note: coverage is the share of "rows"; of tally's synonyms "count" is held by
    // one chunk of 32, "check" by 30 (over the 5% cap): "count" stays, "check" goes
    const question = "tally rows";
    const [top] = await s.queryKeyword(question, 5);
    const plan = (await planExpansion(s, question, top))!;
    const n = 32;
    const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const coverage = idf(2) / (idf(0) + idf(2));
    expect(plan.coverage).toBeCloseTo(coverage, 12);
    expect(plan.weight).toBeCloseTo(EXPANSION_DEFAULTS.weight * (1 - coverage), 12);
    expect(plan.phrases).toContain("count");
    expect(plan.phrases).not.toContain("check");
    expect(synonymCandidates(wn, question, 3)).toContain("check");
    // no keyword hit at all: expand fully
    const none = (await planExpansion(s, "tally", undefined))!;
    expect(none.coverage).toBe(0);
    expect(none.weight).toBe(EXPANSION_DEFAULTS.weight);
    // and the expanded query now finds the note that says "count"
    const hits = await s.queryKeyword("tally", 5, {}, { expansion: none });
    expect(hits.map((h) => h.id)).toEqual(["c1"]);
    expect(await s.queryKeyword("tally", 5)).toEqual([]);
    await s.close();
  });
});
