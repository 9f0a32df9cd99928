import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, copyVaultWithoutIndex, exampleVaultCopy, indexedFixtureCopy, searchPaths } from "./helpers.js";

/**
 * Titles, aliases, word forms and languages (docs/decisions/languages.md): the example vault with
 * the German fixture (test/fixtures/german/vault) under `de/`, a note named as one word
 * (`Graycode.md`), a note whose alias is the question's word beside one whose text repeats it, and
 * a German note about a network switch (a WordNet synonym of "flip-flop").
 */
let vault = "";
let tmp = "";

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(vault, rel)), { recursive: true });
  fs.writeFileSync(path.join(vault, rel), text);
}

beforeAll(() => {
  ({ vault } = exampleVaultCopy("vr-words-"));
  tmp = path.dirname(vault);
  copyVaultWithoutIndex(path.resolve("test/fixtures/german/vault"), path.join(vault, "de"));
  write(
    "electronics/Graycode.md",
    "# Graycode\n\nA Graycode sequence changes a single bit between neighbouring values, so a rotary encoder never\nreports a wild value while it turns between two positions.\n",
  );
  write(
    "math/Eigenvector.md",
    "---\naliases: [Eigenvalue]\n---\n# Eigenvector\n\nA vector whose direction a linear map leaves unchanged; the map only scales it, by its eigenvalue λ.\n",
  );
  write(
    "math/Matrix exercises.md",
    "# Matrix exercises\n\nWeek 3 homework: compute the eigenvalues of a matrix for each of the five 2×2 matrices on the sheet,\nthen check the eigenvalues of a matrix product against the product of the eigenvalues. Eigenvalues\nof a matrix that is triangular sit on its diagonal. Bring the eigenvalues of a matrix to the tutorial.\n",
  );
  write(
    "de/netzwerk/Switch.md",
    "# Switch\n\nDer Switch im Flur verbindet den Heimserver, den Drucker und den Access Point. Ein verwalteter Switch\nkann VLANs trennen; für zu Hause reicht ein einfacher Switch mit acht Ports und Gigabit.\n",
  );
  const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { cwd: tmp, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`vault-rag index failed: ${r.stderr}`);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const search = (query: string, args: string[] = []) => searchPaths(vault, tmp, query, args);

describe("titles, aliases and word forms", () => {
  it('finds a note named as one word by its two words: "gray code" finds Graycode.md', () => {
    for (const mode of ["keyword", "hybrid"]) {
      const { paths } = search("gray code", ["--mode", mode]);
      expect(paths.slice(0, 2)).toContain("electronics/Graycode.md");
    }
  });

  it("puts a note whose alias the question holds above one whose text repeats it", () => {
    for (const mode of ["keyword", "hybrid"])
      expect(search("eigenvalues of a matrix", ["--mode", mode]).paths[0]).toBe("math/Eigenvector.md");
  });

  it("ranks D-Flip-Flop.md first for a German question about a D-Flip-Flop", () => {
    for (const mode of ["keyword", "hybrid"])
      expect(search("Wie funktioniert ein D-Flip-Flop", ["--mode", mode]).paths[0]).toBe(
        "de/digitaltechnik/D-Flip-Flop.md",
      );
  });

  it("does not widen a German question with English WordNet synonyms", () => {
    // "flip-flop" is "alternate" and "switch" in WordNet; the vault holds "Switch" (a network switch)
    const { stderr } = search("Wie schnell kippt ein Flip-Flop beim Takt", ["--verbose"]);
    expect(stderr).toContain("synonyms: none added");
    expect(stderr).not.toMatch(/synonyms: .*(alternate|switch)/);
  });
});

describe("stopwords of the question's language, and hyphenated terms", () => {
  it("leaves German stopwords out of a German question's keyword query", () => {
    // the tenancy note says "wie", "kann" and "man" over and over, and nothing about sourdough
    for (const mode of ["keyword", "hybrid"]) {
      const { paths } = search("wie kann man den Sauerteig füttern", ["--mode", mode]);
      expect(paths[0], mode).toBe("de/kochen/Sauerteigbrot.md");
      if (mode === "keyword") expect(paths).not.toContain("de/alltag/Fragen an die Vermieterin.md");
    }
  });

  it("finds a note by the words of a hyphenated term it never writes together", () => {
    for (const mode of ["keyword", "hybrid"]) {
      expect(search("warum kommt meine DNS-Änderung nicht an", ["--mode", mode]).paths[0], mode).toBe(
        "de/netzwerk/DNS.md",
      );
      expect(search("Docker-Volumes", ["--mode", mode]).paths[0], mode).toBe("de/programmieren/Docker.md");
    }
  });

  it("finds a German note named apart by the question's one word", () => {
    for (const mode of ["keyword", "hybrid"])
      expect(search("Dreiwegehandschlag", ["--mode", mode]).paths[0], mode).toBe("de/netzwerk/Drei-Wege-Handschlag.md");
  });
});

/**
 * A name the question holds in part or joined (docs/decisions/languages.md): the vault of
 * test/fixtures/titles, self-written notes: `Three Way Handshake.md` beside one-line notes that
 * mention TCP, and names written apart (`Gray Code.md`, `Flip Flop.md`).
 */
describe("a name the question holds in part or joined", () => {
  let names = "";
  let namesTmp = "";
  beforeAll(() => {
    ({ tmp: namesTmp, vault: names } = indexedFixtureCopy("test/fixtures/titles/vault", "vr-names-"));
  });
  afterAll(() => fs.rmSync(namesTmp, { recursive: true, force: true }));
  const find = (query: string, mode: string) => searchPaths(names, namesTmp, query, ["--mode", mode]).paths;

  it('"how does TCP handshake work" puts Three Way Handshake.md above one-line notes that mention TCP', () => {
    for (const mode of ["keyword", "hybrid"])
      for (const q of ["how does TCP handshake work", "tcp handshake"])
        expect(find(q, mode)[0], `${mode}: ${q}`).toBe("network/Three Way Handshake.md");
  });

  it("finds a note named in two words by the question's one word", () => {
    for (const mode of ["keyword", "hybrid"]) {
      expect(find("graycode converter", mode)[0], mode).toBe("electronics/Gray Code.md");
      expect(find("flipflop", mode)[0], mode).toBe("electronics/Flip Flop.md");
    }
  });
});
