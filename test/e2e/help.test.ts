import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });

describe("vault-rag --help and --version", () => {
  it("--version prints the version in package.json", () => {
    const { version } = JSON.parse(fs.readFileSync("package.json", "utf8"));
    for (const flag of ["--version", "-V"]) {
      const r = run([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });

  it("--help fits one screen: every command once, one line each, in four groups", () => {
    const r = run(["--help"]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(26);
    expect(lines.every((l) => l.length <= 100)).toBe(true);
    const headings = lines.filter((l) => /^[A-Z][a-z]+:$/.test(l));
    expect(headings).toEqual(["Everyday:", "Answers:", "Interfaces:", "Maintenance:"]);
    const group = (h: string) => {
      const from = lines.indexOf(h) + 1;
      const to = lines.findIndex((l, i) => i >= from && !l.startsWith("  "));
      return lines.slice(from, to).map((l) => l.trim().split(" ")[0]);
    };
    expect(group("Everyday:")).toEqual(["index", "search", "tags", "folders", "status", "chunks", "related", "props"]);
    expect(group("Answers:")).toEqual(["ask", "chat"]);
    expect(group("Interfaces:")).toEqual(["serve", "mcp", "watch"]);
    expect(group("Maintenance:")).toEqual(["models", "check", "migrate", "eval"]);
    // a command's own help is complete: every flag, with its examples
    const search = run(["search", "--help"]).stdout;
    for (const flag of [
      "--top-k",
      "--where-document",
      "--no-spell",
      "--rerank [model]",
      "--no-rerank",
      "--color",
      "--verbose",
    ])
      expect(search).toContain(flag);
    expect(search).toContain("Examples:");
    expect(run(["help", "ask"]).stdout).toContain("--context-only");
  });

  it("`models` lists the recommended models with measured figures, published scores and switch commands", () => {
    const r = run(["models"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("ollama:nomic-embed-text");
    expect(r.stdout).toContain(
      "ollama pull nomic-embed-text\n             vault-rag index --full --model ollama:nomic-embed-text",
    );
    expect(r.stdout).toContain("published: MTEB retrieval average (15 sets) 51.68 (BAAI/bge-small-en-v1.5 model card)");
    // the figures measured here beside the published ones, each said to be which
    expect(r.stdout).toContain("  measured:  til 0.778 (dense 0.433) · SciFact train 0.701 (dense 0.249)");
    expect(r.stdout).toContain("Published scores are each model's authors' own");
    const json = JSON.parse(run(["models", "--json", "--vault", "/home/me/notes"]).stdout);
    expect(json.models[0].id).toBe("use-lite");
    expect(json.models[1].commands.at(-1)).toBe(
      "vault-rag index /home/me/notes --full --model ollama:nomic-embed-text",
    );
  });
});
