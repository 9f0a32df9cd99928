import { indexCommand } from "../../src/render/fix.js";
import { cliMessage } from "../../src/cli/open.js";
import type { VaultRagError } from "../../src/errors.js";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnChild, stopChildren, until } from "../support/children.js";
import { normaliseWhere, SqliteStore } from "../../src/store/index.js";
import { damaged } from "../../src/store/sqlite/sqlite-store.js";
import { EXACT_SCAN_LIMIT } from "../../src/store/sqlite/dense-index.js";
import { pooledRows } from "../../src/store/sqlite/dense-query.js";
import { poolOffThread } from "../../src/store/sqlite/pool-thread.js";
import { openConnection } from "../../src/store/sqlite/connection.js";
import { WINDOW_HASH_CHARS, WINDOW_HASH_PREFIX } from "../../src/store/sqlite/ddl.js";
import { meta, openStore, record, tmpDb, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });

describe("SQLite store", () => {
  it("keeps no snapshot for a small index, and removes one an earlier build left", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([{ note: note("a.md"), records: [record("a0", meta({ path: "a.md" }), vec(1, 0, 0, 0))] }]);
    expect((await s.queryDense(vec(1, 0, 0, 0), 5)).map((h) => h.id)).toEqual(["a0"]);
    expect(fs.existsSync(`${file}.vectors`)).toBe(false);
    // another process writes: a reader with a loaded index sees the new generation
    const writer = SqliteStore.open(file);
    await writer.upsertNotes([
      { note: note("b.md"), records: [record("b0", meta({ path: "b.md" }), vec(0.9, 0.1, 0, 0))] },
    ]);
    await writer.close();
    expect((await s.queryDense(vec(1, 0, 0, 0), 5)).map((h) => h.id)).toEqual(["a0", "b0"]);
    await s.close();
    // an earlier build's snapshot (float rows and all) is not read, and goes
    fs.writeFileSync(`${file}.vectors`, '{"key":"x:1:pooled","dims":4,"size":1,"int8":false,"sum":"a","rows":"b"}\n');
    const r = SqliteStore.open(file);
    expect((await r.queryDense(vec(1, 0, 0, 0), 5)).map((h) => h.id)).toEqual(["a0", "b0"]);
    await r.close();
    expect(fs.existsSync(`${file}.vectors`)).toBe(false);
  });

  it("makes a new index file with 8 KB pages, keeps an older file's 4 KB pages and rows, checkpoints both at 256 MB", async () => {
    const pageSize = (f: string) => {
      const db = new Database(f, { readonly: true });
      try {
        return db.pragma("page_size", { simple: true });
      } finally {
        db.close();
      }
    };
    const fresh = tmpDb();
    const s = await openStore(fresh);
    await s.upsertNotes([{ note: note("a.md"), records: [record("a0", meta({ path: "a.md" }), vec(1, 0, 0, 0))] }]);
    await s.close();
    expect(pageSize(fresh)).toBe(8192);
    // an index an earlier build made: its pages stay as they are, and what it holds is read
    const old = tmpDb();
    fs.copyFileSync(fresh, old);
    const db = new Database(old);
    db.pragma("journal_mode = DELETE");
    db.pragma("page_size = 4096");
    db.exec("VACUUM");
    db.close();
    expect(pageSize(old)).toBe(4096);
    const again = await openStore(old);
    await again.upsertNotes([{ note: note("b.md"), records: [record("b0", meta({ path: "b.md" }), vec(0, 1, 0, 0))] }]);
    expect((await again.queryDense(vec(1, 0, 0, 0), 5)).map((h) => h.id)).toEqual(["a0", "b0"]);
    await again.close();
    expect(pageSize(old)).toBe(4096);
    // a writer copies its WAL into the file at 256 MB, whatever the page size
    for (const [f, pages] of [
      [fresh, 32768],
      [old, 65536],
    ] as const) {
      const db = openConnection(f);
      expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(pages);
      db.close();
    }
  });

  it("indexes windows by a prefix of their hash; an older file's whole-hash indexes are read, then replaced when it is written", async () => {
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const [ha, hb] = [sha("a"), sha("b")];
    // a window whose hash shares the first 16 characters of another's, and one that is not hex
    const twin = ha.slice(0, 16) + "f".repeat(48);
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([
      {
        note: { path: "a.md", hash: ha, mtime: 1, size: 1 },
        records: [
          {
            ...record("a0", meta({ path: "a.md", hash: ha }), vec(1, 0, 0, 0), "alpha passage"),
            windows: [
              { hash: ha, vector: vec(1, 0, 0, 0) },
              { hash: "H-odd", vector: vec(0, 0, 1, 0) },
            ],
          },
        ],
      },
      {
        note: { path: "b.md", hash: hb, mtime: 1, size: 1 },
        records: [
          {
            ...record("b0", meta({ path: "b.md", hash: hb }), vec(0, 1, 0, 0), "beta passage"),
            windows: [{ hash: twin, vector: vec(0, 1, 0, 0) }],
          },
        ],
      },
    ]);
    await s.close();
    const shape = (f: string) => {
      const db = new Database(f, { readonly: true });
      try {
        const rows = (t: string) => db.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all();
        const plan = db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT vector FROM windows WHERE ${WINDOW_HASH_PREFIX} = substr(@hash, 1, ${WINDOW_HASH_CHARS}) AND hash = @hash`,
          )
          .all({ hash: ha }) as { detail: string }[];
        return {
          indexes: db
            .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
            .pluck()
            .all(),
          plan: plan.map((p) => p.detail).join("; "),
          rows: { notes: rows("notes"), chunks: rows("chunks"), windows: rows("windows") },
        };
      } finally {
        db.close();
      }
    };
    // a new file: windows by the hash's first 16 characters, passages by no hash at all
    const made = shape(file);
    expect(made.indexes).toContain("windows_hash_prefix");
    expect(made.indexes).not.toContain("windows_hash");
    expect(made.indexes).not.toContain("chunks_hash");
    expect(made.plan).toContain("USING INDEX windows_hash_prefix");
    // the hashes are stored and handed back as given
    const look = async (st: SqliteStore) => {
      const cached = await st.cachedVectors("test:t", [ha, twin, "H-odd", hb, sha("c")]);
      return {
        cached: [...cached].map(([h, v]) => [h, [...v]]),
        records: (await st.get({ ids: ["a0", "b0"], includeVectors: true })).map((r) => [
          r.meta.hash,
          r.windows.map((w) => [w.hash, [...w.vector]]),
        ]),
        notes: [...(await st.notes())].map(([p, n]) => [p, n.hash]),
        dense: (await st.queryDense(vec(0.9, 0.1, 0.3, 0), 5)).map((h) => [h.id, h.distance]),
        keyword: (await st.queryKeyword("passage", 5)).map((h) => [h.id, h.distance]),
      };
    };
    const fresh = SqliteStore.open(file);
    const seen = await look(fresh);
    await fresh.close();
    expect(seen.cached.map(([h]) => h)).toEqual([ha, twin, "H-odd"]);
    expect(seen.cached[1][1]).toEqual([0, 1, 0, 0]);
    expect(seen.records).toEqual([
      [
        ha,
        [
          [ha, [1, 0, 0, 0]],
          ["H-odd", [0, 0, 1, 0]],
        ],
      ],
      [hb, [[twin, [0, 1, 0, 0]]]],
    ]);
    expect(seen.notes).toEqual([
      ["a.md", ha],
      ["b.md", hb],
    ]);
    expect(seen.dense.map(([id]) => id)).toEqual(["a0", "b0"]);
    expect(seen.keyword.length).toBe(2);
    // the file an earlier build made of the same rows: the whole hash of each window and passage indexed
    const old = tmpDb();
    fs.copyFileSync(file, old);
    const db = new Database(old);
    db.pragma("journal_mode = DELETE");
    db.exec(
      "DROP INDEX windows_hash_prefix; CREATE INDEX windows_hash ON windows(hash); CREATE INDEX chunks_hash ON chunks(hash);",
    );
    db.close();
    const before = shape(old);
    expect(before.indexes).toEqual(expect.arrayContaining(["windows_hash", "chunks_hash"]));
    expect(before.plan).toContain("USING INDEX windows_hash");
    // read-only, it is searched as it is, by its own index, and not written
    const reader = SqliteStore.open(old, { readonly: true });
    expect(await look(reader)).toEqual(seen);
    await reader.close();
    expect(shape(old)).toEqual(before);
    // opened for writing, its two indexes give way to the prefix's, nothing else changes
    const writer = SqliteStore.open(old);
    expect(shape(old)).toEqual(made);
    expect(await look(writer)).toEqual(seen);
    await writer.upsertNotes([
      { note: note("c.md"), records: [record("c0", meta({ path: "c.md", hash: sha("c") }), vec(0, 0, 0, 1))] },
    ]);
    expect((await writer.cachedVectors("test:t", [sha("c"), ha])).size).toBe(2);
    expect((await writer.queryDense(vec(0, 0, 0, 1), 1)).map((h) => h.id)).toEqual(["c0"]);
    await writer.close();
    const after = shape(old);
    expect(after.indexes).toEqual(made.indexes);
    expect(after.rows.windows.slice(0, 3)).toEqual(made.rows.windows);
    expect(after.rows.chunks.slice(0, 2)).toEqual(made.rows.chunks);
  });

  it("reads the float32 windows of an index written before float16 beside float16 ones, exactly", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([
      { note: note("old.md"), records: [record("old0", meta({ path: "old.md", hash: "H-old" }), vec(0.6, 0.8, 0, 0))] },
      { note: note("new.md"), records: [record("new0", meta({ path: "new.md", hash: "H-new" }), vec(0.8, 0.6, 0, 0))] },
    ]);
    const db = new Database(file);
    // what today's float16 row of the new note is, and the old note's row as an earlier build wrote it
    expect(db.prepare("SELECT length(vector) FROM windows WHERE hash = 'H-new'").pluck().get()).toBe(4 * 2 + 2);
    const f32 = Float32Array.of(0.6, 0.8, 0, 0);
    db.prepare("UPDATE windows SET vector = ? WHERE hash = 'H-old'").run(Buffer.from(f32.buffer));
    db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'").run();
    db.close();
    const hits = await s.queryDense(vec(0.6, 0.8, 0, 0), 5);
    expect(hits.map((h) => h.id)).toEqual(["old0", "new0"]);
    expect(hits[0].distance).toBeCloseTo(0, 6);
    // the model's cache hands both back; the old one exactly as written
    const cached = await s.cachedVectors("test:t", ["H-old", "H-new"]);
    expect(cached.get("H-old")).toEqual(f32);
    expect([...cached.get("H-new")!].map((x) => Math.round(x * 1000) / 1000)).toEqual([0.8, 0.6, 0, 0]);
    const [old] = await s.get({ ids: ["old0"], includeVectors: true });
    expect(old.windows[0].vector).toEqual(f32);
    expect((await s.integrity()).badVectors).toBe(0);
    await s.close();
  });

  it("pools a small index on a thread of its own to the same bits as on the caller's", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    const r = (i: number, j: number) => Math.fround(Math.sin(i * 7 + j * 3) / 2);
    await s.upsertNotes(
      Array.from({ length: 40 }, (_, i) => ({
        note: note(`n${i}.md`),
        records: [
          {
            ...record(`r${i}`, meta({ path: `n${i}.md`, hash: `H${i}` }), vec(1, 0, 0, 0)),
            // one to three windows a passage
            windows: Array.from({ length: 1 + (i % 3) }, (_, w) => ({
              hash: `H${i}.${w}`,
              vector: vec(r(i, w), r(i, w + 1), r(i, w + 2), r(i, w + 3)),
            })),
          },
        ],
      })),
    );
    // and a float32 row, as an earlier build wrote it
    const db = new Database(file);
    db.prepare("UPDATE windows SET vector = ? WHERE hash = 'H4.0'").run(
      Buffer.from(Float32Array.of(0.1, 0.2, 0.3, 0.4).buffer),
    );
    const here = pooledRows(db);
    const gen = db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get();
    db.close();
    const there = (await poolOffThread(file, EXACT_SCAN_LIMIT, 1000))!;
    expect(there.generation).toBe(String(gen));
    expect(there.dims).toBe(4);
    expect(there.rowids).toEqual(here.rowids);
    expect(Buffer.from(there.matrix.buffer).equals(Buffer.from(here.matrix.buffer))).toBe(true);
    // more passages than the limit: left to the caller
    expect(await poolOffThread(file, 10, 1000)).toBeUndefined();
    expect(await poolOffThread(`${file}.missing`, EXACT_SCAN_LIMIT, 1000)).toBeUndefined();
    // a search loaded that way answers as one built here
    await s.warmDense();
    const q = vec(0.3, -0.2, 0.4, 0.1);
    const hits = await s.queryDense(q, 10);
    await s.close();
    const r2 = SqliteStore.open(file);
    expect(await r2.queryDense(q, 10)).toEqual(hits);
    await r2.close();
  });

  it("keeps a large index's snapshot a cache of what is derived (no float rows): torn, foreign or damaged ones are ignored", async () => {
    const file = tmpDb();
    // 16 dimensions: the int8 scan's kernel takes rows of 16 bytes
    const s = await openStore(file, 16);
    const n = EXACT_SCAN_LIMIT + 200;
    const dir = (i: number) =>
      Float32Array.of(
        Math.cos(i / 100),
        Math.sin(i / 100),
        (i % 7) / 7,
        1,
        ...Array.from({ length: 12 }, (_, j) => ((i * j) % 5) / 5),
      );
    await s.upsertNotes(
      Array.from({ length: n }, (_, i) => ({
        note: note(`n${i}.md`),
        records: [record(`r${i}`, meta({ path: `n${i}.md` }), dir(i))],
      })),
    );
    const want = (await s.queryDense(dir(42), 3)).map((h) => h.id);
    expect(want[0]).toBe("r42");
    await s.close();
    // row ids, norms, scales and int8 rows: no float32 row (16 dimensions, 64 bytes a row)
    const snap = fs.readFileSync(`${file}.vectors`);
    expect(snap.length).toBe(snap.indexOf(10) + 1 + n * (4 + 4 + 4 + 16));
    const answers = async () => {
      const r = SqliteStore.open(file);
      for (let t = 0; t < 3; t++) expect((await r.queryDense(dir(42), 3)).map((h) => h.id)).toEqual(want);
      await r.close();
    };
    // torn
    fs.writeFileSync(`${file}.vectors`, snap.subarray(0, snap.length - 8));
    await answers();
    expect(fs.readFileSync(`${file}.vectors`).equals(snap)).toBe(true); // written anew
    // another index's (its key differs)
    const nl = snap.indexOf(10);
    const head = JSON.parse(snap.subarray(0, nl).toString()) as { key: string };
    const foreign = Buffer.concat([
      Buffer.from(JSON.stringify({ ...head, key: head.key.replace(/^[^:]+/, "00000000-0000-0000-0000-000000000000") })),
      snap.subarray(nl),
    ]);
    fs.writeFileSync(`${file}.vectors`, foreign);
    await answers();
    expect(fs.readFileSync(`${file}.vectors`).equals(snap)).toBe(true);
    // damaged in place, its length unchanged: its checksum fails, and the vectors come from the index
    const bad = Buffer.from(snap);
    bad.fill(0xff, nl + 1);
    fs.writeFileSync(`${file}.vectors`, bad);
    await answers();
    expect(fs.readFileSync(`${file}.vectors`).equals(snap)).toBe(true);
  });

  it("answers a dense query asked while its snapshot is read on another thread as the writer does, and closes during a read", async () => {
    const file = tmpDb();
    const w = SqliteStore.open(file, { create: true });
    await w.setManifest({
      schemaVersion: 1,
      embedder: {
        provider: "test",
        model: "t",
        dimensions: 16,
        documentPrefix: "",
        queryPrefix: "",
        normalized: false,
      },
      chunkerVersion: "x",
      createdAt: "",
      updatedAt: "",
    });
    // 16 dimensions and more rows than an exact scan takes: the snapshot has an int8 copy
    const dir = (i: number) =>
      Float32Array.from({ length: 16 }, (_, j) => Math.cos(i / 50 + j) + (j === i % 16 ? 1 : 0));
    await w.upsertNotes(
      Array.from({ length: EXACT_SCAN_LIMIT + 200 }, (_, i) => ({
        note: note(`n${i}.md`),
        records: [record(`r${i}`, meta({ path: `n${i}.md` }), dir(i))],
      })),
    );
    await w.warmDense();
    const want = await w.queryDense(dir(42), 20);
    await w.close();
    const r = SqliteStore.open(file);
    const loading = r.warmDense();
    expect(await r.queryDense(dir(42), 20)).toEqual(want);
    await loading;
    expect(await r.queryDense(dir(42), 20)).toEqual(want);
    await r.close();
    const closing = SqliteStore.open(file);
    void closing.warmDense();
    await closing.close(); // the read ends first, and its file is closed
  });

  it("removes a replaced or deleted note's rows from the external-content FTS index", async () => {
    const s = await openStore();
    await s.upsertNotes([
      {
        note: note("k/ramen.md"),
        records: [record("r0", meta({ path: "k/ramen.md", title: "ラーメン" }), vec(1, 0, 0, 0), "醤油ラーメン")],
      },
    ]);
    await s.upsertNotes([
      {
        note: note("k/ramen.md"),
        records: [record("r1", meta({ path: "k/ramen.md", title: "Ramen" }), vec(1, 0, 0, 0), "Shoyu tare only.")],
      },
    ]);
    expect(s.db.prepare("SELECT count(*) FROM fts WHERE fts MATCH '醤油'").pluck().get()).toBe(0);
    await s.deleteNotes(["k/ramen.md"]);
    expect(s.db.prepare("SELECT count(*) FROM fts WHERE fts MATCH 'shoyu'").pluck().get()).toBe(0);
    expect(s.db.prepare("SELECT count(*) FROM fts_docsize").pluck().get()).toBe(0);
    await s.close();
  });

  it("finds text in compatibility forms (ligatures, full-width letters) by their plain spelling, also in an index built before, once upgraded", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    const text = "The \ufb01le system and the \uff37\uff49\uff44\uff45 font.";
    await s.upsertNotes([
      { note: note("pdf.md"), records: [record("p0", meta({ path: "pdf.md" }), vec(1, 0, 0, 0), text)] },
    ]);
    const ids = async (st: SqliteStore, q: string) => (await st.queryKeyword(q, 5)).map((h) => h.id);
    expect(await ids(s, "file")).toEqual(["p0"]);
    expect(await ids(s, "\ufb01le")).toEqual(["p0"]);
    expect(await ids(s, "wide")).toEqual(["p0"]);
    // an index whose keyword text was written as it stands (before NFKC) is read again by `index`
    // (upgradeKeywordText), not by every open: a search does not wait for it
    s.db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
    s.db
      .prepare(
        "INSERT INTO fts (rowid, title, aliases, section, text) SELECT rowid, title, aliases, section, text FROM chunks",
      )
      .run();
    s.db.prepare("DELETE FROM meta WHERE key = 'keyword_text'").run();
    expect(await ids(s, "file")).toEqual([]);
    await s.close();
    const again = SqliteStore.open(file);
    expect(await ids(again, "file")).toEqual([]);
    expect(await again.upgradeKeywordText()).toBe(true);
    expect(await ids(again, "file")).toEqual(["p0"]);
    expect(await again.upgradeKeywordText()).toBe(false);
    // its rows leave the keyword index whole when the note is deleted: no token of them is left
    await again.deleteNotes(["pdf.md"]);
    again.db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row')");
    expect(again.db.prepare("SELECT count(*) FROM temp.vocab").pluck().get()).toBe(0);
    await again.close();
  });

  it("cuts a keyword query without a filter to the same best rows, ties to the older row, as one with a filter every row passes", async () => {
    const s = await openStore();
    // 300 matching notes: 100 of each of three lengths, so many tie; inserted in scrambled order
    const ids = Array.from({ length: 300 }, (_, i) => (i * 7919) % 300);
    await s.upsertNotes(
      ids.map((i) => ({
        note: note(`n/${i}.md`),
        records: [
          record(
            `c${i}`,
            meta({ path: `n/${i}.md`, title: `note ${i}`, hash: `h${i}` }),
            vec(1, 0, 0, 0),
            `the starter ${"flour ".repeat(i % 3)}and water`,
          ),
        ],
      })),
    );
    const everyRow = { where: normaliseWhere({ word_count: { $gte: 0 } }) };
    for (const k of [1, 10, 150, 299, 400]) {
      const plain = await s.queryKeyword("starter flour", k);
      const filtered = await s.queryKeyword("starter flour", k, everyRow);
      expect(plain.map((r) => [r.id, r.distance])).toEqual(filtered.map((r) => [r.id, r.distance]));
      expect(plain).toHaveLength(Math.min(k, 300));
    }
    // within a tie, the row stored first comes first
    const all = await s.queryKeyword("starter flour", 300);
    const order = new Map(ids.map((i, n) => [`c${i}`, n]));
    for (let j = 1; j < all.length; j++)
      if (all[j].distance === all[j - 1].distance)
        expect(order.get(all[j].id)!).toBeGreaterThan(order.get(all[j - 1].id)!);
    await s.close();
  });

  it("counts what check verifies, and repairs a damaged file without embedding", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes(
      ["a", "b", "c"].map((n) => ({
        note: note(`${n}.md`),
        records: [record(`${n}0`, meta({ path: `${n}.md` }), vec(1, 0, 0, 0), `text about ${n}`)],
      })),
    );
    expect(await s.integrity()).toEqual({
      counts: { notes: 3, chunks: 3, vectors: 3, ftsRows: 3 },
      orphanVectors: 0,
      chunksWithoutVectors: 0,
      chunksWithoutNote: 0,
      ftsMismatch: false,
      badVectors: 0,
      notesWithoutChunks: [],
    });
    await s.close();
    // damage the file from outside the store: an orphan vector, a chunk without a vector, a vector
    // of the wrong length, a chunk whose note row is gone, and an emptied keyword index
    const raw = new Database(file);
    raw.prepare("INSERT INTO windows (chunk, hash, vector) VALUES (99999, 'orphan', zeroblob(16))").run();
    raw.prepare("DELETE FROM windows WHERE chunk = (SELECT rowid FROM chunks WHERE path = 'a.md')").run();
    raw
      .prepare("UPDATE windows SET vector = zeroblob(8) WHERE chunk = (SELECT rowid FROM chunks WHERE path = 'b.md')")
      .run();
    raw.prepare("DELETE FROM notes WHERE path = 'c.md'").run();
    raw.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
    raw.close();
    const d = SqliteStore.open(file);
    expect(await d.integrity()).toEqual({
      counts: { notes: 2, chunks: 3, vectors: 3, ftsRows: 0 },
      orphanVectors: 1,
      chunksWithoutVectors: 1,
      chunksWithoutNote: 1,
      ftsMismatch: true,
      badVectors: 1,
      notesWithoutChunks: [],
    });
    // a chunk without vectors (a.md) is pending, and kept
    expect(await d.repair()).toEqual({ orphanVectors: 1, droppedNotes: 2 });
    expect(await d.integrity()).toEqual({
      counts: { notes: 1, chunks: 1, vectors: 0, ftsRows: 1 },
      orphanVectors: 0,
      chunksWithoutVectors: 1,
      chunksWithoutNote: 0,
      ftsMismatch: false,
      badVectors: 0,
      notesWithoutChunks: [],
    });
    await d.close();
  });

  it("names a rebuild that rebuilds this very file: of its vault in the default place, else with --db", () => {
    const rebuild = (db: string) => indexCommand({ kind: "rebuild", db });
    expect(rebuild("/home/me/notes/.vault-rag/index.db")).toBe("vault-rag index /home/me/notes --full");
    expect(rebuild("/home/me/my notes/.vault-rag/index.db")).toBe("vault-rag index '/home/me/my notes' --full");
    expect(rebuild("/tmp/bad.db")).toBe("vault-rag index <vault> --full --db /tmp/bad.db");
    const e = damaged("/tmp/bad.db", new Error("file is not a database"));
    expect(e.message).toBe(
      "vault-rag: the index at /tmp/bad.db is damaged (file is not a database) — rebuild the index from the notes",
    );
    expect(e.fix).toEqual({ kind: "rebuild", db: "/tmp/bad.db" });
    expect(cliMessage(e)).toBe(
      "vault-rag: the index at /tmp/bad.db is damaged (file is not a database) — run `vault-rag index <vault> --full --db /tmp/bad.db` to rebuild it from the notes",
    );
  });

  it("gives every linking note's first sentence a place in a full backlink document", async () => {
    const s = await openStore();
    const to = (text: string) => ({ written: "go", target: "go.md", text });
    // one note says 130,000 characters about go.md, more than a document holds; another says one word later
    const many = Array.from({ length: 325 }, (_, i) =>
      to(`sentence ${i} ${"word ".repeat(78)}${i === 324 ? "zanzibar" : ""}`),
    );
    await s.upsertNotes([
      { note: note("go.md"), records: [record("g0", meta({ path: "go.md" }), vec(1, 0, 0, 0), "a language")] },
      { note: note("spam.md"), records: [record("s0", meta({ path: "spam.md" }), vec(1, 0, 0, 0), "x")], links: many },
      {
        note: note("later.md"),
        records: [record("l0", meta({ path: "later.md" }), vec(1, 0, 0, 0), "y")],
        links: [to("plonkitude")],
      },
    ]);
    expect((await s.queryKeyword("plonkitude", 5, {}, { backlinks: 0.5 })).map((h) => h.id)).toEqual(["g0"]);
    // and the document stops at its cap: the last of the many sentences is not in it
    expect(await s.queryKeyword("zanzibar", 5, {}, { backlinks: 0.5 })).toEqual([]);
    await s.close();
  });

  it("drops on repair what a dropped note said of others (its backlink text)", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    const says = { written: "a", target: "a.md", text: "the levain loaf" };
    await s.upsertNotes([
      { note: note("a.md"), records: [record("a0", meta({ path: "a.md" }), vec(1, 0, 0, 0), "flour")] },
      { note: note("c.md"), records: [record("c0", meta({ path: "c.md" }), vec(1, 0, 0, 0), "diary")], links: [says] },
    ]);
    expect((await s.queryKeyword("levain", 5, {}, { backlinks: 0.5 })).map((h) => h.id)).toEqual(["a0"]);
    await s.close();
    const raw = new Database(file);
    raw.prepare("DELETE FROM notes WHERE path = 'c.md'").run();
    raw.close();
    const d = SqliteStore.open(file);
    expect(await d.repair()).toEqual({ orphanVectors: 0, droppedNotes: 1 });
    expect(await d.queryKeyword("levain", 5, {}, { backlinks: 0.5 })).toEqual([]);
    expect(await d.linkTexts()).toEqual(new Map());
    await d.close();
  });

  it("rebuilds the keyword index on repair, dropping nothing that is whole", async () => {
    const s = await openStore();
    await s.upsertNotes([
      {
        note: note("k/bread.md"),
        records: [record("b0", meta({ path: "k/bread.md" }), vec(1, 0, 0, 0), "levain and flour")],
      },
    ]);
    s.db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
    expect(await s.queryKeyword("levain", 5)).toEqual([]);
    expect((await s.integrity()).ftsMismatch).toBe(true);
    expect(await s.repair()).toEqual({ orphanVectors: 0, droppedNotes: 0 });
    expect((await s.queryKeyword("levain", 5)).map((h) => h.id)).toEqual(["b0"]);
    expect((await s.integrity()).ftsMismatch).toBe(false);
    await s.close();
  });

  it("keeps the Chroma sidecar's sync mark, without bumping the write generation", async () => {
    const s = await openStore();
    expect(await s.syncMark()).toBeUndefined();
    const generation = () => s.db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get();
    const before = generation();
    await s.setSyncMark("col-1:4");
    await s.setSyncMark("col-1:5");
    expect(await s.syncMark()).toBe("col-1:5");
    expect(generation()).toBe(before);
    await s.close();
  });

  it("says how to fix a missing index", () => {
    const file = path.join(path.dirname(tmpDb()), "missing.db");
    const e = (() => {
      try {
        SqliteStore.open(file);
      } catch (err) {
        return err as VaultRagError;
      }
    })();
    expect(e?.message).toBe(`vault-rag: no index at ${file} — index the vault first`);
    expect(e?.fix).toEqual({ kind: "index", db: file });
    expect(cliMessage(e!)).toBe(`vault-rag: no index at ${file} — run \`vault-rag index <vault> --db ${file}\` first`);
  });

  afterEach(stopChildren);

  it("lets two processes read while one writes", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([{ note: note("a.md"), records: [record("a0", meta({ path: "a.md" }), vec(1, 0, 0, 0))] }]);
    const storeModule = path.resolve("src/store/index.ts");
    const signals = path.dirname(file);
    // each reader reads until the writer is done, noting the note counts it saw; it writes the last
    // count it saw to seen-<id>, so that the writer can wait for it
    const reader = `
      import fs from "node:fs";
      import { SqliteStore } from ${JSON.stringify(storeModule)};
      const [id] = process.argv.slice(2);
      const s = SqliteStore.open(${JSON.stringify(file)});
      const seen = new Set();
      let n = 0;
      do {
        const hits = await s.queryDense(new Float32Array([1,0,0,0]), 5);
        if (hits.length < 1) throw new Error("empty");
        const count = (await s.count()).notes;
        if (!seen.has(count)) fs.writeFileSync(${JSON.stringify(signals)} + "/seen-" + id, String(count));
        seen.add(count);
        n++;
      } while (!fs.existsSync(${JSON.stringify(signals)} + "/written"));
      console.log(JSON.stringify({ n, seen: [...seen] }));`;
    const scriptFile = path.join(signals, "reader.mts"); // ESM: the reader awaits at top level
    fs.writeFileSync(scriptFile, reader);
    const exits: string[] = [];
    const run = (id: number) =>
      new Promise<{ n: number; seen: number[] }>((resolve, reject) => {
        const p = spawnChild(process.execPath, ["--import", "tsx", scriptFile, String(id)], {
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let errOut = "";
        p.stdout!.on("data", (d) => (out += d));
        p.stderr!.on("data", (d) => (errOut += d));
        p.on("close", (code) => {
          exits.push(`reader ${id} exited with code ${code}: ${errOut}`);
          if (code === 0) resolve(JSON.parse(out.trim()));
          else reject(new Error(errOut));
        });
      });
    const readers = [run(1), run(2)];
    readers.forEach((r) => r.catch(() => {})); // awaited below
    /** Waits until both readers have seen the index hold `notes` notes or more. */
    const bothSaw = (notes: number) =>
      until(
        `both readers to see ${notes} notes`,
        () =>
          [1, 2].every((id) => {
            const f = path.join(signals, `seen-${id}`);
            return fs.existsSync(f) && Number(fs.readFileSync(f, "utf8")) >= notes;
          }),
        () => exits[0],
      );
    await bothSaw(1); // both readers are in their loops
    // write while they read; they see the index change under them (at 2 notes, and at 26 or more)
    for (let i = 0; i < 50; i++) {
      await s.upsertNotes([
        { note: note(`w${i}.md`), records: [record(`w${i}`, meta({ path: `w${i}.md` }), vec(0, 1, 0, 0))] },
      ]);
      if (i === 0 || i === 24) await bothSaw(i + 2);
    }
    fs.writeFileSync(path.join(signals, "written"), "");
    const results = await Promise.all(readers);
    for (const r of results) {
      expect(r.n).toBeGreaterThan(0);
      // the reader saw the index change under it: reads and writes overlapped
      expect(r.seen.length, `counts seen: ${r.seen.join(", ")}`).toBeGreaterThan(2);
      expect(Math.min(...r.seen)).toBeLessThan(51);
    }
    expect((await s.count()).notes).toBe(51);
    await s.close();
  });
});
