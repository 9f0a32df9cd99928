import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { openVault } from "../../src/library.js";
import { inProcessApp } from "../serve/helpers.js";
import { BIN } from "./helpers.js";

/**
 * A subtree filter on every face: `--under` (CLI), `under` (library, MCP, `/api/search?under=`), on
 * a vault whose folder `03-notes/01_permanent-notes` holds notes only in its subfolders, and the
 * hint a `--folder` of that folder gets.
 */
let vault = "";
const QUERY = "dichotomy of control";
const SUBTREE = "03-notes/01_permanent-notes";
const INSIDE = [`${SUBTREE}/ideas/Control.md`, `${SUBTREE}/people/deep/Epictetus.md`];

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-under-")), "vault");
  const notes: Record<string, string> = {
    [INSIDE[0]]: "# Control\n\nThe dichotomy of control separates what is up to us from what is not.\n",
    [INSIDE[1]]: "# Epictetus\n\nEpictetus taught the dichotomy of control to his students.\n",
    "03-notes/01_permanent-notes-old/Old.md": "# Old\n\nAn old draft on the dichotomy of control.\n",
    "other/Elsewhere.md": "# Elsewhere\n\nThe dichotomy of control, in a note outside the subtree.\n",
  };
  for (const [p, text] of Object.entries(notes)) {
    fs.mkdirSync(path.dirname(path.join(vault, p)), { recursive: true });
    fs.writeFileSync(path.join(vault, p), text);
  }
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
});

describe("a subtree filter on every face", () => {
  it("--under keeps the notes in the folder and every folder below it, not a sibling that shares its name's start", () => {
    const r = run(["search", "--vault", vault, "--json", "--under", `${SUBTREE}/`, QUERY]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path).sort()).toEqual(INSIDE);
  });

  it("--folder of a folder that holds only subfolders finds nothing and hints --under", () => {
    const r = run(["search", "--vault", vault, "--folder", SUBTREE, QUERY]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`— for all of them give --under "${SUBTREE}"`);
  });

  it("--under a folder the index does not hold says so", () => {
    const r = run(["search", "--vault", vault, "--under", "03-notes/nope", QUERY]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('vault-rag: no folder "03-notes/nope" in the index');
  });

  it("the library, MCP and /api/search take under", async () => {
    const v = await openVault(vault);
    try {
      const lib = await v.search(QUERY, { under: SUBTREE });
      expect(lib.hits.map((h) => h.path).sort()).toEqual(INSIDE);

      const { get } = await inProcessApp(v);
      const res = await get(`/api/search?q=${encodeURIComponent(QUERY)}&under=${encodeURIComponent(SUBTREE)}`);
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { hits: { path: string }[] };
      expect(body.hits.map((h) => h.path).sort()).toEqual(INSIDE);
    } finally {
      await v.close();
    }

    const { createMcpServer } = await import("../../src/mcp/server.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const { server, vault: mv } = await createMcpServer(vault);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "under", version: "1.0.0" });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const out = await client.callTool({ name: "search", arguments: { query: QUERY, under: SUBTREE } });
      expect(out.isError, JSON.stringify(out)).toBeFalsy();
      const text = (out.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
      for (const p of INSIDE) expect(text).toContain(p);
      expect(text).not.toContain("Elsewhere.md");
      expect(text).not.toContain("Old.md");
    } finally {
      await client.close();
      await server.close();
      await mv.close();
    }
  });
});
