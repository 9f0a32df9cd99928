import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy } from "./helpers.js";

const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NOTE_WINDOWS: "" };
const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

/** Writes a note of about `mb` megabytes of distinct paragraphs under headings, with `tail` in its last paragraph. */
function hugeNote(vault: string, mb: number, tail: string): void {
  const words = "motor battery sensor garden bread river mountain cable solder yeast compost seed tomato pump".split(
    " ",
  );
  const parts = ["# Huge\n\n"];
  let size = 0;
  for (let k = 0; size < mb * 1e6; k++) {
    let p = k % 100 === 0 ? `## Part ${k}\n\n` : "";
    for (let w = 0; w < 80; w++) p += words[(k * 7 + w * w + Math.floor(k / 13)) % words.length] + ` w${k}x${w} `;
    p += ".\n\n";
    parts.push(p);
    size += p.length;
  }
  parts.push(`The last paragraph holds the word ${tail}.\n`);
  fs.writeFileSync(path.join(vault, "Huge.md"), parts.join(""));
}

const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { env: { ...env, ...extra }, encoding: "utf8" });

describe("a 20 MB note in the vault", () => {
  it("does not stall the dense phase: the progress line counts windows and vectors are stored while it runs", async () => {
    const { vault } = exampleVaultCopy("vr-huge-");
    hugeNote(vault, 20, "zanzibarite");
    const p = spawn(process.execPath, [BIN, "index", vault], { env, stdio: ["ignore", "pipe", "pipe"] });
    running.push(p);
    let stderr = "";
    const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
    // the progress line (off a terminal after 1 s, then every 5 s) shows passages stored, more than before
    const moved = new Promise<void>((resolve) =>
      p.stderr.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
        const m = /dense ([\d,]+)\/[\d,]+ passages · /.exec(stderr.split("\n").at(-2) ?? "");
        if (m && Number(m[1].replace(/,/g, "")) > 0) resolve();
      }),
    );
    const first = await Promise.race([moved.then(() => "moved"), exited.then(() => "exited")]);
    expect(first, `the run ended before its progress showed stored vectors:\n${stderr}`).toBe("moved");
    // the stored vectors are in the index while the run goes on
    const st = JSON.parse(cli(["status", vault, "--json"]).stdout);
    expect(st.phases.dense.passages, stderr).toBeGreaterThan(0);
    p.kill("SIGINT");
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/vectors stored for [1-9][\d,]* of [\d,]+ passages/);
  }, 240_000);

  it("is embedded up to the window budget with a note_truncated warning, and stays keyword-searchable to its end", () => {
    const { vault } = exampleVaultCopy("vr-huge-budget-");
    hugeNote(vault, 20, "zanzibarite");
    const run = cli(["index", vault], { VAULT_RAG_NOTE_WINDOWS: "40" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/warning: "Huge\.md" has more windows for the model than one note's budget \(40\)/);
    // every passage is done: none left pending for the next run
    const st = JSON.parse(cli(["status", vault, "--json"]).stdout);
    expect(st.phases.dense.state, run.stderr).toBe("complete");
    expect(st.warnings.map((w: { code: string; path: string }) => `${w.code} ${w.path}`)).toContain(
      "note_truncated Huge.md",
    );
    const verbose = cli(["status", vault, "--verbose"]);
    expect(verbose.stdout).toMatch(/\nwarning: "Huge\.md" has more windows for the model than one note's budget/);
    const check = cli(["check", vault]);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/\nwarning: "Huge\.md" has more windows for the model than one note's budget/);
    // the word of its last paragraph, far past the budget, is found by keyword and by a hybrid search
    for (const mode of ["keyword", "hybrid"]) {
      const s = cli(["search", "zanzibarite", "--vault", vault, "--mode", mode, "--json"]);
      expect(s.status, s.stderr).toBe(0);
      expect(JSON.parse(s.stdout).map((h: { path: string }) => h.path)).toContain("Huge.md");
    }
    // nothing is left to embed: a second run embeds nothing and keeps the warning
    const again = cli(["index", vault, "--json"], { VAULT_RAG_NOTE_WINDOWS: "40" });
    expect(JSON.parse(again.stdout).embedded, again.stderr).toBe(0);
    expect(cli(["status", vault, "--verbose"]).stdout).toMatch(/note_truncated|has more windows/);
  }, 240_000);
});
