import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVault, type VaultHandle } from "../../src/library.js";
import { createApp } from "../../src/serve/app.js";

/**
 * Requests that read the index take turns: `requests` at once, `waiting` more in line, and one over
 * that gets a 503 at once. The app runs in this process (Hono's `app.request`) with both limits
 * shortened from 2 and 256.
 */

let vault = "";
let v: VaultHandle;

beforeAll(async () => {
  vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-serve-turns-"));
  fs.writeFileSync(path.join(vault, "Motors.md"), "# Motors\n\nThe motors cut out when the battery sags under load.\n");
  fs.writeFileSync(path.join(vault, "Bread.md"), "# Bread\n\nA sourdough loaf wants a long, cool rise.\n");
  v = await openVault(vault);
  await v.index();
}, 120_000);
afterAll(async () => v?.close());

describe("serve under load", () => {
  it("answers requests a few at a time and refuses, at once and with a reason, those over the waiting limit", async () => {
    const app = createApp({
      vault: v,
      host: "127.0.0.1",
      port: () => 4321,
      llm: "ollama:none",
      assets: { html: "", js: "", css: "" },
      requests: 1,
      waiting: 2,
    });
    const get = (target: string) =>
      app.request(`http://127.0.0.1:4321${target}`, { headers: { host: "127.0.0.1:4321" } });
    // five at once: one runs, two wait, two are over the limit
    const answers = await Promise.all(
      ["motors", "battery", "sourdough", "loaf", "rise"].map((q) => get(`/api/search?q=${q}&mode=keyword`)),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 503, 503]);
    expect(await answers[3].json()).toEqual({
      error: "vault-rag: 2 requests are already waiting for an answer — send again in a moment",
      code: "busy",
    });
    expect(answers[4].headers.get("retry-after")).toBe("1");
    expect((await answers[0].json()).hits[0].path).toBe("Motors.md");
    expect((await answers[2].json()).hits[0].path).toBe("Bread.md");
    // the line empties: what comes after the others are answered is served
    expect((await get("/api/status")).status).toBe(200);
  });
});
