import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVault, type VaultHandle } from "../../src/library.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { readNoteText } from "../../src/vault/index.js";
import { inProcessApp } from "../serve/helpers.js";

/**
 * Two vaults that serve the same notes: `held` also holds files out of the served scope (in
 * `.trash/`, in a folder `.vault-ragignore` names, behind a link out of the vault, not Markdown, a
 * FIFO); `bare` holds none of them. Whatever a reader asks for, the two must answer alike.
 */
const made: string[] = [];
const tmp = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
const twin = (withHidden: boolean) => {
  const vault = tmp("vr-scope-");
  fs.mkdirSync(path.join(vault, "kitchen"));
  fs.writeFileSync(path.join(vault, "kitchen/Bread.md"), "# Bread\n\nFlour and water.\n");
  fs.writeFileSync(path.join(vault, "Welcome.md"), "# Welcome\n");
  fs.writeFileSync(path.join(vault, ".vault-ragignore"), "drafts/\nprivate.md\n");
  if (withHidden) {
    const outside = tmp("vr-scope-out-");
    fs.writeFileSync(path.join(outside, "secret.md"), "# Secret\n");
    for (const dir of [".trash", "drafts", ".git"]) fs.mkdirSync(path.join(vault, dir));
    fs.writeFileSync(path.join(vault, ".trash/Old.md"), "# Old\n");
    fs.writeFileSync(path.join(vault, "drafts/Secret.md"), "# Secret\n");
    fs.writeFileSync(path.join(vault, "private.md"), "# Private\n");
    fs.writeFileSync(path.join(vault, ".git/config"), "[core]\n");
    fs.writeFileSync(path.join(vault, "notes.txt"), "text\n");
    fs.writeFileSync(path.join(vault, ".env"), "TOKEN=x\n");
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(vault, "leak.md"));
    fs.symlinkSync(outside, path.join(vault, "out"));
    execFileSync("mkfifo", [path.join(vault, "pipe.md")]);
  }
  return vault;
};

const NAMES = [
  ".trash/Old.md",
  ".trash/Old",
  "drafts/Secret.md",
  "drafts/Secret",
  "drafts",
  "private.md",
  "private",
  "leak.md",
  "leak",
  "out/secret.md",
  "out",
  ".git/config",
  "notes.txt",
  ".env",
  "pipe.md",
];

let held: { vault: string; v: VaultHandle };
let bare: { vault: string; v: VaultHandle };
beforeAll(async () => {
  for (const [key, withHidden] of [
    ["held", true],
    ["bare", false],
  ] as const) {
    const vault = twin(withHidden);
    const v = await openVault(vault);
    if (key === "held") held = { vault, v };
    else bare = { vault, v };
  }
});
afterAll(async () => {
  await held?.v.close();
  await bare?.v.close();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a note out of the served scope", () => {
  it("is refused by the library's note() as a note that does not exist", async () => {
    const refusal = async (v: VaultHandle, name: string) =>
      v.note(name).then(
        () => "served",
        (e: Error) => e.message,
      );
    for (const name of NAMES) {
      const answer = await refusal(held.v, name);
      expect(answer, name).toBe(await refusal(bare.v, name));
      expect(answer, name).toMatch(/^vault-rag: no note "/);
    }
    // a served note is served the same in both
    expect((await held.v.note("bread")).text).toBe((await bare.v.note("bread")).text);
    expect(() => readNoteText(held.vault, "leak.md")).toThrow(/^vault-rag: no note "leak.md" in the vault — /);
  });

  it("gets the same status and body from GET /api/note as a path that does not exist", async () => {
    const apps = [await inProcessApp(held.v), await inProcessApp(bare.v)];
    for (const name of NAMES) {
      const [a, b] = await Promise.all(
        apps.map(async ({ get }) => {
          const r = await get(`/api/note?path=${encodeURIComponent(name)}`);
          return { status: r.status, body: await r.json() };
        }),
      );
      expect(a, name).toEqual(b);
      expect(a.status, name).toBe(404);
    }
  });

  it("gets the same get_note result over MCP as a path that does not exist", async () => {
    const results: string[][] = [];
    for (const vault of [held.vault, bare.vault]) {
      const { server, vault: served } = await createMcpServer(vault);
      const [x, y] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "scope", version: "1.0.0" });
      await Promise.all([server.connect(x), client.connect(y)]);
      try {
        const answers: string[] = [];
        for (const name of NAMES) {
          const r = (await client.callTool({ name: "get_note", arguments: { path: name } })) as {
            isError?: boolean;
            content: { text: string }[];
          };
          answers.push(`${r.isError}: ${r.content.map((c) => c.text).join("\n")}`);
        }
        results.push(answers);
      } finally {
        await client.close();
        await served.close();
      }
    }
    expect(results[0]).toEqual(results[1]);
    for (const answer of results[0]) expect(answer).toMatch(/^true: vault-rag: no note "/);
  });
});

describe("a folder out of the indexed scope", () => {
  it("gets the same no-result hint over MCP as a folder that does not exist; the library on this machine says why", async () => {
    const hintsOver = async (vault: string) => {
      const { server, vault: served } = await createMcpServer(vault);
      const [x, y] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "scope", version: "1.0.0" });
      await Promise.all([server.connect(x), client.connect(y)]);
      try {
        await served.index();
        const r = (await client.callTool({
          name: "search",
          arguments: { query: "secret", folder: "drafts", mode: "keyword" },
        })) as { content: { text: string }[] };
        return JSON.parse(r.content[0].text) as { hits: unknown[]; hints: string[] };
      } finally {
        await client.close();
        await served.close();
      }
    };
    const [a, b] = [await hintsOver(held.vault), await hintsOver(bare.vault)];
    expect(a.hits).toEqual([]);
    expect(a.hints).toEqual(b.hints);
    expect(a.hints.join("\n")).not.toMatch(/vault-ragignore/);
    // the library, on the vault owner's machine, names the rule that leaves the folder out
    const local = await held.v.search("secret", { folder: "drafts", mode: "keyword" });
    expect(local.hints?.join("\n")).toMatch(/vault-ragignore/);
  }, 120_000);
});
