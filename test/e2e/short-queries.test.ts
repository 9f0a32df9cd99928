import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, indexedFixtureCopy } from "./helpers.js";

/**
 * test/fixtures/short-queries/vault: "Principle Component Analysis.md" never says "PCA"; the notes
 * that link to it as `[[Principle Component Analysis|PCA]]` do, and so does their text.
 */
let tmp = "";
let vault = "";

beforeAll(() => {
  ({ tmp, vault } = indexedFixtureCopy("test/fixtures/short-queries/vault", "vr-short-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The paths of `vault-rag search <query> --json` with `args`, best first. */
function searchPaths(query: string, args: string[] = []): string[] {
  const r = spawnSync(process.execPath, [BIN, "search", query, "--vault", vault, "--json", ...args], {
    cwd: tmp,
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path);
}

describe("a note named only by the text of links to it", () => {
  it("is the first hit of a search for that name, in hybrid and keyword mode", () => {
    expect(searchPaths("PCA")[0]).toBe("Principle Component Analysis.md");
    expect(searchPaths("PCA", ["--mode", "keyword"])[0]).toBe("Principle Component Analysis.md");
    expect(searchPaths("SVM")[0]).toBe("Support Vector Machine.md");
    expect(searchPaths("t-SNE")[0]).toBe("t-distributed Stochastic Neighbor Embedding.md");
    // the notes that link to it still follow
    expect(searchPaths("PCA")).toContain("Dimensionality reduction.md");
  });
});
