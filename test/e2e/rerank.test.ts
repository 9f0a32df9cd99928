import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, cli } from "../reliability/helpers.js";
import { startServe } from "../serve/helpers.js";
import { stopChildren } from "../support/children.js";
import { writeTinyCrossEncoder } from "../embed/tiny-bert.js";
import { tinyRerankOrder, writeRerankVault } from "../rerank/vault.js";

/**
 * `vault-rag search --rerank` end to end: the built CLI on a five-note vault indexed with the
 * bundled model, reranking with the tiny cross-encoder (the real `@huggingface/transformers`, from
 * `--model-dir`) or a loopback `/v1/rerank` stand-in. Nothing reaches the network.
 */
const Q = "robot motors";
let tmp = "";
let vault = "";
let modelDir = "";
const env = { VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_RERANK: "", VAULT_RAG_ALLOW_REMOTE: "" };
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-rerank-cli-"));
  vault = path.join(tmp, "vault");
  modelDir = path.join(tmp, "models");
  writeRerankVault(vault);
  writeTinyCrossEncoder(modelDir, "vault-rag/tiny-rerank");
  const r = await cli(["index", vault, "--quiet"], env);
  if (r.code !== 0) throw new Error(`vault-rag index failed: ${r.stderr}`);
}, 120_000);
afterEach(stopChildren);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const search = (args: string[], more: Record<string, string> = {}) =>
  cli(["search", Q, "--vault", vault, "-k", "10", ...args], { ...env, ...more });

