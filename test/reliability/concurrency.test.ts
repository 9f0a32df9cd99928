import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateVault } from "../../bench/gen.js";
import { explain, spawnChild, stopChildren, until } from "../support/children.js";
import { cli, cliAsync, startEmbedStub } from "./helpers.js";

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
let vault = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  stub = await startEmbedStub(2);
  env = { OLLAMA_HOST: stub.host };
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-conc-")), "vault");
  generateVault(vault, 1500, 5);
});
afterEach(() => {
  stub.release();
  stopChildren();
});
afterAll(() => stub.close());

/**
 * A reader process: searches in a loop until told to stop; prints "searching" once its first search
 * is done, then, when stopped, its successes, failures and consistency.
 */
const READER = (storeModule: string, db: string, stopFile: string) => `
import fs from "node:fs";
import { SqliteStore, normaliseWhere } from ${JSON.stringify(storeModule)};
let ok = 0, failed = 0, inconsistent = 0; const errors = [];
const store = SqliteStore.open(${JSON.stringify(db)});
const q = new Float32Array(32).map((_, i) => Math.sin(i));
do {
  try {
    const dense = await store.queryDense(q, 10, { where: normaliseWhere({ folder: { $ne: "none" } }) });
    const kw = await store.queryKeyword("robot motor battery", 10);
    // a consistent snapshot: every hit's note is fully present (no half-written note)
    for (const h of [...dense, ...kw]) {
      const chunks = await store.get({ path: h.meta.path });
      if (!chunks.some((c) => c.id === h.id)) inconsistent++;
    }
    ok++;
  } catch (e) { failed++; errors.push(String(e.message)); }
  if (ok + failed === 1) console.log("searching");
} while (!fs.existsSync(${JSON.stringify(stopFile)}));
console.log(JSON.stringify({ ok, failed, inconsistent, errors: errors.slice(0, 3) }));
`;

interface ReaderReport {
  ok: number;
  failed: number;
  inconsistent: number;
  errors: string[];
}

/** Starts a reader; `searching` resolves after its first search, `report` when it has stopped. */
function startReader(file: string) {
  const p = spawnChild(process.execPath, [file], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let onFirst: () => void = () => {};
  const searching = new Promise<void>((resolve) => (onFirst = resolve));
  p.stdout!.on("data", (d) => {
    out += d;
    if (out.includes("\n")) onFirst();
  });
  p.stderr!.on("data", (d) => (err += d));
  const report = new Promise<ReaderReport>((resolve, reject) =>
    p.on("close", (code, signal) => {
      const last = out.trim().split("\n").pop() ?? "";
      if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last));
      else reject(new Error(explain("a reader", { code, signal, stderr: err, stdout: out })));
    }),
  );
  report.catch(() => {}); // awaited below; a reader that dies early must not fail another wait first
  return { searching: Promise.race([searching, report.then(() => {})]), report };
}

describe("concurrency", () => {
  it("lets four processes search in a loop while one indexes, with no failure and consistent results", async () => {
    const db = path.join(path.dirname(vault), "index.db");
    const index = (dir: string, ...more: string[]) => [
      "index",
      dir,
      "--db",
      db,
      "--model",
      "ollama:stub-embed",
      "--quiet",
      ...more,
    ];
    // a first small pass so the file and manifest exist
    fs.mkdirSync(path.join(path.dirname(vault), "seed"), { recursive: true });
    fs.writeFileSync(path.join(path.dirname(vault), "seed", "a.md"), "# A\n\nrobot motor battery\n");
    const seed = await cli(index(path.join(path.dirname(vault), "seed")), env);
    expect(seed.code, explain("the first index", seed)).toBe(0);
    const stopFile = path.join(path.dirname(vault), "stop");
    const readerFile = path.join(path.dirname(vault), "reader.mjs");
    fs.writeFileSync(readerFile, READER(path.resolve("dist/store/index.js"), db, stopFile));
    const readers = Array.from({ length: 4 }, () => startReader(readerFile));
    await Promise.all(readers.map((r) => r.searching));

    // the writer takes the lock and cannot finish while the stub holds its answers
    stub.hold();
    const writer = cliAsync(index(vault, "--full"), env);
    const lock = `${db}.lock`;
    const holder = () => (fs.existsSync(lock) ? fs.readFileSync(lock, "utf8").split(" ")[0] : "");
    await until("the writer to take the lock", () => holder() === String(writer.child.pid), writer.exited);
    // a second indexer on the same index stops with a clear message instead of writing
    const second = await cli(index(vault), env);
    expect(second.code, explain("the second indexer", second)).toBe(1);
    expect(second.stderr.trim()).toMatch(
      new RegExp(
        `^vault-rag: another vault-rag process \\(pid ${writer.child.pid}\\) is writing to ${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} — wait for it to finish, or stop it$`,
      ),
    );
    stub.release();
    const w = await writer.done;
    expect(w.code, explain("the writer", w)).toBe(0);
    fs.writeFileSync(stopFile, "");
    const results = await Promise.all(readers.map((r) => r.report));
    for (const r of results) {
      expect(r.failed, r.errors.join("; ")).toBe(0);
      expect(r.inconsistent).toBe(0);
      expect(r.ok).toBeGreaterThan(0);
    }
    fs.writeFileSync(
      path.join(os.tmpdir(), "vr-concurrency-figures.json"),
      JSON.stringify({ searches: results.reduce((n, r) => n + r.ok, 0) }),
    );
  }, 300_000);
});
