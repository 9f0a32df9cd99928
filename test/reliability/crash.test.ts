import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
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

/** Passages an index file holds, and how many have vectors, read without writing (0s before it exists). */
function coverage(db: string): { chunks: number; withVectors: number } {
  if (!fs.existsSync(db)) return { chunks: 0, withVectors: 0 };
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return conn
      .prepare(
        "SELECT count(*) AS chunks, sum(EXISTS (SELECT 1 FROM windows w WHERE w.chunk = c.rowid)) AS withVectors FROM chunks c",
      )
      .get() as { chunks: number; withVectors: number };
  } catch {
    return { chunks: 0, withVectors: 0 }; // its schema not yet committed
  } finally {
    conn.close();
  }
}

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs in both indexing phases and ends equal to a clean build`, async () => {
    const clean = path.join(path.dirname(vault), "clean.db");
    const before = stub.requests();
    const first = await cli(["index", vault, "--db", clean, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(first.code, explain("the clean build", first)).toBe(0);
    const perBuild = stub.requests() - before;
    const reference = await exportIndex(clean);
    expect(reference.rows.length).toBeGreaterThanOrEqual(NOTES); // every note holds at least one chunk

    const crashed = path.join(path.dirname(vault), "crashed.db");
    const r = rng(2026);
    const index = () => cliAsync(["index", vault, "--db", crashed, "--model", "ollama:stub-embed", "--quiet"], env);
    const checked = async (k: number) => {
      if (!fs.existsSync(crashed)) return;
      const check = await cli(["check", "--vault", vault, "--db", crashed, "--json"], env);
      expect(check.code, explain(`check after kill ${k + 1}`, check)).toBe(0);
      // passages a kill left without vectors are pending, not damage
      expect(JSON.parse(check.stdout).problems, `after kill ${k + 1}`).toEqual([]);
    };
    // the keyword phase asks the model nothing (but for its dimensions, once): its kills land once a
    // random number of notes is committed, the notes left spread over the kills to come
    const keywordKills = Math.max(1, Math.floor(KILLS / 4));
    let killedInKeyword = 0;
    for (let k = 0; k < keywordKills; k++) {
      const committed = committedNotes(crashed);
      const target = committed + 1 + Math.floor(r() * ((NOTES - committed) / (keywordKills - k + 1)));
      const run = index();
      const embedding = stub.reached(stub.requests() + 2); // past the probe: the dense phase began
      await Promise.race([
        until("notes committed", () => committedNotes(crashed) >= target, run.exited),
        embedding,
        run.done,
      ]);
      run.child.kill("SIGKILL");
      const end = await run.done;
      if (end.signal === "SIGKILL" && committedNotes(crashed) < NOTES) killedInKeyword++;
      await checked(k);
    }
    expect(killedInKeyword).toBeGreaterThanOrEqual(1);
    // the dense phase: each kill lands once the stub has had a random number of this run's requests
    // (1 to twice a run's share of a build): a point in the work, whatever the machine's speed. A run
    // embeds each batch while it stores the last, so kills land before, between and during commits
    let killedMidway = 0;
    let killedInDense = 0;
    for (let k = keywordKills; k < KILLS; k++) {
      const after = stub.requests() + 1 + Math.floor(r() * ((2 * perBuild) / KILLS));
      const run = index();
      await Promise.race([stub.reached(after), run.done]);
      run.child.kill("SIGKILL");
      const end = await run.done;
      if (end.signal === "SIGKILL") {
        killedMidway++;
        const c = coverage(crashed);
        if (committedNotes(crashed) === NOTES && c.withVectors < c.chunks) killedInDense++;
      } else expect(end.code, explain(`run ${k + 1}, which finished before its kill,`, end)).toBe(0);
      await checked(k);
    }
    expect(killedMidway).toBeGreaterThanOrEqual(Math.floor((KILLS - keywordKills) * 0.75));
    expect(killedInDense).toBeGreaterThanOrEqual(Math.floor((KILLS - keywordKills) / 2));
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
        killedInKeyword,
        killedInDense,
        killedMidway,
        requestsPerBuild: perBuild,
        chunks: after.rows.length,
      }),
    );
  }, 600_000);

  it("resumes a run killed in its dense phase: every note stays, only the missing windows are embedded", async () => {
    const db = path.join(path.dirname(vault), "dense.db");
    const start = stub.requests();
    const clean = path.join(path.dirname(vault), "clean-dense.db");
    const built = await cli(["index", vault, "--db", clean, "--model", "ollama:stub-embed", "--quiet"], env);
    expect(built.code, explain("the clean build", built)).toBe(0);
    const perBuild = stub.requests() - start;
    const run = cliAsync(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet"], env);
    await Promise.race([stub.reached(stub.requests() + Math.ceil(perBuild / 2)), run.done]);
    run.child.kill("SIGKILL");
    const killed = await run.done;
    expect(killed.signal, explain("the interrupted run", killed)).toBe("SIGKILL");
    const kept = coverage(db);
    expect(committedNotes(db)).toBe(NOTES); // the keyword phase was complete
    expect(kept.withVectors).toBeLessThan(kept.chunks); // the dense phase was not
    const searched = await cli(["search", "--vault", vault, "--db", db, "--json", "motor"], env);
    expect(searched.code, explain("a search of the half-embedded index", searched)).toBe(0);
    expect(JSON.parse(searched.stdout).length).toBeGreaterThan(0);
    expect(searched.stderr).toContain(
      `note: dense ranking covers ${kept.withVectors.toLocaleString("en-US")} of ${kept.chunks.toLocaleString("en-US")} passages;`,
    );
    const again = await cli(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--json"], env);
    expect(again.code, explain("the re-run", again)).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s).toMatchObject({ added: 0, updated: 0, unchanged: NOTES, pending: 0 });
    expect(s.embedded).toBeGreaterThan(0);
    expect(coverage(db)).toEqual({ chunks: kept.chunks, withVectors: kept.chunks });
    expect((await exportIndex(db)).rows).toEqual((await exportIndex(clean)).rows);
  });

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
