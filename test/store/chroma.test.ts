import fs from "node:fs";
import { cliMessage } from "../../src/cli/open.js";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { ChromaClient } from "chromadb";
import { describe, expect, inject, it } from "vitest";
import { collectingLogger } from "../../src/log.js";
import { ChromaStore, openStore, parseChromaLocation, storeExists } from "../../src/store/index.js";
import { chromaAddress, chromaBackend, testManifest, withBackends } from "./backends.js";
import { meta, record, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "vr-sidecar-"));

describe("Chroma addresses", () => {
  it("reads chroma:// and http(s):// addresses, with tenant and database from options, query or environment", () => {
    expect(parseChromaLocation("chroma://localhost:8000/notes", {}, {})).toEqual({
      server: "http://localhost:8000",
      host: "localhost",
      port: 8000,
      ssl: false,
      collection: "notes",
    });
    expect(
      parseChromaLocation(
        "https://api.trychroma.com/my-notes?tenant=t1",
        {},
        { CHROMA_DATABASE: "db1", CHROMA_API_KEY: "k" },
      ),
    ).toEqual({
      server: "https://api.trychroma.com:443",
      host: "api.trychroma.com",
      port: 443,
      ssl: true,
      collection: "my-notes",
      tenant: "t1",
      database: "db1",
      apiKey: "k",
    });
    expect(parseChromaLocation("chroma://h:1/abc", { tenant: "opt" }, { CHROMA_TENANT: "env" }).tenant).toBe("opt");
  });

  it("says how to fix a bad address", () => {
    expect(() => parseChromaLocation("chroma://localhost:8000/")).toThrow(
      'vault-rag: the Chroma address "chroma://localhost:8000/" names no collection — use chroma://localhost:8000/<collection>',
    );
    expect(() => parseChromaLocation("chroma://localhost:8000/a")).toThrow(
      'vault-rag: "a" is not a valid Chroma collection name — use 3–512 characters from a-z, A-Z, 0-9, ".", "_" and "-", starting and ending with a letter or digit',
    );
  });
});

