import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { VaultHandle } from "../../src/library.js";
import * as walk from "../../src/vault/walk.js";
import { indexedVault, inProcessApp } from "./helpers.js";

// every walk of the vault on this thread, counted: a walk of a large vault holds the event loop for
// seconds (the thread that walks for a note's name or a count of changed notes loads its own copy)
vi.mock("../../src/vault/walk.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/vault/walk.js")>();
  return { ...real, walkVault: vi.fn(real.walkVault) };
});
const walks = vi.mocked(walk.walkVault);

let vault = "";
let v: VaultHandle;
beforeAll(async () => {
  ({ vault, v } = await indexedVault("vr-serve-off-thread-", {
    "Bread.md": "# Bread\n\nFeed the sourdough starter twice a day.\n",
    "Motors.md": "# Motors\n\nTwo N20 motors drive the tracks.\n\n## Heat\n\nThe driver ran hot on carpet.\n",
  }));
  fs.mkdirSync(path.join(vault, "robots"));
  fs.writeFileSync(path.join(vault, "robots", "Arm.md"), "# Arm\n\nA servo arm.\n");
  fs.mkdirSync(path.join(vault, "garden"));
  fs.writeFileSync(path.join(vault, "garden", "Arm.md"), "# Arm\n\nA garden hose arm.\n");
}, 60_000);
afterAll(async () => {
  await v?.close();
});

describe("a note, and the count of changed notes, without walking the vault on the server's thread", () => {
  it("GET /api/note (by path or by name) and GET /api/status give what they gave, and the server's thread walks nothing", async () => {
    const { get } = await inProcessApp(v);
    walks.mockClear();
    const byPath = await get(`/api/note?path=${encodeURIComponent("Motors.md")}&heading=Heat`);
    expect(await byPath.json()).toEqual({ path: "Motors.md", text: "## Heat\n\nThe driver ran hot on carpet." });
    const byName = await get("/api/note?path=motors");
    expect((await byName.json()).path).toBe("Motors.md");
    const inFolder = await get(`/api/note?path=${encodeURIComponent("robots/arm")}`);
    expect((await inFolder.json()).path).toBe("robots/Arm.md");
    const both = await get("/api/note?path=Arm");
    expect(both.status).toBe(400);
    expect((await both.json()).error).toBe(
      'vault-rag: "Arm" could be "garden/Arm.md" or "robots/Arm.md" — give the path of the one you mean',
    );
    const missing = await get("/api/note?path=Motorz");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatch(/^vault-rag: no note "Motorz" in the vault — .*Motors/);
    // two notes written after the last index
    expect((await (await get("/api/status")).json()).stale).toBe(2);
    // the library's handle (which MCP's get_note and status call) the same
    expect((await v.note("bread")).path).toBe("Bread.md");
    expect((await v.status()).stale).toBe(2);
    expect(walks).not.toHaveBeenCalled();
  });

  it("GET /api/status gives the last count while another request counts, and counts again once none does", async () => {
    const { get } = await inProcessApp(v);
    const first = (await (await get("/api/status")).json()).stale;
    fs.writeFileSync(path.join(vault, "Kettle.md"), "# Kettle\n\nDescale it monthly.\n");
    // both sent at once: the first counts; the second does not wait for that count, and gives the last
    const [counting, meanwhile] = await Promise.all([get("/api/status"), get("/api/status")]);
    expect((await counting.json()).stale).toBe(first + 1);
    expect((await meanwhile.json()).stale).toBe(first);
    expect((await (await get("/api/status")).json()).stale).toBe(first + 1);
  });
});
