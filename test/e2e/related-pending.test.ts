import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openVault } from "../../src/library.js";
import { explain, stopChildren } from "../support/children.js";
import { cli, cliAsync, startEmbedStub, type EmbedStub } from "../reliability/helpers.js";
import { inProcessApp } from "../serve/helpers.js";

/**
 * `related` while an index run's dense phase is held open (the local Ollama-protocol stand-in holds
 * its answers to the run's documents): the note has text but no vectors yet, so the related notes
 * are ranked by the words, tags and links they share, with a notice that says so, on the CLI, MCP
 * and `GET /api/related`.
 */
let stub: EmbedStub;
let root = "";
let env: Record<string, string> = {};
const NOTICE = "this note has no vectors yet";

beforeAll(async () => {
  stub = await startEmbedStub(1);
  env = { OLLAMA_HOST: stub.host, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-related-pending-"));
  const vault = path.join(root, "vault");
  fs.mkdirSync(vault, { recursive: true });
  fs.writeFileSync(
    path.join(vault, "Stoicism.md"),
    "---\ntags: [philosophy]\n---\n# Stoicism\n\nThe dichotomy of control: Epictetus taught that virtue and judgement are up to us.\n",
  );
  fs.writeFileSync(
    path.join(vault, "Epictetus.md"),
    "---\ntags: [philosophy]\n---\n# Epictetus\n\nA freed slave who taught the dichotomy of control and virtue.\n",
  );
  fs.writeFileSync(path.join(vault, "Servers.md"), "# Servers\n\nThe home server runs backups at night.\n");
});
afterEach(stopChildren);
afterAll(async () => {
  stub.release();
  await stub.close();
});

describe("related before the note has vectors", () => {
  it("ranks by words, tags and links, and says so, on the CLI, MCP and /api/related", async () => {
    const vault = path.join(root, "vault");
    stub.hold((inputs) => !inputs.includes("dimension probe"));
    const start = stub.requests();
    const run = cliAsync(["index", vault, "--model", "ollama:stub-embed", "--json"], env);
    // the probe, then the first batch of documents: the keyword phase is committed
    await Promise.race([stub.reached(start + 2), run.done]);
    expect(run.exited(), "the index run ended before its dense phase").toBeUndefined();

    const r = await cli(["related", "Stoicism", "--vault", vault, "--json"], env);
    expect(r.code, explain("related during the dense phase", r)).toBe(0);
    expect((JSON.parse(r.stdout) as { path: string }[])[0].path).toBe("Epictetus.md");
    expect(r.stderr).toContain(`note: ${NOTICE}`);

    const saved = process.env.OLLAMA_HOST;
    process.env.OLLAMA_HOST = stub.host;
    try {
      const v = await openVault(vault);
      try {
        const { get } = await inProcessApp(v);
        const res = await get("/api/related?path=Stoicism");
        const body = (await res.json()) as { related: { path: string }[]; basis?: string; notice?: string };
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body.related[0].path).toBe("Epictetus.md");
        expect(body.basis).toBe("words");
        expect(body.notice).toContain(NOTICE);
      } finally {
        await v.close();
      }
      const { createMcpServer } = await import("../../src/mcp/server.js");
      const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
      const { server, vault: mv } = await createMcpServer(vault);
      const [a, b] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "related", version: "1.0.0" });
      await Promise.all([server.connect(a), client.connect(b)]);
      try {
        const out = await client.callTool({ name: "related", arguments: { path: "Stoicism" } });
        expect(out.isError, JSON.stringify(out)).toBeFalsy();
        const text = (out.content as { text: string }[]).map((c) => c.text).join("\n");
        expect(text).toContain("Epictetus.md");
        expect(text).toContain(NOTICE);
      } finally {
        await client.close();
        await server.close();
        await mv.close();
      }
    } finally {
      if (saved === undefined) delete process.env.OLLAMA_HOST;
      else process.env.OLLAMA_HOST = saved;
    }

    stub.release();
    const end = await run.done;
    expect(end.code, explain("the index run", end)).toBe(0);
    const after = await cli(["related", "Stoicism", "--vault", vault], env);
    expect(after.code, explain("related after the run", after)).toBe(0);
    expect(after.stderr).not.toContain(NOTICE);
  });
});
