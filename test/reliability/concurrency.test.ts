import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateVault } from "../../bench/gen.js";
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
afterAll(() => stub.close());

/** A reader process: searches in a loop until told to stop; reports successes, failures and consistency. */
const READER = (storeModule: string, db: string, stopFile: string) => `
import fs from "node:fs";
import { SqliteStore, normaliseWhere } from ${JSON.stringify(storeModule)};
let ok = 0, failed = 0, inconsistent = 0; const errors = [];
const store = SqliteStore.open(${JSON.stringify(db)});
const q = new Float32Array(32).map((_, i) => Math.sin(i));
while (!fs.existsSync(${JSON.stringify(stopFile)})) {
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
}
console.log(JSON.stringify({ ok, failed, inconsistent, errors: errors.slice(0, 3) }));
`;

describe("concurrency", () => {
  it("lets four processes search in a loop while one indexes, with no failure and consistent results", async () => {
    const db = path.join(path.dirname(vault), "index.db");
    // a first small pass so the file and manifest exist
    fs.mkdirSync(path.join(path.dirname(vault), "seed"), { recursive: true });
    fs.writeFileSync(path.join(path.dirname(vault), "seed", "a.md"), "# A\n\nrobot motor battery\n");
    expect(
      (
        await cli(
          ["index", path.join(path.dirname(vault), "seed"), "--db", db, "--model", "ollama:stub-embed", "--quiet"],
          env,
        )
      ).code,
    ).toBe(0);
    const stopFile = path.join(path.dirname(vault), "stop");
    const readerFile = path.join(path.dirname(vault), "reader.mjs");
    fs.writeFileSync(readerFile, READER(path.resolve("dist/store/index.js"), db, stopFile));
    const { spawn } = await import("node:child_process");
    const procs = Array.from({ length: 4 }, () => {
      const p = spawn(process.execPath, [readerFile], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      let errOut = "";
      p.stdout.on("data", (d) => (out += d));
      p.stderr.on("data", (d) => (errOut += d));
      return new Promise<{ ok: number; failed: number; inconsistent: number; errors: string[] }>((resolve, reject) =>
        p.on("close", () => (out ? resolve(JSON.parse(out)) : reject(new Error(errOut)))),
      );
    });
    const writer = cliAsync(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--full"], env);
    await new Promise((r) => setTimeout(r, 800));
    // a second indexer on the same index stops with a clear message instead of writing
    const second = await cli(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet"], env);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toMatch(
      new RegExp(
        `^vault-rag: another vault-rag process \\(pid \\d+\\) is writing to ${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} — wait for it to finish, or stop it$`,
      ),
    );
    const w = await writer.done;
    expect(w.code).toBe(0);
    fs.writeFileSync(stopFile, "");
    const results = await Promise.all(procs);
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
