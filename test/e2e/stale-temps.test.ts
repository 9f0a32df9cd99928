import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

/**
 * The vector snapshot's temporary files (`index.db.vectors.<pid>.<id>.tmp`) that a kill -9 or a
 * full disk left are removed by `index`, `index --full` and `check --repair`; one whose writer
 * still runs (this test's process) is kept.
 */
let vault = "";
let dir = "";
let deadPid = 0;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Plants a stale temporary file (of a process that has exited) and a live one (of this process). */
function plant(): { stale: string; live: string } {
  const stale = path.join(dir, `index.db.vectors.${deadPid}.1a2b3c4d.tmp`);
  const live = path.join(dir, `index.db.vectors.${process.pid}.5e6f7a8b.tmp`);
  fs.writeFileSync(stale, "half a snapshot");
  fs.writeFileSync(live, "a snapshot being written");
  return { stale, live };
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-stale-temps-")), "vault");
  fs.mkdirSync(vault, { recursive: true });
  fs.writeFileSync(path.join(vault, "Note.md"), "# Note\n\nA note about kilns.\n");
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
  dir = path.join(vault, ".vault-rag");
  // the id of a process that has exited: no process runs under it now
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  deadPid = Number(child.stdout);
  expect(deadPid).toBeGreaterThan(0);
});

describe("temporary snapshot files left by a stopped run", () => {
  for (const args of [["index"], ["index", "--full"]])
    it(`${args.join(" ")} removes the stale one and keeps a running process's`, () => {
      const { stale, live } = plant();
      const r = run([...args, vault, "--quiet"]);
      expect(r.code, r.stderr).toBe(0);
      expect(fs.existsSync(stale)).toBe(false);
      expect(fs.existsSync(live)).toBe(true);
      fs.rmSync(live);
    });

  it("check names the stale one, as no damage; check --repair removes it", () => {
    const { stale, live } = plant();
    const c = run(["check", vault]);
    expect(c.code, c.stdout + c.stderr).toBe(0);
    expect(c.stdout).toContain(
      `leftover: 1 temporary file(s) a stopped run left beside the index ("${path.basename(stale)}")`,
    );
    const json = run(["check", vault, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, problems: [], tempFiles: [path.basename(stale)] });
    expect(fs.existsSync(stale)).toBe(true);
    const r = run(["check", vault, "--repair"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    fs.rmSync(live);
  });
});
