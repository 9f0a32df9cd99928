import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openVault } from "../../src/library.js";
import { cli, cliAsync } from "../reliability/helpers.js";
import { exampleVaultCopy } from "./helpers.js";

const SPEC = "openai:text-embedding-3-small";

/** A loopback stand-in for an OpenAI-compatible server: counts every request, answers embeddings of 512 numbers. */
async function standIn() {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url}`);
      const input = (JSON.parse(raw || "{}").input ?? []) as string[];
      const data = input.map((_, index) => ({
        index,
        embedding: Array.from({ length: 512 }, (_, i) => (i === index % 512 ? 1 : 0)),
      }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { base, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let vault: string;
let server: Awaited<ReturnType<typeof standIn>>;
let env: Record<string, string>;
const running: ChildProcess[] = [];

beforeAll(async () => {
  ({ vault } = exampleVaultCopy("vr-remote-"));
  server = await standIn();
  env = {
    OPENAI_BASE_URL: server.base,
    OPENAI_API_KEY: "sk-user-key",
    VAULT_RAG_ALLOW_REMOTE: "",
    VAULT_RAG_VAULT: "",
    VAULT_RAG_DB: "",
  };
  const built = await cli(["index", vault, "--quiet"], env);
  expect(built.code, built.stderr).toBe(0);
  // the manifest edited as a synced or cloned vault's could be: it names a model behind the network
  const db = new Database(path.join(vault, ".vault-rag", "index.db"));
  const m = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'manifest'").pluck().get() as string);
  m.embedder = { ...m.embedder, provider: "openai", model: "text-embedding-3-small" };
  db.prepare("UPDATE meta SET value = ? WHERE key = 'manifest'").run(JSON.stringify(m));
  db.close();
  fs.writeFileSync(path.join(vault, "new note.md"), "# New\n\nA note written after the index, with private words.\n");
}, 240_000);
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});
afterAll(async () => server?.close());

const refusal = new RegExp(
  `names the model ${SPEC}, which would send your notes and questions to .*nothing was sent — .*set VAULT_RAG_ALLOW_REMOTE=${SPEC} or give --model ${SPEC}, else rebuild the index here with \`vault-rag index \\S+ --full --model use-lite\``,
);
/** The same refusal in the library's words: its fix names the option to open the vault with. */
const libraryRefusal = new RegExp(
  `names the model ${SPEC}, .*nothing was sent — .*set VAULT_RAG_ALLOW_REMOTE=${SPEC} or open the vault with \\{ model: "${SPEC}" \\}`,
);

describe("an index whose manifest names a network model", () => {
  it("index and search refuse with the fix, and the stand-in server receives no request", async () => {
    const index = await cli(["index", vault], env);
    expect(index.code, index.stderr).toBe(2);
    expect(index.stderr).toMatch(refusal);
    expect(index.stderr.trim().split("\n")).toHaveLength(1);
    const search = await cli(["search", "--vault", vault, "private words"], env);
    expect(search.code, search.stderr).toBe(2);
    expect(search.stderr).toMatch(refusal);
    expect(server.seen).toEqual([]);
  }, 120_000);

  it("serve and mcp refuse at their start, and the stand-in server receives no request", async () => {
    const serve = cliAsync(["serve", "--vault", vault, "--port", "0"], env);
    running.push(serve.child);
    // the refusal ends the process; a server that started says so on stdout instead
    let out = "";
    const started = new Promise<void>((r) =>
      serve.child.stdout!.on("data", (d) => (out += d) && out.includes("Ctrl-C to stop") && r()),
    );
    const r = await Promise.race([serve.done, started.then(() => undefined)]);
    expect(r, `serve started instead of refusing:\n${out}`).toBeDefined();
    expect(r!.code, r!.stderr).toBe(2);
    expect(r!.stderr).toMatch(refusal);
    const mcp = cliAsync(["mcp", "--vault", vault], env);
    running.push(mcp.child);
    mcp.child.stdin!.end();
    const m = await mcp.done;
    expect(m.code, m.stderr).toBe(2);
    expect(m.stderr).toMatch(refusal);
    expect(server.seen).toEqual([]);
  }, 120_000);

  it("the library's openVault refuses with code remote_model, sending nothing", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      await expect(openVault(vault)).rejects.toMatchObject({
        code: "remote_model",
        message: expect.stringMatching(libraryRefusal),
      });
    } finally {
      for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
      Object.assign(process.env, saved);
    }
    expect(server.seen).toEqual([]);
  });

  it("status says where the model runs and that it is not used", async () => {
    const st = await cli(["status", vault], env);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toContain(
      `runs:         openai-compatible at ${server.base} (not used: the index names it, but neither VAULT_RAG_ALLOW_REMOTE nor --model does)`,
    );
    const json = JSON.parse((await cli(["status", vault, "--json"], env)).stdout);
    expect(json).toMatchObject({ modelRuns: `openai-compatible at ${server.base}`, modelRefused: true });
    expect(server.seen).toEqual([]);
  });

  it("is used when VAULT_RAG_ALLOW_REMOTE or --model names it (the stand-in then receives the query)", async () => {
    const allowed = await cli(["search", "--vault", vault, "private words"], {
      ...env,
      VAULT_RAG_ALLOW_REMOTE: `ollama:*, ${SPEC}`,
    });
    expect(allowed.code, allowed.stderr).toBeLessThan(2);
    expect(server.seen).toEqual(["POST /v1/embeddings"]);
    const named = await cli(["search", "--vault", vault, "--model", SPEC, "private words"], env);
    expect(named.code, named.stderr).toBeLessThan(2);
    expect(server.seen).toHaveLength(2);
    const st = await cli(["status", vault], { ...env, VAULT_RAG_ALLOW_REMOTE: SPEC });
    expect(st.stdout).toMatch(new RegExp(`runs: +openai-compatible at ${server.base}\\n`));
  }, 120_000);
});
