import { describe, expect, it } from "vitest";
import { matchesDocument, normaliseWhereDocument } from "../../src/store/index.js";
import { REGEX_LIMITS } from "../../src/store/regex.js";
import { meta, openStore, record, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const refusal = (wd: unknown) => {
  try {
    normaliseWhereDocument(wd);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("whereDocument regular expressions run in linear time", () => {
  const runOfAs = "a".repeat(100_000);
  const texts: Record<string, string> = {
    long: runOfAs + "!",
    longClean: runOfAs,
    short: "a".repeat(26) + "!",
    plain: "aaaa",
  };

  it("answers ^(a+)+$ over a 100 KB run of a's, in SQLite and in the reference evaluator", async () => {
    const s = await openStore();
    await s.upsertNotes(
      Object.entries(texts).map(([id, text]) => ({
        note: note(`${id}.md`),
        records: [record(id, meta({ path: `${id}.md` }), vec(1, 0, 0, 0), text)],
      })),
    );
    for (const pattern of ["^(a+)+$", "^(a|aa)+$", "^(a*)*$"]) {
      const yes = normaliseWhereDocument({ $regex: pattern })!;
      const no = normaliseWhereDocument({ $not_regex: pattern })!;
      expect((await s.queryDense(vec(1, 0, 0, 0), 10, { whereDocument: yes })).map((h) => h.id).sort()).toEqual([
        "longClean",
        "plain",
      ]);
      expect((await s.queryDense(vec(1, 0, 0, 0), 10, { whereDocument: no })).map((h) => h.id).sort()).toEqual([
        "long",
        "short",
      ]);
      expect(
        Object.keys(texts)
          .filter((id) => matchesDocument(yes, texts[id]))
          .sort(),
      ).toEqual(["longClean", "plain"]);
    }
    await s.close();
  });

  it("refuses a pattern whose counted repeats write out to over 1,000 steps, word for word", () => {
    expect(refusal({ $regex: "\\p{L}{1000}\\p{L}{1000}!" })).toBe(
      'vault-rag: the regular expression "\\\\p{L}{1000}\\\\p{L}{1000}!" in whereDocument "$regex" is too large to run: 2,003 steps once its repeats are written out, at most 1,000 — use smaller counted repeats (x{1000} is a thousand steps) or * and +',
    );
    // a long pattern is quoted cut short
    expect(refusal({ $regex: "(?s).{1,1000}".repeat(30) })).toMatch(
      /^vault-rag: the regular expression "(\(\?s\)\.\{1,1000\}){9}\(\?s…" in whereDocument/,
    );
    expect(refusal({ $regex: "DRV\\d{4}|\\b(foo|bar|baz)\\b|(\\w+\\s){20}" })).toBe("no error");
  });

  it("says a counted repeat over 1,000, alone or multiplied by another, is too many, and one written backwards, word for word", () => {
    expect(refusal({ $regex: "a{2000}" })).toBe(
      'vault-rag: the regular expression "a{2000}" in whereDocument "$regex" repeats too many times at {2000}: counted repeats are written out when a pattern runs (a repeat inside another counts as their product), so they must stay under 1,000 steps in all — use * or +, or smaller counts',
    );
    expect(refusal({ $not_regex: "(ab{100}){100}" })).toBe(
      'vault-rag: the regular expression "(ab{100}){100}" in whereDocument "$not_regex" repeats too many times at {100}: counted repeats are written out when a pattern runs (a repeat inside another counts as their product), so they must stay under 1,000 steps in all — use * or +, or smaller counts',
    );
    expect(refusal({ $regex: "DRV\\d{4,2}" })).toBe(
      'vault-rag: the regular expression "DRV\\\\d{4,2}" in whereDocument "$regex" has the repeat {4,2}, whose least count is over its most — write the smaller count first ({2,4})',
    );
  });

  it("refuses a filter whose patterns compile to over 10,000 steps together, each within its own cap", () => {
    const many = { $or: Array.from({ length: 12 }, (_, i) => ({ $regex: `\\p{L}{900}${i}` })) };
    expect(refusal(many)).toBe(
      "vault-rag: the whereDocument filter's patterns compile to over 10,000 steps together — use fewer or simpler patterns, or narrow the search with where",
    );
    expect(refusal({ $or: many.$or.slice(0, 10) })).toBe("no error");
  });

  it.each([
    {
      what: "a regular expression",
      filter: { $regex: "(\\w+\\s){40}!" },
      stopped: 'the regular expression "(\\\\w+\\\\s){40}!"',
      within: 0, // no passage ends in "!"
    },
    {
      what: "thousands of $contains clauses",
      filter: { $and: Array.from({ length: 100 }, (_, i) => ({ $not_contains: `zz${i}` })) },
      stopped: "the filter's $contains clauses",
      within: 5, // every passage holds none of the texts
    },
  ])("stops a query whose whereDocument ($what) runs past its time budget, with a filter error", async (c) => {
    const s = await openStore();
    await s.upsertNotes(
      Array.from({ length: 50 }, (_, i) => ({
        note: note(`n${i}.md`),
        records: [record(`n${i}`, meta({ path: `n${i}.md` }), vec(1, 0, 0, 0), `motor ${"word ".repeat(2000)}`)],
      })),
    );
    const wd = normaliseWhereDocument(c.filter)!;
    const limit = REGEX_LIMITS.budgetMs;
    REGEX_LIMITS.budgetMs = 0;
    try {
      for (const query of [
        () => s.queryDense(vec(1, 0, 0, 0), 5, { whereDocument: wd }),
        () => s.queryKeyword("motor", 5, { whereDocument: wd }),
      ]) {
        const e = (await query().then(
          () => new Error("no error"),
          (x: Error) => x,
        )) as Error & { code?: string };
        expect(e.code).toBe("filter_invalid");
        expect(e.message).toBe(
          `vault-rag: ${c.stopped} in whereDocument ran for over 0 s over the index's passages and was stopped — make it simpler, or narrow the search with where or another whereDocument clause`,
        );
      }
    } finally {
      REGEX_LIMITS.budgetMs = limit;
    }
    // within the budget the same query runs
    expect(await s.queryDense(vec(1, 0, 0, 0), 5, { whereDocument: wd })).toHaveLength(c.within);
    expect(
      await s.queryKeyword("motor", 5, { whereDocument: normaliseWhereDocument({ $contains: "motor word" })! }),
    ).toHaveLength(5);
    await s.close();
  });

  it("refuses look-around and back-references, as Chroma's regex dialect does, word for word", () => {
    expect(refusal({ $regex: "motor(?= driver)" })).toBe(
      'vault-rag: the regular expression "motor(?= driver)" in whereDocument "$regex" uses look-around, which Chroma\'s regex dialect does not have — rewrite it without (?=, (?!, (?<= or (?<!',
    );
    expect(refusal({ $not_regex: "(?<!DRV)8833" })).toBe(
      'vault-rag: the regular expression "(?<!DRV)8833" in whereDocument "$not_regex" uses look-around, which Chroma\'s regex dialect does not have — rewrite it without (?=, (?!, (?<= or (?<!',
    );
    expect(refusal({ $regex: "(a)\\1" })).toBe(
      'vault-rag: the regular expression "(a)\\\\1" in whereDocument "$regex" uses a back-reference (\\1), which Chroma\'s regex dialect does not have — write the repeated text out instead',
    );
    expect(refusal({ $regex: "(" })).toBe(
      'vault-rag: invalid regular expression "(" in whereDocument "$regex": missing closing ): `(` — escape a special character with \\ to match it literally',
    );
  });

  it("accepts what Chroma's dialect has and JavaScript's lacks: inline flags", () => {
    const d = normaliseWhereDocument({ $regex: "(?i)petg" })!;
    expect(matchesDocument(d, "Ordered more PETG.")).toBe(true);
  });
});
