import fc from "fast-check";

/** Random records and filter clauses from small vocabularies, so clauses often match something. */
export const TAGS = ["pico", "robots", "a/b", "a", "kitchen"];
export const FOLDERS = ["", "robots", "kitchen", "daily", "robots/sub"];
export const WORDS = ["motor", "Motor", "bread", "PETG", "x.y", "(a)"];

export const recordArb = fc.record({
  path: fc
    .constantFrom(...FOLDERS)
    .chain((f) => fc.constantFrom("a", "b", "c d").map((n) => (f ? `${f}/${n}.md` : `${n}.md`))),
  mtime: fc.integer({ min: 1_700_000_000, max: 1_700_000_100 }),
  word_count: fc.integer({ min: 0, max: 20 }),
  ordinal: fc.integer({ min: 0, max: 3 }),
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
  links: fc.uniqueArray(fc.constantFrom("SMARS", "Pico W"), { maxLength: 2 }),
  text: fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }).map((w) => w.join(" ")),
});

export const leaf: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({
      f: fc.constantFrom("folder", "top_folder"),
      op: fc.constantFrom("$eq", "$ne"),
      v: fc.constantFrom(...FOLDERS),
    })
    .map(({ f, op, v }) => ({ [f]: { [op]: v } })),
  fc
    .record({
      f: fc.constantFrom("mtime", "word_count", "ordinal"),
      op: fc.constantFrom("$eq", "$ne", "$gt", "$gte", "$lt", "$lte"),
      v: fc.integer({ min: 0, max: 20 }),
    })
    .map(({ f, op, v }) => ({ [f]: { [op]: f === "mtime" ? 1_700_000_000 + v * 5 : v } })),
  fc
    .record({
      op: fc.constantFrom("$in", "$nin"),
      v: fc.uniqueArray(fc.constantFrom(...FOLDERS), { minLength: 1, maxLength: 3 }),
    })
    .map(({ op, v }) => ({ folder: { [op]: v } })),
  fc
    .record({
      f: fc.constantFrom("tags", "links"),
      op: fc.constantFrom("$contains", "$not_contains"),
      v: fc.constantFrom(...TAGS, "SMARS", "Pico W"),
    })
    .map(({ f, op, v }) => ({ [f]: { [op]: v } })),
  fc.constantFrom(...TAGS).map((t) => ({ tags: t.toUpperCase() })),
);
export const whereArb = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .record({ op: fc.constantFrom("$and", "$or"), cs: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) })
      .map(({ op, cs }) => ({ [op]: cs })),
  ),
})).node as fc.Arbitrary<Record<string, unknown>>;
export const docLeaf = fc.oneof(
  fc
    .record({ op: fc.constantFrom("$contains", "$not_contains"), v: fc.constantFrom(...WORDS) })
    .map(({ op, v }) => ({ [op]: v })),
  fc
    .record({
      op: fc.constantFrom("$regex", "$not_regex"),
      v: fc.constantFrom("^motor", "[Mm]otor", "x\\.y", "\\(a\\)", "PETG$"),
    })
    .map(({ op, v }) => ({ [op]: v })),
);
export const docArb = fc.oneof(
  docLeaf,
  fc
    .record({ op: fc.constantFrom("$and", "$or"), cs: fc.array(docLeaf, { minLength: 1, maxLength: 3 }) })
    .map(({ op, cs }) => ({ [op]: cs })),
);
