import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy, addGeneratedNotes } from "./helpers.js";

const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

function addNotes(vault: string, n: number, length: number): void {
  addGeneratedNotes(vault, n, length);
}

const num = (s: string) => Number(s.replace(/,/g, ""));

/**
 * Runs `index` off a terminal until its progress line shows more than `after` passages with vectors,
 * then sends SIGINT; returns the dense progress lines and the stop message's figures.
 */
async function stopInDense(vault: string, after: number) {
  const p = spawn(process.execPath, [BIN, "index", vault], { env, stdio: ["ignore", "pipe", "pipe"] });
  running.push(p);
  let stderr = "";
  const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
  const moved = new Promise<void>((resolve) =>
    p.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      const last = [...stderr.matchAll(/dense ([\d,]+)\/[\d,]+ passages · /g)].at(-1);
      if (last && num(last[1]) > after) resolve();
    }),
  );
  const first = await Promise.race([moved.then(() => "moved"), exited.then(() => "exited")]);
  expect(
    first,
    `no progress line showed more than ${after} passages with vectors before the run ended:\n${stderr}`,
  ).toBe("moved");
  p.kill("SIGINT");
  expect(await exited, stderr).toBe(130);
  const totals = [...stderr.matchAll(/dense [\d,]+\/([\d,]+) passages · /g)].map((m) => num(m[1]));
  const m = /vectors stored for ([\d,]+) of ([\d,]+) passages/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return { stderr, totals, saved: num(m![1]), of: num(m![2]) };
}

describe("counts agree", () => {
  it("a resumed run's progress, its stop message, `status` and `status --json` give the same passages, one total", async () => {
    const { vault } = exampleVaultCopy("vr-counts-");
    addNotes(vault, 150, 200);
    const one = await stopInDense(vault, 0);
    const two = await stopInDense(vault, one.saved);
    for (const run of [one, two]) {
      // one unit on the progress line, and its total never moves during the run
      expect(new Set(run.totals).size, run.stderr).toBe(1);
      expect(run.totals[0], run.stderr).toBe(run.of);
    }
    // the second run counts the first run's passages too: the index's own figure
    expect(two.saved).toBeGreaterThan(one.saved);
    expect(two.of).toBe(one.of);
    const json = JSON.parse(
      spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" }).stdout,
    );
    expect(json.phases.dense).toMatchObject({ state: "stopped", passages: two.saved, of: two.of });
    const text = spawnSync(process.execPath, [BIN, "status", vault], { env, encoding: "utf8" }).stdout;
    const pct = Math.floor((100 * two.saved) / two.of);
    expect(text).toContain(
      `dense: ${pct}% (${two.saved.toLocaleString("en-US")}/${two.of.toLocaleString("en-US")} passages)`,
    );
  }, 240_000);
});
