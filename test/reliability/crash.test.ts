import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateVault, rng } from "../../bench/gen.js";
import { cli, cliAsync, exportIndex, startEmbedStub } from "./helpers.js";

const NOTES = Number(process.env.CRASH_NOTES ?? 2000);
const KILLS = Number(process.env.CRASH_KILLS ?? 20);
let stub: Awaited<ReturnType<typeof startEmbedStub>>;
let vault = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  // ~16 s of "embedding" per full build: room for every kill to land mid-way (at 40 ms a request, a
  // fast day finished the build after 12 of the 20 kills)
  stub = await startEmbedStub(80);
  env = { OLLAMA_HOST: stub.host };
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-crash-")), "vault");
  generateVault(vault, NOTES, 99);
});
afterAll(() => stub.close());

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs during indexing and ends equal to a clean build`, async () => {
    const clean = path.join(path.dirname(vault), "clean.db");
    const first = await cli(["index", vault, "--db", clean, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(first.code).toBe(0);
    const reference = await exportIndex(clean);
    expect(reference.rows.length).toBeGreaterThanOrEqual(NOTES); // every note holds at least one chunk

    const crashed = path.join(path.dirname(vault), "crashed.db");
    const r = rng(2026);
    let killedMidway = 0;
    for (let k = 0; k < KILLS; k++) {
      const run = cliAsync(["index", vault, "--db", crashed, "--model", "ollama:stub-embed", "--quiet"], env);
      await new Promise((res) => setTimeout(res, 250 + r() * 700));
      run.child.kill("SIGKILL");
      const { signal, code } = await run.done;
      if (signal === "SIGKILL") killedMidway++;
      else expect(code).toBe(0); // it finished before the kill
      if (fs.existsSync(crashed)) {
        const check = await cli(["check", "--vault", vault, "--db", crashed, "--json"], env);
        const report = JSON.parse(check.stdout);
        expect(report.problems, `after kill ${k + 1}`).toEqual([]);
        expect(check.code).toBe(0);
      }
    }
    expect(killedMidway).toBeGreaterThanOrEqual(Math.floor(KILLS * 0.75));
    const last = await cli(["index", vault, "--db", crashed, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(last.code).toBe(0);
    const after = await exportIndex(crashed);
    expect(after.rows.length).toBe(reference.rows.length);
    expect(after.rows).toEqual(reference.rows);
    expect(after.notes.map((n) => [n.path, n.hash])).toEqual(reference.notes.map((n) => [n.path, n.hash]));
    fs.writeFileSync(
      path.join(os.tmpdir(), "vr-crash-figures.json"),
      JSON.stringify({ notes: NOTES, kills: KILLS, killedMidway, chunks: after.rows.length }),
    );
  }, 600_000);

  it("resumes an interrupted run instead of starting over", async () => {
    const db = path.join(path.dirname(vault), "resume.db");
    const run = cliAsync(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet"], env);
    await new Promise((res) => setTimeout(res, 2500));
    run.child.kill("SIGKILL");
    await run.done;
    const again = await cli(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    const s = JSON.parse(again.stdout);
    expect(again.code).toBe(0);
    expect(s.unchanged).toBeGreaterThan(0); // work done before the kill was kept
    expect(s.added + s.unchanged).toBe(NOTES);
  }, 120_000);
});
