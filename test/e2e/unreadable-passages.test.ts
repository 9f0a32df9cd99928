import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, copyVaultWithoutIndex, searchPaths } from "./helpers.js";

/**
 * The example vault (English, one French recipe) with test/fixtures/italian/vault beside it: the
 * bundled model reads English only, so its vectors place the Italian passages at random.
 */
let tmp = "";
let vault = "";

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-unread-"));
  vault = path.join(tmp, "vault");
  copyVaultWithoutIndex(path.resolve("examples/vault"), vault);
  copyVaultWithoutIndex(path.resolve("test/fixtures/italian/vault"), vault);
  const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { cwd: tmp, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`vault-rag index failed: ${r.stderr}`);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const search = (query: string, args: string[] = []) => searchPaths(vault, tmp, query, args);

describe("passages the model cannot read", () => {
  it("are ranked by their words in a hybrid search, not by where their vectors fall", () => {
    // "condividono" is in one note only; "pacchetti" in three network notes, which the model's
    // vectors put first
    expect(search("pacchetti condividono").paths[0]).toBe("sistemi-operativi/Processi e thread.md");
    expect(search("processi sottorete").paths[0]).toBe("reti/Indirizzi IP e sottoreti.md");
    // an English search is ranked as before
    expect(search("how do the SMARS motors work").paths[0]).toBe("robots/SMARS.md");
  });

  it("are ranked by their words in a dense search", () => {
    const { paths } = search("pacchetti condividono", ["--mode", "dense"]);
    expect(paths[0]).toBe("sistemi-operativi/Processi e thread.md");
    // the keyword-matching passages follow in their keyword order
    expect(paths.slice(1, 2)).toEqual(["reti/Protocollo TCP.md"]);
  });

  it("include a question in another language: ranked by its words alone, and the notice says so", () => {
    // five Italian words the bundled model cannot read: its vector would place the question at random
    const question = "come si dividono gli indirizzi della rete in sottoreti";
    const hybrid = search(question);
    expect(hybrid.stderr).toContain(
      "note: the embedding model (use-lite:universal-sentence-encoder-lite) reads English only, and this question is in another language; ranked by keywords alone",
    );
    expect(hybrid.paths[0]).toBe("reti/Indirizzi IP e sottoreti.md");
    expect(hybrid.paths).toEqual(search(question, ["--mode", "keyword"]).paths);
    // an English question of as many words is embedded as before
    expect(search("how do the two SMARS motors get their power").stderr).not.toMatch(/reads English only/);
  });

  it("are counted once by --verbose", () => {
    // (an English question: one told as Italian, as "pacchetti condividono" is, asks no dense list)
    const { stderr } = search("how do processes share packets", ["--verbose"]);
    const lines = stderr.split("\n").filter((l) => l.startsWith("dense: "));
    // the nine Italian passages and the French recipe, among the dense list's candidates
    expect(lines).toEqual([
      "dense: 10 candidates in a language the model (use-lite:universal-sentence-encoder-lite) cannot read, ranked by their words instead",
    ]);
    // a search whose candidates the model reads says nothing of it
    expect(search("motor", ["--verbose", "--where", '{"folder": "robots"}']).stderr).not.toMatch(/^dense: /m);
  });
});
