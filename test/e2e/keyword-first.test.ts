import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openVault } from "../../src/library.js";
import { explain, stopChildren } from "../support/children.js";
import { cli, cliAsync, startEmbedStub, type EmbedStub } from "../reliability/helpers.js";

/**
 * Keyword-first indexing end to end: while an index run's dense phase is held open (the local
 * Ollama-protocol stand-in holds its answers to the run's documents, and only those), a search in
 * another process returns hits and says how far the dense ranking reaches, status shows both
 * phases, and the library gives the notice as data; once the answers go, the run completes.
 */
let stub: EmbedStub;
let root = "";
let env: Record<string, string> = {};
const QUERY = "sourdough starter";

beforeAll(async () => {
  stub = await startEmbedStub(1);
  env = { OLLAMA_HOST: stub.host, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-kwfirst-"));
  const vault = path.join(root, "vault");
  fs.mkdirSync(path.join(vault, "kitchen"), { recursive: true });
  fs.writeFileSync(
    path.join(vault, "kitchen", "Sourdough.md"),
    "---\ntags: [baking]\n---\n# Sourdough\n\nFeed the sourdough starter twice a day with flour and water.\n",
  );
  fs.writeFileSync(path.join(vault, "Servers.md"), "# Servers\n\nThe home server runs backups at night.\n");
  for (let i = 0; i < 20; i++)
    fs.writeFileSync(path.join(vault, `note ${i}.md`), `# Note ${i}\n\nA note about topic ${i} and the garden.\n`);
});
afterEach(stopChildren);
afterAll(async () => {
  stub.release();
  await stub.close();
});

describe("keyword-first indexing", () => {
  it("searches while the dense phase runs: hits and the notice on every face, status in both phases", async () => {
    const vault = path.join(root, "vault");
    const db = path.join(root, "index.db");
    // the documents' vectors wait; the model's dimension probe and the search's question do not
    stub.hold((inputs) => !inputs.includes("dimension probe") && !inputs.includes(QUERY));
    const start = stub.requests();
    const run = cliAsync(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--json"], env);
    // the probe, then the first batch of documents: the dense phase began, so the keyword phase is committed
    await Promise.race([stub.reached(start + 2), run.done]);
    expect(run.exited(), "the index run ended before its dense phase").toBeUndefined();

    const found = await cli(["search", QUERY, "--vault", vault, "--db", db, "--json"], env);
    expect(found.code, explain("a search during the dense phase", found)).toBe(0);
    const hits = JSON.parse(found.stdout) as { path: string }[];
    expect(hits[0].path).toBe("kitchen/Sourdough.md");
    expect(found.stderr).toContain(
      "note: dense ranking covers 0 of 22 passages; indexing continues (vault-rag status)\n",
    );
    // a dense search with a filter keyword-ranks the passages without vectors, filter and all
    const dense = await cli(
      ["search", "flour", "--mode", "dense", "--tag", "baking", "--vault", vault, "--db", db, "--json"],
      env,
    );
    expect(dense.code, explain("a filtered dense search", dense)).toBe(0);
    expect((JSON.parse(dense.stdout) as { path: string }[]).map((h) => h.path)).toEqual(["kitchen/Sourdough.md"]);

    const st = await cli(["status", vault, "--db", db], env);
    expect(st.stdout).toMatch(/^phases: {7}keyword: complete · dense: 0% \(0\/22 passages\)/m);
    const stJson = JSON.parse((await cli(["status", vault, "--db", db, "--json"], env)).stdout);
    expect(stJson.phases).toMatchObject({
      keyword: "complete",
      dense: { state: "in progress", passages: 0, of: 22 },
    });
    // the window total is a guess on a first index (passages not cut yet): not given
    expect(stJson.phases.dense.windows).toBeUndefined();

    const v = await openVault(vault, { db });
    try {
      const res = await v.search(QUERY);
      expect(res.hits[0].path).toBe("kitchen/Sourdough.md");
      expect(res.denseCoverage).toEqual({ chunks: 22, withVectors: 0, indexing: true });
      expect(res.notice).toBe("dense ranking covers 0 of 22 passages; indexing continues (see status)");
    } finally {
      await v.close();
    }

    stub.release();
    const end = await run.done;
    expect(end.code, explain("the index run", end)).toBe(0);
    const summary = JSON.parse(end.stdout);
    expect(summary).toMatchObject({ added: 22, passages: 22, embedded: 22, pending: 0, chunks: 22 });
    expect(summary.keywordSeconds).toBeLessThanOrEqual(summary.seconds);
    const after = await cli(["search", QUERY, "--vault", vault, "--db", db, "--json"], env);
    expect(after.code, explain("a search after the run", after)).toBe(0);
    expect(after.stderr).not.toContain("dense ranking covers");
    const done = JSON.parse((await cli(["status", vault, "--db", db, "--json"], env)).stdout);
    expect(done.phases).toEqual({ keyword: "complete", dense: { state: "complete", passages: 22, of: 22 } });
  });
});
