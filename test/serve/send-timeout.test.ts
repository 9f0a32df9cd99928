import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVault, type VaultHandle } from "../../src/library.js";
import { endlessLlm, inProcessApp } from "./helpers.js";

/**
 * A client that asks and then reads nothing: each event of the answer waits for the client to take
 * the last, so the model is read no faster than the client reads. Past `sendMs` without a read the
 * client counts as gone: the model's request is closed and the ask slot freed. The app runs in this
 * process (Hono's `app.request`), where an unread response takes no bytes at all, with `sendMs`
 * shortened from 30 s; over TCP the socket buffers would take a long answer first.
 */

let vault = "";
let v: VaultHandle;
let llm: Awaited<ReturnType<typeof endlessLlm>>;
const origHost = process.env.OLLAMA_HOST;

beforeAll(async () => {
  vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-serve-send-"));
  fs.writeFileSync(path.join(vault, "Motors.md"), "# Motors\n\nThe motors cut out when the battery sags under load.\n");
  v = await openVault(vault);
  await v.index();
  llm = await endlessLlm();
  process.env.OLLAMA_HOST = llm.base;
});
afterAll(async () => {
  if (origHost === undefined) delete process.env.OLLAMA_HOST;
  else process.env.OLLAMA_HOST = origHost;
  await llm?.close();
  await v?.close();
});

/** Waits until `what()` holds, however long that takes (the test's timeout bounds it). */
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((r) => setTimeout(r, 20));
  return true;
};

describe("POST /api/ask and a client that never reads", () => {
  it("closes the model's request once an event waits past sendMs, and frees the ask slot for others", async () => {
    const { app } = await inProcessApp(v, { llm: "ollama:endless", sendMs: 300 });
    const ask = () =>
      app.request("http://127.0.0.1:4321/api/ask", {
        method: "POST",
        headers: { host: "127.0.0.1:4321", "content-type": "application/json" },
        body: JSON.stringify({ question: "why did the motors cut out?" }),
      });
    // four asks, the most the server writes at once, none of them read
    const unread = await Promise.all([ask(), ask(), ask(), ask()]);
    expect(unread.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await until(() => llm.requests() === 4), "each ask reached the model").toBe(true);
    expect(await until(() => llm.open() === 0), "every model request is closed").toBe(true);
    // their slots are free: a fifth ask is taken (it was a 429 while four were being written)
    let fifth = await ask();
    while (fifth.status === 429) {
      await new Promise((r) => setTimeout(r, 20));
      fifth = await ask();
    }
    expect(fifth.status).toBe(200);
    expect(await until(() => llm.requests() === 5)).toBe(true);
    await fifth.body!.cancel();
    for (const r of unread) await r.body!.cancel();
  });
});
