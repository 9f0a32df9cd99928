import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy, addGeneratedNotes } from "./helpers.js";

const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

function addNotes(vault: string, n: number): void {
  addGeneratedNotes(vault, n, 100);
}

const status = (vault: string) =>
  JSON.parse(spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" }).stdout);

/**
 * Runs `index` with `args`, waits for a progress line that counts notes read (off a terminal the
 * first comes after 1 s), sends SIGINT, and returns the exit code and stderr.
 */
async function interruptWhileReading(args: string[]): Promise<{ code: number | null; stderr: string; ms: number }> {
  const p = spawn(process.execPath, [BIN, "index", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  running.push(p);
  let stderr = "";
  const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
  const reading = new Promise<void>((resolve) =>
    p.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      if (/^indexing: reading notes [1-9][\d,]*\/[\d,]+ · /m.test(stderr)) resolve();
    }),
  );
  const first = await Promise.race([reading.then(() => "reading"), exited.then(() => "exited")]);
  expect(first, `the keyword phase showed no "reading notes" line before the run ended:\n${stderr}`).toBe("reading");
  const sent = Date.now();
  p.kill("SIGINT");
  const code = await exited;
  return { code, stderr, ms: Date.now() - sent };
}

describe("Ctrl-C in the keyword phase", () => {
  it("shows notes read as they are read, stops, and keeps the notes it says it saved", async () => {
    const { vault } = exampleVaultCopy("vr-kwstop-");
    // at idle speed (about 9,000 notes a second) the phase outlasts the first progress line by a second
    addNotes(vault, 20_000);
    const { code, stderr, ms } = await interruptWhileReading([vault]);
    expect(code, `${stderr}\n(exited ${ms} ms after SIGINT)`).toBe(130);
    // a machine fast enough to end the phase before the signal lands stops in the dense phase,
    // with every note saved: that message, too, must be what the index holds
    const m =
      /stopped — (?:([\d,]+) of [\d,]+ notes saved \(searchable by keyword\)|nothing saved yet|(every note is searchable by keyword))/.exec(
        stderr,
      );
    expect(m, stderr).not.toBeNull();
    // what it said was saved is what the index holds, and no lock is left behind
    const total = Number(/reading notes [\d,]+\/([\d,]+)/.exec(stderr)![1].replace(/,/g, ""));
    const saved = m![3] ? total : m![1] ? Number(m![1].replace(/,/g, "")) : 0;
    // (the files read: notes and attachments, which status counts apart)
    if (saved) expect(status(vault).notes + status(vault).attachments, stderr).toBe(saved);
    else expect(fs.existsSync(path.join(vault, ".vault-rag", "index.db")) ? status(vault).notes : 0).toBe(0);
    expect(fs.existsSync(path.join(vault, ".vault-rag", "index.db.lock"))).toBe(false);
  }, 240_000);

  it("during `index --full` abandons the rebuild and leaves the old index as it was", async () => {
    const { vault } = exampleVaultCopy("vr-kwstop-full-");
    const first = spawnSync(process.execPath, [BIN, "index", vault], { env, encoding: "utf8" });
    expect(first.status, first.stderr).toBe(0);
    const before = status(vault);
    addNotes(vault, 8000);
    const { code, stderr, ms } = await interruptWhileReading([vault, "--full"]);
    expect(code, `${stderr}\n(exited ${ms} ms after SIGINT)`).toBe(130);
    expect(stderr).toMatch(/stopped — the rebuild was abandoned and the index is as it was/);
    const after = status(vault);
    expect([after.notes, after.chunks, after.phases.dense.passages]).toEqual([
      before.notes,
      before.chunks,
      before.phases.dense.passages,
    ]);
    expect(fs.readdirSync(path.join(vault, ".vault-rag")).filter((f) => f.includes("rebuild"))).toEqual([]);
    // the old index answers searches
    const s = spawnSync(process.execPath, [BIN, "search", "sourdough starter", "--vault", vault, "--json"], {
      env,
      encoding: "utf8",
    });
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).length).toBeGreaterThan(0);
  }, 240_000);
});
