import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateVault, rng } from "../../bench/gen.js";
import { explain, stopChildren, until } from "../support/children.js";
import { cli, cliAsync, committedNotes, exportIndex, startEmbedStub } from "./helpers.js";

const NOTES = Number(process.env.CRASH_NOTES ?? 2000);
const KILLS = Number(process.env.CRASH_KILLS ?? 20);
let stub: Awaited<ReturnType<typeof startEmbedStub>>;
let vault = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  // ~16 s of "embedding" per full build, so that batches are small and commits frequent
  stub = await startEmbedStub(80);
  env = { OLLAMA_HOST: stub.host };
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-crash-")), "vault");
  generateVault(vault, NOTES, 99);
});
afterEach(stopChildren);
afterAll(() => stub.close());

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs during indexing and ends equal to a clean build`, async () => {
    const clean = path.join(path.dirname(vault), "clean.db");
    const before = stub.requests();
    const first = await cli(["index", vault, "--db", clean, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(first.code, explain("the clean build", first)).toBe(0);
    const perBuild = stub.requests() - before;
    const reference = await exportIndex(clean);
    expect(reference.rows.length).toBeGreaterThanOrEqual(NOTES); // every note holds at least one chunk

    const crashed = path.join(path.dirname(vault), "crashed.db");
    const r = rng(2026);
    let killedMidway = 0;
    for (let k = 0; k < KILLS; k++) {
      // each kill lands once the stub has had a random number of this run's requests (1 to twice a
      // run's share of a build): a point in the work, whatever the machine's speed. A run commits its
      // first, small batch after a few requests and embeds each batch while it stores the last, so
      // kills land before, between and during commits
      const after = stub.requests() + 1 + Math.floor(r() * ((2 * perBuild) / KILLS));
      const run = cliAsync(["index", vault, "--db", crashed, "--model", "ollama:stub-embed", "--quiet"], env);
      await Promise.race([stub.reached(after), run.done]);
      run.child.kill("SIGKILL");
      const end = await run.done;
      if (end.signal === "SIGKILL") killedMidway++;
      else expect(end.code, explain(`run ${k + 1}, which finished before its kill,`, end)).toBe(0);
      if (fs.existsSync(crashed)) {
        const check = await cli(["check", "--vault", vault, "--db", crashed, "--json"], env);
        expect(check.code, explain(`check after kill ${k + 1}`, check)).toBe(0);
        expect(JSON.parse(check.stdout).problems, `after kill ${k + 1}`).toEqual([]);
      }
    }
    expect(killedMidway).toBeGreaterThanOrEqual(Math.floor(KILLS * 0.75));
    const last = await cli(["index", vault, "--db", crashed, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(last.code, explain("the last run", last)).toBe(0);
    const after = await exportIndex(crashed);
    expect(after.rows.length).toBe(reference.rows.length);
    expect(after.rows).toEqual(reference.rows);
    expect(after.notes.map((n) => [n.path, n.hash])).toEqual(reference.notes.map((n) => [n.path, n.hash]));
    fs.writeFileSync(
      path.join(os.tmpdir(), "vr-crash-figures.json"),
      JSON.stringify({
        notes: NOTES,
        kills: KILLS,
        killedMidway,
        requestsPerBuild: perBuild,
        chunks: after.rows.length,
      }),
    );
  }, 600_000);

  it("resumes an interrupted run instead of starting over", async () => {
    const db = path.join(path.dirname(vault), "resume.db");
    const run = cliAsync(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet"], env);
    await until("the first commit", () => committedNotes(db) > 0, run.exited);
    run.child.kill("SIGKILL");
    const killed = await run.done;
    expect(killed.signal, explain("the interrupted run", killed)).toBe("SIGKILL");
    const kept = committedNotes(db);
    expect(kept).toBeLessThan(NOTES); // it was stopped mid-way
    const again = await cli(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(again.code, explain("the re-run", again)).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.unchanged).toBe(kept); // the work committed before the kill was kept
    expect(s.added + s.unchanged).toBe(NOTES);
  });
});
