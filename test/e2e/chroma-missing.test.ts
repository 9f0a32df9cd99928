import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMA_MISSING, loadChroma } from "../../src/store/chroma/chroma-store.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

describe("chromadb is an optional install", () => {
  it("a missing chromadb package is one line naming the install command; other load errors keep their own message", async () => {
    const missing = Object.assign(
      new Error("Cannot find package 'chromadb' imported from /x/dist/store/chroma/chroma-store.js"),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    await expect(loadChroma(() => Promise.reject(missing))).rejects.toThrow(CHROMA_MISSING);
    expect(CHROMA_MISSING).toMatch(/^vault-rag: .*`npm install chromadb`/);
    expect(CHROMA_MISSING).not.toContain("\n");
    const transitive = Object.assign(
      new Error("Cannot find package 'semver' imported from /x/node_modules/chromadb/dist/chromadb.mjs"),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    await expect(loadChroma(() => Promise.reject(transitive))).rejects.toThrow(/^Cannot find package 'semver'/);
    const chroma = await loadChroma();
    expect(typeof chroma.ChromaClient).toBe("function");
  });

  it("the built CLI, where chromadb cannot be resolved, says so for a chroma:// index and exits 2", () => {
    const { vault } = exampleVaultCopy("vr-nochroma-");
    // the built package in a folder whose node_modules holds every installed package but chromadb
    const pkg = fs.mkdtempSync(path.join(os.tmpdir(), "vr-nochroma-pkg-"));
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ type: "module" }));
    fs.cpSync(path.dirname(path.dirname(BIN)), path.join(pkg, "dist"), { recursive: true });
    fs.mkdirSync(path.join(pkg, "node_modules"));
    const linked = fs.readdirSync("node_modules").filter((name) => name !== "chromadb" && !name.startsWith("."));
    expect(linked.length).toBeGreaterThan(10);
    for (const name of linked) fs.symlinkSync(path.resolve("node_modules", name), path.join(pkg, "node_modules", name));
    // Node looks for packages in every folder above as well: one found there cannot be hidden
    const above = [];
    for (let dir = path.dirname(pkg); ; dir = path.dirname(dir)) {
      above.push(path.join(dir, "node_modules/chromadb"));
      if (dir === path.dirname(dir)) break;
    }
    expect(above.filter((p) => fs.existsSync(p))).toEqual([]);
    const r = spawnSync(
      process.execPath,
      [path.join(pkg, "dist/cli/main.js"), "search", "--vault", vault, "--db", "chroma://127.0.0.1:9/notes", "motors"],
      { encoding: "utf8" },
    );
    expect(r.stderr.trim()).toBe(CHROMA_MISSING);
    expect(r.status).toBe(2); // search: an error, not "no hits"
    // and the same folder with chromadb linked gets past loading (to a refused connection)
    fs.symlinkSync(path.resolve("node_modules/chromadb"), path.join(pkg, "node_modules/chromadb"));
    const withIt = spawnSync(
      process.execPath,
      [path.join(pkg, "dist/cli/main.js"), "search", "--vault", vault, "--db", "chroma://127.0.0.1:9/notes", "motors"],
      { encoding: "utf8" },
    );
    expect(withIt.stderr).not.toContain("needs the chromadb package");
    expect(withIt.stderr).toMatch(/^vault-rag: /);
  });
});
