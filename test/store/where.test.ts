import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  matchesDocument,
  matchesWhere,
  normaliseWhere,
  normaliseWhereDocument,
  type RecordMetadata,
} from "../../src/store/index.js";
import { meta, openStore, record, vec } from "./helpers.js";
import { docArb, recordArb, whereArb } from "./arbitraries.js";

const err = (w: unknown) => {
  try {
    normaliseWhere(w);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("where validation", () => {
  it("treats {} and null as no filter and unwraps one-clause $and/$or", () => {
    expect(normaliseWhere({})).toBeUndefined();
    expect(normaliseWhere(null)).toBeUndefined();
    expect(normaliseWhere({ $and: [{ folder: "kitchen" }] })).toEqual({
      kind: "cmp",
      field: "folder",
      op: "$eq",
      value: "kitchen",
    });
    expect(normaliseWhere({ $or: [{ tags: "Pico" }] })).toEqual({
      kind: "list",
      field: "tags",
      op: "$contains",
      value: "pico",
    });
  });

  it("quotes a bad value nested thousands deep, cut to a line, instead of running out of stack", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 5000; i++) deep = [deep];
    const message = `vault-rag: "$eq" on "path" needs a string, got ${"[".repeat(80)}…`;
    expect(err({ path: deep })).toBe(message);
    let wd: unknown = "motor";
    for (let i = 0; i < 5000; i++) wd = { x: wd };
    expect(() => normaliseWhereDocument({ $contains: wd })).toThrow(/^vault-rag: .*…/);
  });

  it("gives clear errors word for word", () => {
    expect(err({ tags: { $in: ["pico"] } })).toBe(
      'vault-rag: "$in" does not work on the list field "tags" — use {"tags": {"$contains": "pico"}}',
    );
    expect(err({ tags: { $eq: "pico" } })).toBe(
      'vault-rag: "$eq" does not work on the list field "tags" — use {"tags": {"$contains": "pico"}}',
    );
    expect(err({ folder: { $contains: "kit" } })).toBe(
      'vault-rag: "$contains" on "folder" is not a substring match — metadata $contains only works on list fields (tags, links, aliases); use {"top_folder": ...} for a folder tree or whereDocument {"$contains": ...} for text',
    );
    expect(err({ mtime: { $gte: 1767225600000 } })).toBe(
      "vault-rag: mtime value 1767225600000 looks like milliseconds — mtime is in seconds; divide by 1000",
    );
    // a time far before 1970 is no mistake of units: every note is after it
    expect(normaliseWhere({ mtime: { $gt: -1e308 } })).toEqual({
      kind: "cmp",
      field: "mtime",
      op: "$gt",
      value: -1e308,
    });
    expect(err({ mtime: { $gt: "yesterday" } })).toBe('vault-rag: "$gt" on "mtime" needs a number, got "yesterday"');
    // a number JSON cannot hold reads as Infinity, and is named so
    expect(err(JSON.parse('{"word_count": {"$gt": 1e400}}'))).toBe(
      'vault-rag: "$gt" on "word_count" needs a number, got a number beyond ±1.8e308, which JSON reads as Infinity',
    );
    expect(err({ folder: { $in: [] } })).toBe('vault-rag: "$in" on "folder" needs a non-empty list');
    expect(err({ folder: "a", tags: { $contains: "b" } })).toBe(
      'vault-rag: a where clause must have exactly one key, got 2 ("folder", "tags") — combine them with $and',
    );
    expect(err({ folder: { $like: "a" } })).toBe(
      'vault-rag: unknown operator "$like" on "folder" — use one of $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin',
    );
    expect(err({ colour: "red" })).toBe(
      'vault-rag: unknown metadata field "colour" — did you mean "folder"? — known fields: path, title, section, folder, top_folder, date_source, file_type, mtime, date, word_count, ordinal, start_line, end_line, page, tags, links, aliases',
    );
    expect(err({ $and: [] })).toBe('vault-rag: "$and" needs a non-empty list of clauses, got []');
    expect(err({ $not: {} })).toBe(
      'vault-rag: unknown operator "$not" at the top of a where clause — use $and, $or or a field name',
    );
    expect(err({ title: { $gt: "a" } })).toBe('vault-rag: "$gt" on "title" needs a number field; "title" holds text');
    // with a number the operator is still what is wrong (a string would fail as above)
    expect(err({ title: { $gt: 5 } })).toBe('vault-rag: "$gt" on "title" needs a number field; "title" holds text');
    expect(err("folder")).toBe('vault-rag: a where filter must be a JSON object, got "folder"');
  });

  it("validates whereDocument", () => {
    expect(normaliseWhereDocument({})).toBeUndefined();
    expect(() => normaliseWhereDocument({ $like: "x" })).toThrow(
      'vault-rag: unknown whereDocument operator "$like" — use one of $contains, $not_contains, $regex, $not_regex, $and, $or',
    );
    expect(() => normaliseWhereDocument({ $regex: "(" })).toThrow(
      /^vault-rag: invalid regular expression "\(" in whereDocument "\$regex": /,
    );
    expect(() => normaliseWhereDocument({ $contains: "" })).toThrow(
      'vault-rag: whereDocument "$contains" needs a non-empty string, got ""',
    );
  });
});

