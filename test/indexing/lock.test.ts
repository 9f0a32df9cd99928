import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnChild, stopChildren } from "../support/children.js";

const BIN = path.resolve("dist/cli/main.js");
const LOCK = path.resolve("dist/indexing/lock.js");
const STORE = path.resolve("dist/store/index.js");

/**
 * A process that takes the lock (retrying while another holds it, however long), checks that nobody else holds it
 * by creating a marker file exclusively, holds it a moment, and then dies without releasing it: the
 * next process finds a stale lock.
 */
const CONTENDER = `
import fs from "node:fs";
import { acquireLock } from ${JSON.stringify(LOCK)};
const [db, marker] = process.argv.slice(2);
const quiet = { warn() {}, info() {}, debug() {} };
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
for (;;) {
  try {
    acquireLock(db, quiet);
  } catch (e) {
    if (e.code !== "index_locked") throw e;
    sleep(1);
    continue;
  }
  try {
    fs.writeFileSync(marker, String(process.pid), { flag: "wx" });
  } catch {
    console.log("both held the lock");
    process.exit(3);
  }
  // a fixed window, kept on purpose: held 15 ms, so that a second holder, if the lock let one in,
  // would find the marker (the test asserts that this does NOT happen)
  sleep(15);
  fs.rmSync(marker);
  console.log("held");
  process.exit(0); // dies holding the lock
}
`;

/** Takes the lock and an index file without a manifest (a first index under way), until stdin closes. */
const FIRST_INDEX = `
import { acquireLock } from ${JSON.stringify(LOCK)};
import { SqliteStore } from ${JSON.stringify(STORE)};
const [db] = process.argv.slice(2);
const release = acquireLock(db, { warn() {}, info() {}, debug() {} });
await SqliteStore.open(db, { create: true }).close();
console.log("ready");
process.stdin.resume();
process.stdin.on("end", () => { release(); process.exit(0); });
`;

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "vr-lock-"));

afterEach(stopChildren);

function runNode(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnChild(process.execPath, [script, ...args]);
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the writer lock", () => {
  it("never lets two processes hold it, racing on a stale lock many times", async () => {
    const dir = tmp();
    const script = path.join(dir, "contender.mjs");
    fs.writeFileSync(script, CONTENDER);
    const db = path.join(dir, "index.db");
    const marker = path.join(dir, "holder");
    for (let round = 0; round < 20; round++) {
      const results = await Promise.all([runNode(script, [db, marker]), runNode(script, [db, marker])]);
      for (const r of results) expect(`${r.code} ${r.stdout.trim()}`, r.stderr).toBe("0 held");
      expect(fs.existsSync(`${db}.lock`)).toBe(true); // the last one died holding it: a stale lock for the next round
    }
  }, 300_000);

  it("is not blocked by a stale lock whose pid now belongs to a live process", async () => {
    const dir = tmp();
    const script = path.join(dir, "contender.mjs");
    fs.writeFileSync(script, CONTENDER);
    const db = path.join(dir, "index.db");
    // this test process is alive, but it is not the process that wrote the lock (old and new formats)
    for (const text of [String(process.pid), `${process.pid} 1\n`]) {
      fs.writeFileSync(`${db}.lock`, text);
      const r = await runNode(script, [db, path.join(dir, "holder")]);
      expect(`${r.code} ${r.stdout.trim()}`, r.stderr).toBe("0 held");
    }
  });

  it("refuses an index folder that cannot be created, at once", () => {
    const vault = tmp();
    fs.writeFileSync(path.join(vault, "a.md"), "# A\n");
    // a guard, not a timing: the command must end with an error, not hang
    const r = spawnSync(process.execPath, [BIN, "index", vault, "--db", "/proc/nope/index.db", "--quiet"], {
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `vault-rag: cannot create the index folder "/proc/nope": ENOENT: no such file or directory, mkdir '/proc/nope' — check the path, or give --db a file in a folder you can write to`,
    );
  });

  it("makes status say that a first index is in progress, with the pid of the process building it", async () => {
    const vault = tmp();
    fs.writeFileSync(path.join(vault, "a.md"), "# A\n");
    const db = path.join(vault, ".vault-rag", "index.db");
    const script = path.join(vault, "first-index.mjs");
    fs.writeFileSync(script, FIRST_INDEX);
    const child = spawnChild(process.execPath, [script, db]);
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (d) => String(d).includes("ready") && resolve());
      child.on("close", (code) => reject(new Error(`the first index exited with code ${code}: ${stderr}`)));
    });
    try {
      const r = spawnSync(process.execPath, [BIN, "status", vault], {
        encoding: "utf8",
        env: { ...process.env, VAULT_RAG_DB: "" },
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toBe(
        `vault-rag: indexing is in progress (pid ${child.pid}): the index at ${db} is being built — wait for it to finish, then try again`,
      );
    } finally {
      child.stdin!.end();
      await new Promise((r) => child.on("close", r));
    }
    expect(fs.existsSync(`${db}.lock`)).toBe(false);
  });
});
