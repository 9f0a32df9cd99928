import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnChild, stopChildren } from "../support/children.js";
import { exampleVaultCopy } from "./helpers.js";

const library = fs.readFileSync("docs/library.md", "utf8");
const quality = fs.readFileSync("docs/quality.md", "utf8");
let server: http.Server;
let host = "";

beforeAll(async () => {
  // a stub Ollama: the README's ask() needs a chat model
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url !== "/api/chat") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write(
        JSON.stringify({ message: { role: "assistant", content: "The DRV8833 overheated [1]." }, done: false }) + "\n",
      );
      res.end(JSON.stringify({ message: { role: "assistant", content: "" }, done: true }) + "\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());
afterEach(stopChildren);

/** The ```ts blocks of docs/library.md. */
function libraryExamples(): string[] {
  return [...library.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
}

function node(file: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnChild(process.execPath, [file], {
      cwd,
      env: { ...process.env, OLLAMA_HOST: host, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the library examples of docs/library.md", () => {
  it("run as written in a project that installed vault-rag by link (as `npm link` does)", async () => {
    const { vault } = exampleVaultCopy("vr-readme-lib-");
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "vr-project-"));
    fs.mkdirSync(path.join(project, "node_modules"));
    fs.symlinkSync(path.resolve("."), path.join(project, "node_modules", "vault-rag"), "dir");
    const examples = libraryExamples();
    expect(examples).toHaveLength(2);
    const [first, second] = examples.map((code, i) => {
      expect(code).toContain('from "vault-rag"');
      const file = path.join(project, `example${i + 1}.mjs`);
      fs.writeFileSync(file, code.replaceAll('"/home/me/notes"', JSON.stringify(vault)));
      return file;
    });
    const a = await node(first, project);
    expect(a.code, a.stderr).toBe(0);
    const lines = a.stdout.split("\n");
    expect(a.stdout).toMatch(/^\[\n? *'electronics\/Pico W\.md:\d+ {2}Pico W/);
    const hit = JSON.parse(lines.find((l) => l.startsWith("{"))!);
    // the hit's keys, and "backlinked" when backlink text matched it
    expect(Object.keys(hit).filter((k) => k !== "backlinked" || hit.backlinked !== true)).toEqual([
      "id",
      "path",
      "title",
      "section",
      "label",
      "text",
      "score",
      "distance",
      "start_line",
      "end_line",
      "tags",
      "folder",
      "top_folder",
      "mtime",
      "date",
      "props",
    ]);
    expect(a.stdout).toContain("The DRV8833 overheated [1]. ");
    expect(a.stdout).toMatch(/notes: 43,\n *attachments: 3,/);
    const b = await node(second, project);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/document: '/);
    expect(b.stdout).toMatch(/title: '/);
  });

  it("the defaults table matches SEARCH_DEFAULTS, EXPANSION_DEFAULTS, SPELLING_DEFAULTS, CHUNK_DEFAULTS and CONTEXT_DEFAULTS", async () => {
    const { SEARCH_DEFAULTS, EXPANSION_DEFAULTS, SPELLING_DEFAULTS, CHUNK_DEFAULTS, CONTEXT_DEFAULTS } = await import(
      path.resolve("dist/advanced.js")
    );
    const table = quality.slice(quality.indexOf("<!-- defaults:start -->"), quality.indexOf("<!-- defaults:end -->"));
    const rows = [...table.matchAll(/^\| (search|expand|spell|chunk|ask) `(\w+)`[^|]*\| ([^|]+?) \|$/gm)].map((m) => [
      `${m[1]}.${m[2]}`,
      m[3],
    ]);
    const expected = [
      ...Object.entries(SEARCH_DEFAULTS).map(([k, v]) => [`search.${k}`, String(v)]),
      ...Object.entries(EXPANSION_DEFAULTS).map(([k, v]) => [`expand.${k}`, String(v)]),
      ...Object.entries(SPELLING_DEFAULTS).map(([k, v]) => [`spell.${k}`, String(v)]),
      ...Object.entries(CHUNK_DEFAULTS).map(([k, v]) => [`chunk.${k}`, String(v)]),
      ...Object.entries(CONTEXT_DEFAULTS).map(([k, v]) => [`ask.${k}`, String(v)]),
    ];
    expect(rows).toEqual(expected);
    expect(quality).not.toMatch(/BM25 weight 0\.(?!65)\d/);
  });
});