describe("where validation fuzzing", () => {
  it("answers any JSON with a normalised filter or a vault-rag error, never a crash", () => {
    const json = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom("$and", "$or", "$eq", "$in", "$contains", "tags", "folder", "mtime", "colour"),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.string(),
        fc.array(tie("v"), { maxLength: 3 }),
        fc.dictionary(
          fc.constantFrom(
            "$and",
            "$or",
            "$eq",
            "$ne",
            "$gt",
            "$in",
            "$nin",
            "$contains",
            "$not_contains",
            "tags",
            "folder",
            "mtime",
            "links",
            "x",
            "$regex",
          ),
          tie("v"),
          { maxKeys: 3 },
        ),
      ),
    })).v;
    fc.assert(
      fc.property(json, (w) => {
        for (const f of [normaliseWhere, normaliseWhereDocument]) {
          try {
            f(w);
          } catch (e) {
            expect((e as Error).message.startsWith("vault-rag: ")).toBe(true);
          }
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });
});

// ---- property test: SQL compiler == reference evaluator ----
describe("SQLite filters match the reference evaluator", () => {
  const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
  it(`on ${RUNS} random record sets and clauses`, async () => {
    const store = await openStore();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordArb, { minLength: 1, maxLength: 12 }),
        whereArb,
        fc.option(docArb, { nil: undefined }),
        async (recs, where, wd) => {
          n++;
          const byPath = new Map<string, { id: string; m: RecordMetadata; text: string }[]>();
          recs.forEach((r, i) => {
            const { text: _text, ...fields } = r; // the record's metadata is all but its text
            const m = meta({ ...fields, hash: `h${i}` });
            const list = byPath.get(r.path) ?? [];
            list.push({ id: `${n}-${i}`, m, text: r.text });
            byPath.set(r.path, list);
          });
          await store.deleteNotes([...(await store.notes()).keys()]);
          await store.upsertNotes(
            [...byPath].map(([p, list]) => ({
              note: { path: p, hash: "h", mtime: 0, size: 0 },
              records: list.map((x) => record(x.id, x.m, vec(1, 0, 0, 0), x.text)),
            })),
          );
          const w = normaliseWhere(where)!;
          const d = normaliseWhereDocument(wd);
          const expected = [...byPath.values()]
            .flat()
            .filter((x) => matchesWhere(w, x.m) && (!d || matchesDocument(d, x.text)))
            .map((x) => x.id)
            .sort();
          const got = (await store.queryDense(vec(1, 0, 0, 0), 1000, { where: w, whereDocument: d }))
            .map((r) => r.id)
            .sort();
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
    await store.close();
  });
});

describe("where conditions on notes' properties", () => {
  const props = ["status", "rating", "due", "path", "due date"];
  const err = (w: unknown, names: readonly string[] | null = props) => {
    try {
      normaliseWhere(w, names ?? undefined);
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };

  it("a bare name reaches a property the index holds, in any case and spacing; prop.<name> reaches any", () => {
    expect(normaliseWhere({ "  Due   Date": "x" }, props)).toEqual({
      kind: "prop",
      name: "due date",
      op: "$eq",
      value: "x",
    });
    expect(normaliseWhere({ "prop.Status": { $ne: "draft" } })).toEqual({
      kind: "prop",
      name: "status",
      op: "$ne",
      value: "draft",
    });
    // a field keeps its meaning; the property of that name is prop.path
    expect(normaliseWhere({ path: "a.md" }, props)).toMatchObject({ kind: "cmp", field: "path" });
    expect(normaliseWhere({ "prop.path": "a.md" }, props)).toMatchObject({ kind: "prop", name: "path" });
    expect(err({ Path: "a.md" })).toMatch(/^vault-rag: unknown metadata field "Path" — did you mean "path"/);
  });

  it("compares an ISO date as Unix seconds, and takes numbers, booleans and list items", () => {
    const day = Math.floor(new Date(2026, 2, 14).getTime() / 1000);
    expect(normaliseWhere({ due: { $gte: "2026-03-14" } }, props)).toEqual({
      kind: "prop",
      name: "due",
      op: "$gte",
      value: day,
    });
    expect(normaliseWhere({ rating: { $in: [4, 5] } }, props)).toMatchObject({ op: "$in", value: [4, 5] });
    expect(normaliseWhere({ status: { $contains: "draft" } }, props)).toMatchObject({
      op: "$contains",
      value: "draft",
    });
    expect(normaliseWhere({ status: true }, props)).toMatchObject({ op: "$eq", value: true });
  });

  it("refuses what Chroma would refuse, in one line", () => {
    expect(err({ rating: { $gt: "four" } })).toBe(
      'vault-rag: "$gt" on the property "rating" needs a number or an ISO date like "2026-03-14", got "four"',
    );
    expect(err({ rating: { $in: [4, "4"] } })).toBe(
      'vault-rag: "$in" on "rating" needs values of one type (all strings, all numbers or dates, or all true/false)',
    );
    expect(err({ status: { $contains: 3 } })).toMatch(/needs a non-empty string \(an item of a list property\), got 3/);
    expect(err({ status: { $like: "d" } })).toMatch(/^vault-rag: unknown operator "\$like" on "status"/);
    expect(err({ "prop.": "x" })).toMatch(/^vault-rag: unknown metadata field "prop\."/);
  });

  it("an unknown name gets the closest fields and properties, and the properties the index holds", () => {
    expect(err({ stauts: "draft" })).toMatch(
      /^vault-rag: unknown metadata field "stauts" — did you mean "status"[^]*properties: status, rating, due, path, due date \(each also as prop\.<name>\)$/,
    );
    expect(err({ "prop.ratin": 4 })).toMatch(
      /^vault-rag: unknown metadata field "prop\.ratin" — did you mean "rating"\?/,
    );
    expect(err({ "prop.pth": 4 })).toMatch(/did you mean "prop\.path"/);
    // without the index's names (a filter read before any index), only prop.<name> reaches a property
    expect(err({ status: "draft" }, null)).toMatch(/^vault-rag: unknown metadata field "status" — /);
  });
});
