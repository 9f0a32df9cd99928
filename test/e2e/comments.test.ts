import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { explain, spawnChild, stopChildren } from "../support/children.js";
import { startLlmStub, type LlmStub } from "../support/llm-stub.js";
import { BIN } from "./helpers.js";

// Obsidian's comments (`%%…%%`) through the CLI: a vault whose notes hide words in comments, inline
// and as blocks; no search, snippet or answer's context may hold them
let root = "";
let vault = "";
let stub: LlmStub;

const SECRETS = ["quokkabudget", "zorblatt", "Acme Secret", "%%"];

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULT_RAG_VAULT: vault, OLLAMA_HOST: stub?.base ?? "" },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A search that found nothing: exit 1, an empty list, and why on stderr. */
function expectNoHits(r: ReturnType<typeof run>): void {
  expect(r.code, explain("search", r)).toBe(1);
  expect(JSON.parse(r.stdout)).toEqual([]);
  expect(r.stderr).toContain("no results");
}

/** Like run(), but async: the LLM stub lives in this process, so the CLI must not block it. */
function runAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnChild(process.execPath, [BIN, ...args], {
      env: { ...process.env, VAULT_RAG_VAULT: vault, OLLAMA_HOST: stub.base },
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
    p.stdin!.end();
  });
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-comments-"));
  vault = path.join(root, "vault");
  fs.mkdirSync(path.join(vault, "sea"), { recursive: true });
  fs.writeFileSync(
    path.join(vault, "sea", "Lanternfish.md"),
    [
      "# Lanternfish",
      "",
      "The lanternfish glows in the deep sea %%quokkabudget is the grant code%% and eats plankton at night.",
      "",
      "%%",
      "Draft: ask zorblatt at [[Acme Secret]] about the sonar survey.",
      "",
      "Still inside the block comment.",
      "%%",
      "",
      "## Counting",
      "",
      "Count them with `grep -c '%%' log`, as the survey team does every spring.",
      "",
    ].join("\n"),
  );
  fs.writeFileSync(
    path.join(vault, "sea", "Plankton.md"),
    "# Plankton\n\nPlankton drifts with the currents and feeds the lanternfish and the whales.\n",
  );
  fs.writeFileSync(path.join(vault, "Welcome.md"), "# Welcome\n\nNotes about the sea and its creatures.\n");
  stub = await startLlmStub();
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, explain("index", r)).toBe(0);
});
afterAll(async () => {
  await stub?.close();
  fs.rmSync(root, { recursive: true, force: true });
});
afterEach(stopChildren);

describe("Obsidian comments through the CLI", () => {
  it("finds no note by a word that only a comment holds, nor a link that only a comment makes", () => {
    for (const word of ["quokkabudget", "zorblatt"]) {
      expectNoHits(run(["search", "--json", "--mode", "keyword", "--no-spell", "--no-expand", word]));
      expectNoHits(run(["search", "--json", "--where-document", JSON.stringify({ $contains: word }), "sea"]));
    }
    expectNoHits(run(["search", "--json", "--where", JSON.stringify({ links: { $contains: "Acme Secret" } }), "sea"]));
  });

  it("shows a hit's snippet and text without the comments, and `%%` in code as written", () => {
    const plain = run(["search", "lanternfish glows"]);
    expect(plain.code, explain("search", plain)).toBe(0);
    expect(plain.stdout).toContain("sea/Lanternfish.md");
    expect(plain.stdout).toMatch(/deep sea and eats plankton/);
    for (const s of SECRETS) expect(plain.stdout).not.toContain(s);
    const json = run(["search", "--json", "-k", "20", "lanternfish"]);
    const hits = JSON.parse(json.stdout) as { path: string; text: string }[];
    const texts = hits.filter((h) => h.path === "sea/Lanternfish.md").map((h) => h.text);
    expect(texts.join("\n")).toContain("The lanternfish glows in the deep sea and eats plankton at night.");
    expect(texts.join("\n")).toContain("`grep -c '%%' log`");
    for (const s of SECRETS.slice(0, 3)) expect(texts.join("\n")).not.toContain(s);
  });

  it("hands `ask` a context without the comments", async () => {
    stub.requests.length = 0;
    const r = await runAsync(["ask", "what does the lanternfish eat and who surveys it"]);
    expect(r.code, explain("ask", r)).toBe(0);
    const context = stub.requests.map((q) => JSON.stringify(q.body)).join("\n");
    expect(context).toContain("The lanternfish glows in the deep sea and eats plankton at night.");
    for (const s of SECRETS.slice(0, 3)) expect(context).not.toContain(s);
  });
});
