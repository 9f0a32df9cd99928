import { describe, expect, it } from "vitest";
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