describe("vault-rag search --rerank", () => {
  it("reorders the hits as the cross-encoder scores them, and --verbose shows each hit's place before and after", async () => {
    const plain = await search(["--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    const fused = JSON.parse(plain.stdout) as { path: string; label: string; text: string }[];
    const reranked = await search([
      "--json",
      "--rerank",
      "transformers:vault-rag/tiny-rerank",
      "--model-dir",
      modelDir,
    ]);
    expect(reranked.code, reranked.stderr).toBe(0);
    const want = tinyRerankOrder(Q, fused);
    expect((JSON.parse(reranked.stdout) as { path: string }[]).map((h) => h.path)).toEqual(want);
    expect(want).not.toEqual(fused.map((h) => h.path));

    const verbose = await search([
      "--verbose",
      "--rerank",
      "transformers:vault-rag/tiny-rerank",
      "--model-dir",
      modelDir,
    ]);
    expect(verbose.code, verbose.stderr).toBe(0);
    for (const [after, p] of want.entries()) {
      const before = fused.findIndex((h) => h.path === p) + 1;
      expect(verbose.stdout).toMatch(
        new RegExp(`^${p.replace(".", "\\.")}:1 .*; reranked #${before} → #${after + 1} \\(`, "m"),
      );
    }
    expect(verbose.stderr).toContain("rerank: transformers:vault-rag/tiny-rerank reordered the top 5 candidates");
    expect(verbose.stderr).toMatch(/^embed \d+ ms, retrieve \d+ ms, rerank \d+ ms$/m);
  });

  it("reranks with $VAULT_RAG_RERANK unless --no-rerank, and --rerank alone uses it", async () => {
    const more = { VAULT_RAG_RERANK: "transformers:vault-rag/tiny-rerank" };
    const on = await search(["--verbose", "--model-dir", modelDir], more);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toContain("; reranked #");
    const alone = await search(["--verbose", "--rerank", "--model-dir", modelDir], more);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toContain("; reranked #");
    const off = await search(["--verbose", "--no-rerank", "--model-dir", modelDir], more);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).not.toContain("reranked");
    expect(off.stderr).not.toMatch(/^rerank: |, rerank \d+ ms$/m);
  });

  it("reranks with the vault's rerank setting after the option and $VAULT_RAG_RERANK; a server it names needs consent", async () => {
    const settings = path.join(vault, ".vault-rag.json");
    try {
      fs.writeFileSync(settings, JSON.stringify({ rerank: "transformers:vault-rag/tiny-rerank" }));
      const on = await search(["--verbose", "--model-dir", modelDir]);
      expect(on.code, on.stderr).toBe(0);
      expect(on.stderr).toContain("rerank: transformers:vault-rag/tiny-rerank reordered the top 5 candidates");
      const off = await search(["--verbose", "--no-rerank", "--model-dir", modelDir]);
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).not.toContain("reranked");
      // a server named by a file in the vault is refused before anything is sent
      let asked = 0;
      const server = http.createServer((_req, res) => {
        asked++;
        res.writeHead(500).end();
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
        fs.writeFileSync(settings, JSON.stringify({ rerank: url }));
        const refused = await search([]);
        expect(refused.code).toBe(2);
        expect(refused.stderr.trim().split("\n")).toEqual([
          `vault-rag: the settings file ${settings} names the reranker server ${url}, which would be sent the question and passages, and a file in the vault is no consent — nothing was sent; name it in VAULT_RAG_ALLOW_REMOTE or VAULT_RAG_RERANK, or pass --no-rerank`,
        ]);
        expect(asked).toBe(0);
        expect((await search(["--no-rerank"])).code).toBe(0);
        // the option and $VAULT_RAG_RERANK come before the file
        const tiny = "transformers:vault-rag/tiny-rerank";
        const byEnv = await search(["--verbose", "--model-dir", modelDir], { VAULT_RAG_RERANK: tiny });
        const byOption = await search(["--verbose", "--rerank", tiny, "--model-dir", modelDir]);
        for (const r of [byEnv, byOption]) {
          expect(r.code, r.stderr).toBe(0);
          expect(r.stderr).toContain(`rerank: ${tiny} reordered the top 5 candidates`);
        }
        expect(asked).toBe(0);
      } finally {
        server.close();
      }
    } finally {
      fs.rmSync(settings, { force: true });
    }
  });

  it("reranks with a /v1/rerank server, which is sent the question and the candidates", async () => {
    const asked: { query: string; documents: string[] }[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const b = JSON.parse(body) as { query: string; documents: string[] };
        asked.push(b);
        // the stand-in likes short passages best
        const results = b.documents.map((d, index) => ({ index, relevance_score: 1 / d.length }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const r = await search(["--json", "--rerank", url]);
      expect(r.code, r.stderr).toBe(0);
      const hits = JSON.parse(r.stdout) as { path: string; label: string; text: string }[];
      const len = (h: { label: string; text: string }) => `${h.label}\n${h.text}`.length;
      expect(hits.map(len)).toEqual([...hits.map(len)].sort((a, b) => a - b));
      expect(asked).toHaveLength(1);
      expect(asked[0].query).toBe(Q);
      expect(asked[0].documents).toHaveLength(5);
    } finally {
      server.close();
    }
  });

  it("says in one line, and exits non-zero, when the server is down or the model is missing", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await search(["--rerank", `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(2);
    expect(down.stdout).toBe("");
    expect(down.stderr).toBe(
      `vault-rag: the reranker server at 127.0.0.1:${port} is not reachable (http://127.0.0.1:${port}/v1/rerank) — start it (e.g. \`llama-server --reranking -m <model>.gguf\`), or choose another reranker\n`,
    );
    const missing = await search(["--rerank", "transformers:vault-rag/absent", "--model-dir", modelDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `vault-rag: reranker model "vault-rag/absent" is not in ${modelDir} (a search never downloads one) — copy its folder (config.json, tokenizer.json, onnx/model.onnx) to <dir>/vault-rag/absent and give --model-dir <dir>\n`,
    );
    const unknown = await search(["--rerank", "cohere:rerank-v3"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")).toEqual([
      'vault-rag: unknown reranker "cohere:rerank-v3" — use transformers:<owner>/<name> (a cross-encoder in --model-dir or the cache) or the URL of a /v1/rerank server, e.g. http://127.0.0.1:8012',
    ]);
  });

  it("GET /api/search takes rerank as the CLI takes --rerank, and refuses a server this machine does not name", async () => {
    const served = await startServe(["--vault", vault], { ...env, TRANSFORMERS_CACHE: modelDir });
    try {
      const get = async (query: string) => {
        const r = await fetch(`${served.origin}/api/search?q=${encodeURIComponent(Q)}&top_k=10&${query}`);
        return { status: r.status, json: (await r.json()) as any };
      };
      const plain = await get("rerank=false");
      expect(plain.status, JSON.stringify(plain.json)).toBe(200);
      const reranked = await get(`rerank=${encodeURIComponent("transformers:vault-rag/tiny-rerank")}`);
      expect(reranked.status, JSON.stringify(reranked.json)).toBe(200);
      expect(reranked.json.hits.map((h: { path: string }) => h.path)).toEqual(tinyRerankOrder(Q, plain.json.hits));
      const server = await get(`rerank=${encodeURIComponent("http://127.0.0.1:9")}`);
      expect(server.status).toBe(403);
      expect(server.json).toMatchObject({
        code: "remote_model",
        error:
          "vault-rag: the reranker http://127.0.0.1:9 would be sent the question and passages, and nothing on this machine names it — nothing was sent; name it in VAULT_RAG_ALLOW_REMOTE or VAULT_RAG_RERANK where this server runs",
      });
    } finally {
      await served.stop();
    }
  });

  it("the MCP search tool takes rerank as the CLI takes --rerank", async () => {
    const client = new Client({ name: "rerank-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--vault", vault],
      env: { ...(process.env as Record<string, string>), ...env, TRANSFORMERS_CACHE: modelDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => (stderr += d));
    await client.connect(transport);
    try {
      const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: "search", arguments: { query: Q, top_k: 10, ...args } })) as any;
      const plain = JSON.parse((await call({})).content[0].text);
      const reranked = await call({ rerank: "transformers:vault-rag/tiny-rerank" });
      expect(reranked.isError, `${reranked.content[0].text}\n${stderr}`).toBeFalsy();
      expect(JSON.parse(reranked.content[0].text).map((h: { path: string }) => h.path)).toEqual(
        tinyRerankOrder(Q, plain),
      );
      const bad = await call({ rerank: 3 });
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toBe("vault-rag: rerank must be true, false or a name, got 3");
    } finally {
      await client.close();
    }
  });
});
