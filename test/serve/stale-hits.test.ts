import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VaultHandle } from "../../src/library.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { indexedVault, inProcessApp } from "./helpers.js";

/**
 * A hit from a note edited or deleted since the last index shows text the note no longer holds:
 * the library names those notes (`stale`), the HTTP API passes them on, and MCP says so in the
 * second text the CLI's warning is.
 */

let vault = "";
let v: VaultHandle;

beforeAll(async () => {
  ({ vault, v } = await indexedVault("vr-stale-hits-", {
    "Larder.md": "# Larder\n\nMarmalade on the top shelf, beside the oats.\n",
    "Jam.md": "# Jam\n\nSeville orange marmalade, a winter batch.\n",
    "Bread.md": "# Bread\n\nA sourdough loaf wants a long, cool rise.\n",
  }));
  // after the index: one edited (a later modification time), one deleted
  const later = new Date(Date.now() + 60_000);
  fs.writeFileSync(path.join(vault, "Larder.md"), "# Larder\n\nThe marmalade is gone.\n");
  fs.utimesSync(path.join(vault, "Larder.md"), later, later);
  fs.rmSync(path.join(vault, "Jam.md"));
});
afterAll(async () => v?.close());

describe("hits from notes changed since the last index", () => {
  it("are named by the library's search, and not when no hit's note changed", async () => {
    const r = await v.search("marmalade", { mode: "keyword" });
    expect(r.hits.map((h) => h.path).sort()).toEqual(["Jam.md", "Larder.md"]);
    expect(r.stale).toEqual({ changed: ["Larder.md"], deleted: ["Jam.md"] });
    expect((await v.search("sourdough", { mode: "keyword" })).stale).toBeUndefined();
  });

  it("are not named when the vault is not known to be the index's (serve or mcp with --db from another folder)", async () => {
    const { openVault } = await import("../../src/library.js");
    const other = await openVault(vault, { vaultKnown: false });
    try {
      const r = await other.search("marmalade", { mode: "keyword" });
      expect(r.hits.length).toBe(2);
      expect(r.stale).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it("are named by GET /api/search", async () => {
    const { get } = await inProcessApp(v);
    const r = await get("/api/search?q=marmalade&mode=keyword");
    expect((await r.json()).stale).toEqual({ changed: ["Larder.md"], deleted: ["Jam.md"] });
  });

  it("are told in the MCP search tool's second text, in the CLI's words", async () => {
    // the second text of an MCP search for "marmalade", from a server made with these options
    const secondText = async (opts: { watching?: boolean }) => {
      const { server, vault: served } = await createMcpServer(vault, opts);
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "stale", version: "1.0.0" });
      await Promise.all([server.connect(a), client.connect(b)]);
      try {
        const r = await client.callTool({ name: "search", arguments: { query: "marmalade", mode: "keyword" } });
        return (r as { content: { text: string }[] }).content[1].text;
      } finally {
        await client.close();
        await served.close();
      }
    };
    const told =
      'note: hits come from a note changed since the last index ("Larder.md") and a note deleted since ("Jam.md")';
    expect(await secondText({})).toBe(`${told} — run \`vault-rag index\` to refresh them`);
    // under mcp --watch the fix is the server's own
    expect(await secondText({ watching: true })).toBe(`${told} — this server is taking them in (mcp --watch)`);
  });
});
