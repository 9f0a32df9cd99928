import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openVault } from "../../src/library.js";
import { createApp, type IndexingState } from "../../src/serve/app.js";

describe("GET /api/status while the server indexes", () => {
  it("reports the last count of changed notes instead of walking the vault at every poll (counting once if it has none), and counts again after", async () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-serve-status-"));
    fs.writeFileSync(path.join(vault, "Bread.md"), "# Bread\n\nFeed the sourdough starter twice a day.\n");
    fs.writeFileSync(path.join(vault, "Motors.md"), "# Motors\n\nTwo N20 motors drive the tracks.\n");
    const v = await openVault(vault);
    await v.index();
    let indexing: IndexingState | undefined;
    const opts = {
      vault: v,
      host: "127.0.0.1",
      port: () => 4321,
      llm: "ollama:none",
      assets: { html: "", js: "", css: "" },
      indexing: () => indexing,
      watching: true,
    };
    const app = createApp(opts);
    const status = async () =>
      (await app.request("http://127.0.0.1:4321/api/status", { headers: { host: "127.0.0.1:4321" } })).json();
    try {
      expect(await status()).toMatchObject({ notes: 2, stale: 0, indexing: null });
      fs.writeFileSync(path.join(vault, "Kettle.md"), "# Kettle\n\nDescale it monthly.\n");
      expect((await status()).stale, "counted: not indexing").toBe(1);
      fs.writeFileSync(path.join(vault, "Tea.md"), "# Tea\n\nSteep for three minutes.\n");
      indexing = { phase: "embed", done: 1, total: 2 };
      // the new note is not counted while indexing: the vault is not walked, the last count stands
      expect(await status()).toMatchObject({ stale: 1, indexing: { phase: "embed", done: 1, total: 2 } });
      indexing = undefined;
      expect((await status()).stale, "counted again once indexing is over").toBe(2);
      // a server that is indexing from its start counts once, at the first ask, then keeps that count
      const busyFromStart = createApp({ ...opts, indexing: () => ({ phase: "scan", done: 0, total: 0 }) });
      const busyStatus = async () =>
        (
          await busyFromStart.request("http://127.0.0.1:4321/api/status", { headers: { host: "127.0.0.1:4321" } })
        ).json();
      expect((await busyStatus()).stale).toBe(2);
      fs.writeFileSync(path.join(vault, "Cups.md"), "# Cups\n\nRinse them.\n");
      expect((await busyStatus()).stale).toBe(2);
    } finally {
      await v.close();
    }
  });
});
