import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "yaml";
import { simpleYaml } from "../../src/vault/simple-yaml.js";

const READ = [
  "tags: [terka24, bomi38]\ncreated: 2015-04-26\n",
  "aliases: [lora 1781]\nstatus: draft\n",
  "tags: [project/anka-0, loka92, a.b]\n",
  "tags: []\n",
  "title: a - b\nnote: x/y-1\n",
  "date: 9999-99-99\n",
];

const LEFT = [
  "a: true\n",
  "a: False\n",
  "a: NULL\n",
  "a: [null, x]\n",
  "a: 12\n",
  "a: 1e3\n",
  "a: b\na: c\n",
  "constructor: x\n",
  "a: [a,b]\n",
  "a: [a, ]\n",
  "a: b \n",
  "a: b  c\n",
  "a: b # c\n",
  "a: 'b'\n",
  "a:  b\n",
  " a: b\n",
  "a: b\n\n",
  "a: -\n",
  `k${"x".repeat(70)}: v\n`,
  "a: b",
];

describe("simpleYaml", () => {
  it("reads plain keys, words, dates and flow lists as the YAML library does", () => {
    for (const y of READ) {
      const data = simpleYaml(y);
      expect(data, y).toBeDefined();
      expect(data).toStrictEqual(parse(y));
      expect(Object.keys(data!)).toEqual(Object.keys(parse(y)));
    }
  });

  it("leaves to the library what it may read otherwise (booleans, null, numbers, repeats, quotes, comments)", () => {
    for (const y of LEFT) expect(simpleYaml(y), y).toBeUndefined();
  });
});

describe("simpleYaml against the YAML library (property)", () => {
  // keys and words on either side of its rules: most lines have its shape, some hold what YAML
  // reads otherwise (booleans, null, numbers, comments, quotes, other characters)
  const mostly = <T>(good: T[], odd: T[]) =>
    fc.oneof({ arbitrary: fc.constantFrom(...good), weight: 12 }, { arbitrary: fc.constantFrom(...odd), weight: 1 });
  const key = mostly(["a", "Tags", "b9", "x-y", "k_1", "yes"], ["true", "Null", "constructor", "é", "1a", "a b"]);
  const word = mostly(
    ["draft", "a", "Z9", "b/c-1", "v1.2", "x.y", "-", "a-", "yes", "on", "2015-04-26", "9999-99-99"],
    ["true", "False", "NULL", "1e3", "12", ".inf", "~", "a#b", "a:b", "'q'", "é", ""],
  );
  const words = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
  const list = fc
    .tuple(fc.array(words, { maxLength: 3 }), mostly([", "], [",", " , "]))
    .map(([w, sep]) => `[${w.join(sep)}]`);
  const line = fc.tuple(key, mostly([": "], [":", ":  "]), fc.oneof(words, list)).map(([k, sep, v]) => k + sep + v);
  it("returns, whenever it reads a frontmatter, what the library returns for it", () => {
    let read = 0;
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 5 }), (lines) => {
        const yaml = lines.join("\n") + "\n";
        const data = simpleYaml(yaml);
        if (data === undefined) return;
        read++;
        expect(data).toStrictEqual(parse(yaml, { uniqueKeys: false }));
      }),
      { numRuns: 3000 },
    );
    // the generator reaches what it reads, not only what it leaves to the library
    expect(read).toBeGreaterThan(100);
  });
});
