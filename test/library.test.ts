import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { CHROMA_MISSING, needs } from "./support/needs.js";
import { batchLine, openVault } from "../src/index.js";

/** A new vault of two notes: a tagged one in kitchen/ about bread, and one at the top about servers. */
function twoNotes(prefix: string): string {
  const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), prefix)), "notes");
  fs.mkdirSync(path.join(vault, "kitchen"), { recursive: true });
  fs.writeFileSync(
    path.join(vault, "kitchen/Bread.md"),
    "---\ntags: [baking]\n---\n# Bread\n\nSourdough starter fed with flour and water, then baked in a Dutch oven.\n",
  );
  fs.writeFileSync(
    path.join(vault, "Servers.md"),
    "# Servers\n\nKubernetes pods restart on their own; ingress controllers need care.\n",
  );
  return vault;
}

describe("library API", () => {
  it("says why a filter's folder is not in the index when the vault holds it but leaves it out", async () => {
    const vault = twoNotes("vr-lib-hidden-");
    for (const dir of ["archive", ".attic"]) {
      fs.mkdirSync(path.join(vault, dir));
      fs.writeFileSync(path.join(vault, dir, "Old bread.md"), "# Old bread\n\nA loaf from last year.\n");
    }
    fs.writeFileSync(path.join(vault, ".vault-ragignore"), "archive/\n");
    const v = await openVault(vault);
    await v.index();
    expect((await v.search("bread", { folder: "archive" })).hints).toEqual([
      'vault-rag: no folder "archive" in the index: .vault-ragignore keeps "archive/" out of the index — remove that rule and index the vault again to search it',
    ]);
    expect((await v.search("bread", { topFolder: ".attic" })).hints).toEqual([
      'vault-rag: no folder ".attic" in the index: it is in ".attic/", a folder vault-rag never indexes',
    ]);
    // a folder the vault does not hold gets the closest names
    expect((await v.search("bread", { folder: "kitchn" })).hints).toEqual([
      'vault-rag: no folder "kitchn" in the index — closest: "kitchen"',
    ]);
    await v.close();
  });

  it("indexes, searches with the CLI's filters and defaults, and reports status", async () => {
    const vault = twoNotes("vr-lib-");
    const v = await openVault(vault);
    expect((await v.status()).notes).toBe(0);
    const summary = await v.index();
    expect(summary).toMatchObject({ added: 2, failed: 0 });
    const { hits } = await v.search("bread baking");
    expect(hits[0].path).toBe("kitchen/Bread.md");
    // the tag filter leaves only the baking note, though the query is about the other one
    expect((await v.search("pods", { tags: ["baking"] })).hits.map((h) => h.path)).toEqual(["kitchen/Bread.md"]);
    expect(await v.status()).toMatchObject({
      notes: 2,
      model: "use-lite",
      dimensions: 512,
      stale: 0,
      index: path.join(vault, ".vault-rag/index.db"),
    });
    fs.writeFileSync(path.join(vault, "New.md"), "# New\n\nA new note.\n");
    expect((await v.status()).stale).toBe(1);
    await v.close();
    await expect(openVault(path.join(vault, "missing"))).rejects.toThrow(
      `vault-rag: vault folder "${path.join(vault, "missing")}" does not exist — pass the folder that holds your notes`,
    );
  });

  it("lists properties and their values, filters by them, and counts the notes' date sources in status", async () => {
    const vault = twoNotes("vr-lib-props-");
    fs.writeFileSync(
      path.join(vault, "Servers.md"),
      "---\nStatus: Draft\ncreated: 2021-04-01\n---\n# Servers\n\nKubernetes pods restart on their own.\n",
    );
    const v = await openVault(vault);
    await v.index();
    expect(await v.props()).toEqual([
      { name: "created", field: "created", notes: 1, types: { date: 1 } },
      { name: "status", field: "status", notes: 1, types: { string: 1 } },
    ]);
    expect(await v.props("status")).toEqual([{ value: "Draft", type: "string", notes: 1 }]);
    await expect(v.props("stats")).rejects.toThrow(
      'vault-rag: no note has the property "stats" — did you mean "status"?',
    );
    expect((await v.search("pods", { props: ["status=Draft"] })).hits.map((h) => h.path)).toEqual(["Servers.md"]);
    expect((await v.search("pods", { where: { created: { $lt: "2022-01-01" } } })).hits.map((h) => h.path)).toEqual([
      "Servers.md",
    ]);
    expect((await v.status()).dates).toEqual({ sources: { created: 1, mtime: 1 }, unreadable: 0 });
    await v.close();
  });

  it("watches: a note saved while the handle is open is found by its next search, and batches are reported", async () => {
    const vault = twoNotes("vr-lib-watch-");
    const v = await openVault(vault);
    await v.index();
    const batches: string[] = [];
    let batchSeen = () => {};
    const w = await v.watch({ onBatch: (s) => (batches.push(batchLine(s)), batchSeen()) });
    try {
      await w.idle();
      const next = new Promise<void>((r) => (batchSeen = r));
      fs.writeFileSync(path.join(vault, "Kettle.md"), "# Kettle\n\nDescale the kettle with citric acid every month.\n");
      await next;
      expect((await v.search("kettle descaling")).hits[0].path).toBe("Kettle.md");
      expect(batches.at(-1)).toMatch(
        /^1 added, 0 updated, 0 deleted \(\d+ windows? embedded, 0 from cache\) in \d+\.\d\d s$/,
      );
    } finally {
      await w.close();
      await v.close();
    }
  });

  it.skipIf(!!CHROMA_MISSING)(
    needs("works the same on a Chroma server: index, search with filters, tags, folders, status", CHROMA_MISSING),
    async () => {
      const vault = twoNotes("vr-lib-chroma-");
      const db = `${inject("chromaUrl").replace(/^http:/, "chroma:")}/library-${Date.now()}`;
      const v = await openVault(vault, { db });
      expect(await v.status()).toMatchObject({ notes: 0, index: db });
      expect(await v.index()).toMatchObject({ added: 2, failed: 0 });
      expect((await v.search("bread baking")).hits[0].path).toBe("kitchen/Bread.md");
      expect((await v.search("pods", { tags: ["baking"] })).hits.map((h) => h.path)).toEqual(["kitchen/Bread.md"]);
      expect(await v.tags()).toEqual([{ tag: "baking", notes: 1 }]);
      expect(await v.folders()).toEqual([
        { folder: "", notes: 1 },
        { folder: "kitchen", notes: 1 },
      ]);
      expect(await v.status()).toMatchObject({ notes: 2, model: "use-lite", stale: 0, index: db });
      expect(fs.existsSync(path.join(vault, ".vault-rag/chroma"))).toBe(true); // the keyword sidecar lives in the vault
      await v.close();
    },
  );
});
