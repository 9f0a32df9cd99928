import { describe, expect, it } from "vitest";
import { matchesDocument, normaliseWhereDocument } from "../../src/store/index.js";
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
