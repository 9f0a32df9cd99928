import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { openVault } from "../src/index.js";
import { SqliteStore } from "../src/store/index.js";

const BIN = path.resolve("dist/cli/main.js");

/** A library handle keeps serving a vault while another process rebuilds its index with `index --full`. */
describe.each(["SQLite", "Chroma"])("a long-lived reader on %s notices an `index --full` swap", (backend) => {
  it("searches the rebuilt index, in keyword and dense modes, without being reopened", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-swap-")), "notes");
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, "Zebra.md"), "# Zebra\n\nThe zebra grazes on the savanna grass at dawn.\n");
    const db =
      backend === "Chroma" ? `${inject("chromaUrl").replace(/^http:/, "chroma:")}/swap-${Date.now()}` : undefined;
    const v = await openVault(vault, db ? { db } : {});
    await v.index();
    const paths = async (q: string, mode: "keyword" | "dense") => (await v.search(q, { mode })).hits.map((h) => h.path);
    expect(await paths("zebra", "keyword")).toEqual(["Zebra.md"]);
    expect(await paths("zebra savanna", "dense")).toEqual(["Zebra.md"]);
    // another process rebuilds the index from a changed vault and swaps it in
    fs.rmSync(path.join(vault, "Zebra.md"));
    fs.writeFileSync(path.join(vault, "Quokka.md"), "# Quokka\n\nThe quokka smiles at tourists on Rottnest Island.\n");
    execFileSync(process.execPath, [BIN, "index", vault, "--full", "--quiet", ...(db ? ["--db", db] : [])], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    expect(await paths("quokka", "keyword")).toEqual(["Quokka.md"]);
    expect(await paths("zebra", "keyword")).toEqual([]);
    expect(await paths("zebra savanna", "dense")).toEqual(["Quokka.md"]);
    expect((await v.status()).notes).toBe(1);
    await v.close();
  });
});

describe("a long-lived reader whose index folder is deleted and begun again", () => {
  it("reports no index in status while a new one is begun, then the new one", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-gone-")), "notes");
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, "Zebra.md"), "# Zebra\n\nThe zebra grazes on the savanna grass at dawn.\n");
    const v = await openVault(vault);
    await v.index();
    expect(await v.status()).toMatchObject({ model: "use-lite", notes: 1, stale: 0 });
    // the vault replaced as a whole (rm -rf, then a copy): its index goes with it, and `watch`
    // starts a new one, which holds no manifest until its first batch is stored
    fs.rmSync(path.join(vault, ".vault-rag"), { recursive: true });
    fs.mkdirSync(path.join(vault, ".vault-rag"));
    await SqliteStore.open(path.join(vault, ".vault-rag", "index.db"), { create: true }).close();
    expect(await v.status()).toMatchObject({ model: null, notes: 0, chunks: 0, lastIndexed: null, stale: 1 });
    execFileSync(process.execPath, [BIN, "index", vault, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
    expect(await v.status()).toMatchObject({ model: "use-lite", notes: 1, stale: 0 });
    expect((await v.search("zebra", { mode: "keyword" })).hits.map((h) => h.path)).toEqual(["Zebra.md"]);
    await v.close();
  });
});

describe("a long-lived reader whose index file is deleted or damaged under it", () => {
  it("says there is no index, or that it is damaged and how to rebuild it, and reads the next one built", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-rm-")), "notes");
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, "Zebra.md"), "# Zebra\n\nThe zebra grazes on the savanna grass at dawn.\n");
    const v = await openVault(vault);
    await v.index();
    const file = path.join(vault, ".vault-rag", "index.db");
    for (const f of fs.readdirSync(path.dirname(file))) fs.rmSync(path.join(path.dirname(file), f), { force: true });
    // the library's words name its method; the fix, as data, names the index and its vault
    const gone = await v.search("zebra", { mode: "keyword" }).catch((e) => e);
    expect(gone.message).toBe(`vault-rag: no index at ${file} — call index() first`);
    expect(gone.fix).toEqual({ kind: "index", db: file, vault });
    execFileSync(process.execPath, [BIN, "index", vault, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
    expect((await v.search("zebra", { mode: "keyword" })).hits.map((h) => h.path)).toEqual(["Zebra.md"]);
    // truncated in place (the same file): every read says it is damaged, and names the rebuild
    fs.truncateSync(file, 4096);
    await expect(v.search("zebra", { mode: "keyword" })).rejects.toThrow(
      new RegExp(
        `^vault-rag: the index at ${file} is damaged \\(.*\\) — call index\\(\\{ full: true \\}\\) to rebuild it from the notes$`,
      ),
    );
    execFileSync(process.execPath, [BIN, "index", vault, "--full", "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
    expect((await v.search("zebra", { mode: "keyword" })).hits.map((h) => h.path)).toEqual(["Zebra.md"]);
    await v.close();
  });
});
