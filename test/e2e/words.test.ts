import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, copyVaultWithoutIndex, exampleVaultCopy, searchPaths } from "./helpers.js";

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
