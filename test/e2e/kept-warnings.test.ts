import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy } from "./helpers.js";

const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });

describe("warnings of an interrupted first run", () => {
  it("are kept in the index and shown by `status --verbose`, `status --json` and `check`, and a fixed file's go", async () => {
    const { vault } = exampleVaultCopy("vr-kept-warnings-");
    // a binary file named .md, a note linking 10,000 times (examples/vault has one with broken frontmatter)
    fs.writeFileSync(path.join(vault, "scan.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0, 1, 2, 3]));
    const links = Array.from({ length: 10_000 }, (_, k) => `[[Target ${k}]]`).join(" ");
    fs.writeFileSync(path.join(vault, "Links.md"), `# Links\n\n${links}\n`);
    // many short notes: the dense phase outlasts the progress line's first second
    fs.mkdirSync(path.join(vault, "gen"));
    for (let k = 0; k < 300; k++)
      fs.writeFileSync(path.join(vault, "gen", `n${k}.md`), `# N ${k}\n\nmotor battery ${k} sensor garden.\n`);
    const p = spawn(process.execPath, [BIN, "index", vault], { env, stdio: ["ignore", "pipe", "pipe"] });
    running.push(p);
    let stderr = "";
    const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
    const dense = new Promise<void>((resolve) =>
      p.stderr.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
        if (/keyword ready · dense /.test(stderr)) resolve();
      }),
    );
    const first = await Promise.race([dense.then(() => "dense"), exited.then(() => "exited")]);
    expect(first, `the run ended before its dense phase showed progress:\n${stderr}`).toBe("dense");
    p.kill("SIGINT");
    expect(await exited, stderr).toBe(130);
    // the interrupted run printed no warnings; the index kept them
    expect(stderr).not.toContain("warning:");
    const codes = (out: string) =>
      (JSON.parse(out).warnings as { code: string; path: string }[]).map((w) => `${w.code} ${w.path}`).sort();
    expect(codes(cli(["status", vault, "--json"]).stdout)).toEqual([
      "frontmatter_invalid work/Broken note.md",
      "links_truncated Links.md",
      "note_skipped scan.md",
    ]);
    const brief = cli(["status", vault]).stdout;
    expect(brief).toMatch(/\nwarnings: +3 \(/);
    const verbose = cli(["status", vault, "--verbose"]).stdout;
    expect(verbose).toMatch(/\nwarning: skipped "scan\.md"/);
    expect(verbose).toMatch(/\nwarning: invalid frontmatter in "work\/Broken note\.md"/);
    expect(verbose).toMatch(/\nwarning: "Links\.md" links to 10000 notes/);
    const check = cli(["check", vault, "--json"]);
    expect(codes(check.stdout)).toHaveLength(3);
    expect(cli(["check", vault]).stdout).toMatch(/\nwarning: skipped "scan\.md"/);
    // the binary file replaced by a note, the next run drops its warning and keeps the others
    fs.writeFileSync(path.join(vault, "scan.md"), "# Scan\n\nA note now.\n");
    const again = cli(["index", vault]);
    expect(again.status, again.stderr).toBe(0);
    expect(codes(cli(["status", vault, "--json"]).stdout)).toEqual([
      "frontmatter_invalid work/Broken note.md",
      "links_truncated Links.md",
    ]);
  }, 240_000);
});