withBackends([chromaBackend], "Chroma store", () => {
  it("says when the server is not reachable, and when the collection does not exist", async () => {
    await expect(ChromaStore.open("chroma://127.0.0.1:9/notes")).rejects.toThrow(
      "vault-rag: Chroma is not reachable at http://127.0.0.1:9 — start it with `chroma run --path <dir> --port 9` or check --db",
    );
    const db = chromaAddress("never-created");
    const missing = await ChromaStore.open(db, { sidecarDir: tmpDir() }).catch((e) => e);
    expect(missing.message).toBe(
      `vault-rag: no collection "never-created" on the Chroma server at ${inject("chromaUrl")} — index the vault first`,
    );
    expect(missing.fix).toEqual({ kind: "index", db });
    expect(cliMessage(missing)).toBe(
      `vault-rag: no collection "never-created" on the Chroma server at ${inject("chromaUrl")} — run \`vault-rag index <vault> --db ${db}\` first`,
    );
    expect(await storeExists(db, { sidecarDir: tmpDir() })).toBe(false);
  });

  it("refuses a collection another tool filled, and adopts an empty one", async () => {
    const url = new URL(inject("chromaUrl"));
    const client = new ChromaClient({ host: url.hostname, port: Number(url.port) });
    const cosine = { hnsw: { space: "cosine" as const } };
    const foreign = await client.createCollection({
      name: "someone-elses",
      embeddingFunction: null,
      configuration: cosine,
    });
    await foreign.add({ ids: ["x"], embeddings: [[1, 0, 0]], documents: ["not ours"] });
    await expect(ChromaStore.open(chromaAddress("someone-elses"), { sidecarDir: tmpDir() })).rejects.toThrow(
      'vault-rag: the Chroma collection "someone-elses" holds 1 records that vault-rag did not write — choose another collection name',
    );
    await client.createCollection({ name: "empty-one", embeddingFunction: null, configuration: cosine });
    const s = await ChromaStore.open(chromaAddress("empty-one"), { sidecarDir: tmpDir() });
    expect(await s.count()).toEqual({ notes: 0, chunks: 0 });
    await s.close();
    await client.createCollection({ name: "euclidean", embeddingFunction: null });
    await expect(ChromaStore.open(chromaAddress("euclidean"), { sidecarDir: tmpDir() })).rejects.toThrow(
      'vault-rag: the Chroma collection "euclidean" uses the "l2" space; vault-rag needs "cosine" — choose another collection name',
    );
  });

  it("creates cosine collections searched 600 deep without an embedding function, and stores lists as Chroma arrays without empty ones", async () => {
    const db = chromaAddress();
    const s = (await openStore(db, { create: true, sidecarDir: tmpDir() })) as ChromaStore;
    await s.setManifest(testManifest(4));
    await s.upsertNotes([
      {
        note: note("a.md"),
        records: [record("a0", meta({ path: "a.md", tags: ["x", "y"], links: [] }), vec(1, 0, 0, 0))],
      },
    ]);
    const url = new URL(inject("chromaUrl"));
    const client = new ChromaClient({ host: url.hostname, port: Number(url.port) });
    const col = await client.getCollection({ name: parseChromaLocation(db).collection });
    // searched past the hybrid list's depth of 300 (Chroma's default ef_search is 100)
    expect(col.configuration).toMatchObject({ hnsw: { space: "cosine", ef_search: 600 }, embedding_function: null });
    expect(JSON.parse(String(col.metadata?.manifest)).embedder.dimensions).toBe(4);
    const raw = await col.get({ ids: ["a0"], include: ["metadatas"] as never });
    expect(raw.metadatas[0]).toMatchObject({ path: "a.md", tags: ["x", "y"], mtime: 1_760_000_000 });
    expect(raw.metadatas[0]).not.toHaveProperty("links");
    expect(raw.metadatas[0]).not.toHaveProperty("aliases");
    // a local server has no Search API: keyword search stays on the sidecar
    expect(await s.detectSearchApi()).toBe(false);
    expect(s.keywordPath).toBe("sidecar");
    await s.close();
  });

  it("rebuilds its keyword sidecar from the server when another machine wrote, or the sidecar was lost", async () => {
    const db = chromaAddress();
    const mine = tmpDir();
    const a = await ChromaStore.open(db, { create: true, sidecarDir: mine });
    await a.setManifest(testManifest(4));
    await a.upsertNotes([
      {
        note: note("r/SMARS.md"),
        records: [record("s0", meta({ path: "r/SMARS.md" }), vec(1, 0, 0, 0), "DRV8833 motor driver")],
      },
    ]);
    await a.close();
    // another machine: its own sidecar, built from the server on open
    const theirs = tmpDir();
    const log = collectingLogger();
    const b = await ChromaStore.open(db, { sidecarDir: theirs, log });
    expect(log.warnings.map((w) => w.code)).toEqual(["sidecar_rebuilt"]);
    expect((await b.queryKeyword("DRV8833", 5)).map((h) => h.id)).toEqual(["s0"]);
    // a rebuilt note has no known hash, so the next index run re-checks it (and re-uses its vector)
    expect((await b.notes()).get("r/SMARS.md")?.hash).toBe("");
    await b.upsertNotes([
      {
        note: note("k/bread.md"),
        records: [record("b0", meta({ path: "k/bread.md" }), vec(0, 1, 0, 0), "levain and flour")],
      },
    ]);
    await b.close();
    // back on the first machine: the server moved on, so the sidecar is rebuilt
    const log2 = collectingLogger();
    const a2 = await ChromaStore.open(db, { sidecarDir: mine, log: log2 });
    expect(log2.warnings.map((w) => w.code)).toEqual(["sidecar_rebuilt"]);
    expect((await a2.queryKeyword("levain", 5)).map((h) => h.id)).toEqual(["b0"]);
    expect(await a2.count()).toEqual({ notes: 2, chunks: 2 });
    await a2.close();
    // in step: no rebuild
    const log3 = collectingLogger();
    await (await ChromaStore.open(db, { sidecarDir: mine, log: log3 })).close();
    expect(log3.warnings).toEqual([]);
    // lost sidecar
    for (const f of fs.readdirSync(mine)) fs.rmSync(path.join(mine, f));
    const a3 = await ChromaStore.open(db, { sidecarDir: mine });
    expect(await a3.count()).toEqual({ notes: 2, chunks: 2 });
    expect(await a3.serverCount()).toBe(2);
    await a3.close();
  });

  it("reads its sidecar as it is while a writer holds it, and after a crashed write rebuilds, keeping the notes the server did not change", async () => {
    const db = chromaAddress();
    const mine = tmpDir();
    const when = meta({ path: "r/SMARS.md" }).mtime; // a note's record and its chunks carry the same mtime
    const smars = { ...note("r/SMARS.md"), mtime: when };
    const a = await ChromaStore.open(db, { create: true, sidecarDir: mine });
    await a.setManifest(testManifest(4));
    await a.upsertNotes([
      { note: smars, records: [record("s0", meta({ path: "r/SMARS.md" }), vec(1, 0, 0, 0), "DRV8833 motor driver")] },
      {
        note: { ...note("k/bread.md"), mtime: when },
        records: [record("b0", meta({ path: "k/bread.md" }), vec(0, 1, 0, 0), "levain and flour")],
      },
    ]);
    await a.close();
    // the server moves on (another machine's write changes bread.md) ...
    const b = await ChromaStore.open(db, { sidecarDir: tmpDir() });
    await b.upsertNotes([
      {
        note: note("k/bread.md"),
        records: [record("b0", meta({ path: "k/bread.md", mtime: 2 }), vec(0, 1, 0, 0), "rye and salt")],
      },
    ]);
    await b.close();
    // ... while a writer here holds the sidecar's lock, as a write in progress does
    const [file] = fs.readdirSync(mine).filter((f) => f.endsWith(".db"));
    const writer = new Database(path.join(mine, file));
    writer.exec("BEGIN IMMEDIATE");
    const log = collectingLogger();
    const during = await ChromaStore.open(db, { sidecarDir: mine, log });
    expect(log.warnings).toEqual([]);
    expect((await during.notes()).get("r/SMARS.md")).toEqual(smars);
    expect((await during.queryKeyword("levain", 5)).map((h) => h.id)).toEqual(["b0"]);
    await during.close();
    // the writer dies: its transaction rolls back and the lock is free, so the next open rebuilds
    writer.exec("ROLLBACK");
    writer.close();
    const log2 = collectingLogger();
    const after = await ChromaStore.open(db, { sidecarDir: mine, log: log2 });
    expect(log2.warnings.map((w) => w.code)).toEqual(["sidecar_rebuilt"]);
    expect((await after.queryKeyword("rye", 5)).map((h) => h.id)).toEqual(["b0"]);
    const notes = await after.notes();
    expect(notes.get("r/SMARS.md")).toEqual(smars);
    expect(notes.get("k/bread.md")).toEqual({ path: "k/bread.md", hash: "", mtime: 2, size: -1 });
    expect(await after.count()).toEqual({ notes: 2, chunks: 2 });
    await after.close();
  });

  it("runs writes one at a time when the indexer overlaps them, and keeps a kept note's links through a rebuild", async () => {
    const db = chromaAddress();
    const mine = tmpDir();
    const a = await ChromaStore.open(db, { create: true, sidecarDir: mine });
    await a.setManifest(testManifest(4));
    const when = meta({ path: "k/bread.md" }).mtime;
    const bread = { ...note("k/bread.md"), mtime: when };
    const link = { written: "Oven", target: "k/oven.md", text: "baked in the Oven at 250 degrees" };
    await a.upsertNotes([
      {
        note: bread,
        records: [record("b0", meta({ path: "k/bread.md" }), vec(0, 1, 0, 0), "levain and flour")],
        links: [link],
      },
      {
        note: { ...note("k/oven.md"), mtime: when },
        records: [record("o0", meta({ path: "k/oven.md" }), vec(1, 0, 0, 0), "a cast iron pot")],
      },
    ]);
    // the next batch's touch while this batch is stored, as the indexer does: two writes at once
    await Promise.all([
      a.touchNote({ ...bread, size: 2 }),
      a.upsertNotes([
        {
          note: note("r/SMARS.md"),
          records: [record("s0", meta({ path: "r/SMARS.md" }), vec(0, 0, 1, 0), "motor driver")],
        },
      ]),
    ]);
    expect((await a.notes()).get("k/bread.md")?.size).toBe(2);
    await a.close();
    // the server's generation moves past the sidecar's (a write killed in between): rebuilt on open
    const url = new URL(inject("chromaUrl"));
    const c = await new ChromaClient({ host: url.hostname, port: Number(url.port) }).getCollection({
      name: db.split("/").pop()!,
    });
    await c.modify({ metadata: { ...c.metadata, generation: Number(c.metadata?.generation) + 1 } });
    const log = collectingLogger();
    const b = await ChromaStore.open(db, { sidecarDir: mine, log });
    expect(log.warnings.map((w) => w.code)).toEqual(["sidecar_rebuilt"]);
    expect((await b.notes()).get("k/bread.md")).toEqual({ ...bread, size: 2 });
    expect((await b.linkTexts()).get("k/bread.md")).toEqual([link]);
    await b.close();
  });
});
