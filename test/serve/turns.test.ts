import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VaultHandle } from "../../src/library.js";
import { indexedVault, inProcessApp } from "./helpers.js";

/**
 * Requests that read the index take turns: `requests` at once, `waiting` more in line, and one over
 * that gets a 503 at once. The app runs in this process (Hono's `app.request`) with both limits
 * shortened from 2 and 256.
 */

let v: VaultHandle;

beforeAll(async () => {
  ({ v } = await indexedVault("vr-serve-turns-", {
    "Motors.md": "# Motors\n\nThe motors cut out when the battery sags under load.\n",
    "Bread.md": "# Bread\n\nA sourdough loaf wants a long, cool rise.\n",
  }));
});
afterAll(async () => v?.close());

describe("serve under load", () => {
  it("answers searches a few at a time and refuses, at once and with a reason, those over the waiting limit; tags wait for none", async () => {
    const { get } = await inProcessApp(v, { requests: 1, waiting: 2 });
    // five at once: one runs, two wait, two are over the limit; tags wait for none
    const answers = await Promise.all([
      ...["motors", "battery", "sourdough", "loaf", "rise"].map((q) => get(`/api/search?q=${q}&mode=keyword`)),
      get("/api/tags"),
    ]);
    const tags = answers.pop()!;
    expect(tags.status).toBe(200);
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
