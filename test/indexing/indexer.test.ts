import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useLiteEmbedder, type Embedder } from "../../src/embed/index.js";
import { indexVault } from "../../src/indexing/index.js";
import { SqliteStore } from "../../src/store/index.js";
import { CHUNKER_VERSION } from "../../src/chunk/index.js";
import { collectingLogger } from "../../src/log.js";
import { loadTokenizer } from "../../src/embed/use-lite/model.js";
import { indexPhases } from "../../src/core/status.js";
import { phasesLine } from "../../src/render/phases.js";

/** The real bundled model, counting what it is asked to embed, failing on the chosen call. */
function instrumented(failOnCall?: number): Embedder & { texts: string[]; calls: number } {
  const real = useLiteEmbedder();
  const e = {
    ...real,
    texts: [] as string[],
    calls: 0,
    async embedDocuments(texts: string[], onProgress?: Parameters<Embedder["embedDocuments"]>[1], labels?: string[]) {
      e.calls++;
      if (e.calls === failOnCall) throw new Error("model crashed on this batch");
      e.texts.push(...texts);
      return real.embedDocuments(texts, onProgress, labels);
    },
  };
  return e;
}

function vault(notes: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-indexer-"));
  for (let i = 0; i < notes; i++) {
    // every third note repeats another's text and title: the same chunks under other paths
    const k = i % 3 === 2 ? i - 1 : i;
    fs.writeFileSync(
      path.join(dir, `n${String(i).padStart(3, "0")}.md`),
      `---\ntitle: Note ${k}\n---\n# Part\n\nNote ${k} is about motor ${k} and the battery that drives it through a gearbox.\n`,
    );
  }
  return dir;
}

describe("indexing pipeline", () => {
  it("embeds each distinct text once whatever the notes' batch size, and stores what one batch would", async () => {
    const dir = vault(30);
    const small = instrumented();
    const s1 = await indexVault(dir, path.join(dir, "a.db"), small, { batchNotes: 2 });
    const whole = instrumented();
    const s2 = await indexVault(dir, path.join(dir, "b.db"), whole, { batchNotes: 1000 });
    // 15 keyword batches of 2 notes; the dense phase embeds each distinct window once
    expect(new Set(small.texts).size).toBe(small.texts.length);
    expect(small.texts.length).toBe(whole.texts.length);
    expect(s1).toMatchObject({ added: 30, embedded: whole.texts.length, failed: 0 });
    expect(s1.chunks).toBe(s2.chunks);
    const a = SqliteStore.open(path.join(dir, "a.db"));
    const b = SqliteStore.open(path.join(dir, "b.db"));
    const rows = async (s: SqliteStore) =>
      (await s.get({ includeVectors: true })).map((r) => [r.id, r.windows.map((w) => Array.from(w.vector))]).sort();
    expect(await rows(a)).toEqual(await rows(b));
    expect((await a.get({})).length).toBe(30);
    await a.close();
    await b.close();
  });

  it("keeps every note keyword-searchable when embedding fails, and the next run embeds what is missing", async () => {
    const dir = vault(12);
    const failing = instrumented(1);
    await expect(indexVault(dir, path.join(dir, "c.db"), failing, { batchNotes: 4 })).rejects.toThrow(
      "model crashed on this batch",
    );
    const c = SqliteStore.open(path.join(dir, "c.db"));
    expect((await c.notes()).size).toBe(12);
    expect((await c.queryKeyword("battery", 20)).length).toBeGreaterThan(0);
    expect((await c.vectorCoverage()).withVectors).toBe(0);
    await c.close();
    const resumed = instrumented();
    const s = await indexVault(dir, path.join(dir, "c.db"), resumed, { batchNotes: 4 });
    expect(s).toMatchObject({ added: 0, pending: 0 });
    expect(resumed.texts.length).toBeGreaterThan(0);
    const done = SqliteStore.open(path.join(dir, "c.db"));
    const coverage = await done.vectorCoverage();
    expect(coverage.withVectors).toBe(coverage.chunks);
    await done.close();
  });

  it("stores a passage longer than the model's window as several windows, each read whole", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-windows-"));
    const para = Array.from(
      { length: 9 },
      (_, i) => `Step ${i}: run \`git diff --exit-code README.md\` and read $? in the script.`,
    ).join(" ");
    fs.writeFileSync(
      path.join(dir, "check-if-a-file-has-changed.md"),
      `# Check If A File Has Changed\n\n## In a script\n\n${para}\n`,
    );
    const e = instrumented();
    const s = await indexVault(dir, path.join(dir, "w.db"), e);
    const store = SqliteStore.open(path.join(dir, "w.db"));
    const [rec] = await store.get({ includeVectors: true });
    expect(s.chunks).toBe(1);
    expect(rec.text).toContain(para);
    expect(rec.windows.length).toBeGreaterThan(1);
    expect(s.embedded).toBe(rec.windows.length);
    const tok = loadTokenizer();
    for (const t of e.texts) {
      expect(tok.encode(t).length).toBeLessThanOrEqual(128);
      // each window opens with the headings below the title; the title itself is a keyword field only
      expect(t.startsWith("In a script\n")).toBe(true);
      expect(t).not.toContain("Check If A File Has Changed");
    }
    await store.close();
  });

  it("upgrades an index cut by an older chunker on the next run, embedding only windows whose text changed, and finishes an interrupted upgrade", async () => {
    const dir = vault(12);
    const db = path.join(dir, "u.db");
    await indexVault(dir, db, instrumented(), { batchNotes: 4 });
    const pretendOld = async () => {
      const s = SqliteStore.open(db);
      await s.setManifest({ ...(await s.manifest())!, chunkerVersion: "3" });
      await s.close();
    };
    // same cut, older version: every note is re-chunked, nothing is embedded again
    await pretendOld();
    const again = instrumented();
    expect(await indexVault(dir, db, again, { batchNotes: 4 })).toMatchObject({
      updated: 12,
      unchanged: 0,
      embedded: 0,
    });
    expect(again.texts).toEqual([]);
    // an upgrade that changes the cut, stopped after its first batch...
    await pretendOld();
    for (let i = 0; i < 12; i++) fs.appendFileSync(path.join(dir, `n${String(i).padStart(3, "0")}.md`), "");
    // 8-word pieces, each kept apart (minWords 0): a new cut, whose vectors the model must make
    const crash = instrumented(1);
    await expect(indexVault(dir, db, crash, { batchNotes: 4, chunk: { maxWords: 8, minWords: 0 } })).rejects.toThrow(
      "model crashed on this batch",
    );
    // ...has re-chunked every note in its keyword phase (the manifest says so), vectors still to come
    const mid = SqliteStore.open(db);
    expect((await mid.manifest())!.chunkerVersion).toBe(CHUNKER_VERSION);
    const cut = await mid.vectorCoverage();
    expect(cut.withVectors).toBeLessThan(cut.chunks);
    await mid.close();
    // ...and is finished by the next run, which embeds the passages without vectors
    const resumed = await indexVault(dir, db, instrumented(), { batchNotes: 4, chunk: { maxWords: 8, minWords: 0 } });
    expect(resumed).toMatchObject({ unchanged: 12, pending: 0 });
    const done = SqliteStore.open(db);
    const coverage = await done.vectorCoverage();
    expect(coverage.withVectors).toBe(coverage.chunks);
    await done.close();
  });

  it("moves an index of storage version 2 (one vector per chunk) to windows in place, embedding nothing again", async () => {
    const dir = vault(6);
    const db = path.join(dir, "v2.db");
    await indexVault(dir, db, instrumented());
    // rewrite it as vault-rag 0.1 (storage version 2, chunker 3) left it
    const s = SqliteStore.open(db);
    s.db.exec(
      "CREATE TABLE vectors (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL); INSERT INTO vectors SELECT chunk, vector FROM windows; DROP TABLE windows;",
    );
    s.db
      .prepare(
        "UPDATE meta SET value = json_set(json_set(value, '$.schemaVersion', 2), '$.chunkerVersion', '3') WHERE key = 'manifest'",
      )
      .run();
    s.db.close();
    const e = instrumented();
    expect(await indexVault(dir, db, e)).toMatchObject({ updated: 6, embedded: 0, failed: 0 });
    const after = SqliteStore.open(db);
    expect(await after.manifest()).toMatchObject({ schemaVersion: 3, chunkerVersion: CHUNKER_VERSION });
    expect(after.db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'vectors'").pluck().get()).toBe(0);
    const recs = await after.get({ includeVectors: true });
    expect(recs.map((r) => r.windows.length)).toEqual([1, 1, 1, 1, 1, 1]);
    await after.close();
  });

  it("projects the windows to embed from the notes read so far, though a folder of large drawings of no words comes first by name", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-project-"));
    fs.mkdirSync(path.join(dir, "Excalidraw"));
    fs.mkdirSync(path.join(dir, "notes"));
    for (let i = 0; i < 40; i++) {
      // as the Excalidraw plugin saves a drawing of shapes alone: 40 KB of JSON, no passage
      const json = JSON.stringify({ type: "excalidraw", elements: Array.from({ length: 1500 }, (_, x) => ({ x, i })) });
      fs.writeFileSync(
        path.join(dir, "Excalidraw", `D${i}.excalidraw.md`),
        `---\nexcalidraw-plugin: parsed\n---\n==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n\n# Text Elements\n%%\n# Drawing\n\`\`\`json\n${json}\n\`\`\`\n%%\n`,
      );
      fs.writeFileSync(
        path.join(dir, "notes", `N${i}.md`),
        `# Motor ${i}\n\nMotor ${i} drives track ${i} through a small gearbox, geared down for torque on rough ground.\n`,
      );
    }
    const totals: number[] = [];
    const s = await indexVault(dir, path.join(dir, "index.db"), instrumented(), {
      batchNotes: 16,
      onProgress: (phase, _done, total) => phase === "embed" && totals.push(total),
    });
    expect(s).toMatchObject({ added: 80, failed: 0 });
    expect(totals.at(-1)).toBe(s.embedded);
    // by bytes in the vault's order, the notes read after the drawings would be projected over the
    // little left to read (0, 8 and 24 of 40); in hash order each projection is within 60–150% of the end
    const off = totals.filter((t) => t < 0.6 * s.embedded || t > 1.5 * s.embedded);
    expect(off).toEqual([]);
  });
});

describe("the dense phase's order", () => {
  it("embeds the denseFirst folders' notes first, then the most recently changed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-dense-order-"));
    const notes: [string, number][] = [
      ["old.md", 1_000],
      ["recent.md", 9_000],
      ["middle.md", 5_000],
      ["Projects/plan.md", 2_000],
      ["Projects/deep/spec.md", 3_000],
      ["Inbox/idea.md", 8_000],
    ];
    for (const [p, t] of notes) {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      const word = path.basename(p, ".md");
      fs.writeFileSync(path.join(dir, p), `# ${word}\n\nThe ${word} note holds its own sentence about ${word}.\n`);
      fs.utimesSync(path.join(dir, p), t, t);
    }
    fs.writeFileSync(path.join(dir, ".vault-rag.json"), '{"denseFirst": ["Projects"]}');
    const e = instrumented();
    await indexVault(dir, path.join(dir, "o.db"), e);
    const order = e.texts.map((t) => notes.find(([p]) => t.includes(`The ${path.basename(p, ".md")} note`))![0]);
    expect(order).toEqual([
      "Projects/deep/spec.md",
      "Projects/plan.md",
      "recent.md",
      "Inbox/idea.md",
      "middle.md",
      "old.md",
    ]);
  });

  it("records the folders it puts first, which `status` shows for a stopped phase", async () => {
    const dir = vault(120);
    fs.mkdirSync(path.join(dir, "Inbox"));
    fs.writeFileSync(path.join(dir, "Inbox", "idea.md"), "# Idea\n\nA fresh idea about gearboxes.\n");
    fs.writeFileSync(path.join(dir, ".vault-rag.json"), '{"denseFirst": ["Inbox/"]}');
    // the first batch (64 windows) is stored, the second fails: the phase stops with its record
    await expect(indexVault(dir, path.join(dir, "s.db"), instrumented(2))).rejects.toThrow("model crashed");
    const store = SqliteStore.open(path.join(dir, "s.db"));
    const phases = await indexPhases(store, false);
    expect(phases.dense).toMatchObject({ state: "stopped", first: ["Inbox"] });
    expect(phases.dense.passages).toBeGreaterThan(0);
    expect(phasesLine(phases, "vault-rag index")).toMatch(
      /dense: \d+% \([\d,]+\/[\d,]+ passages\), stopped — run `vault-rag index` to finish · Inbox\/ first, then the most recently changed$/,
    );
    await store.close();
  });
});

describe("backlink text", () => {
  it("says once which notes the model has no tokens for, and nothing for notes it reads", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-unread-"));
    fs.writeFileSync(
      path.join(dir, "テーマ.md"),
      "# テーマ\n\n外観からテーマを変更できます。コミュニティテーマを閲覧する。\n",
    );
    fs.writeFileSync(path.join(dir, "同期.md"), "# 同期\n\nデバイス間でノートを同期する。\n");
    fs.writeFileSync(path.join(dir, "Themes.md"), "# Themes\n\nBrowse community themes under Appearance.\n");
    const log = collectingLogger();
    await indexVault(dir, path.join(dir, "i.db"), useLiteEmbedder(), { log });
    expect(log.warnings.filter((w) => w.code === "script_unread")).toEqual([
      {
        code: "script_unread",
        message: `vault-rag: 2 notes are mostly in characters the model use-lite:universal-sentence-encoder-lite has no tokens for ("テーマ.md", "同期.md"): the dense ranking cannot tell them apart, so searches find them by their words — a multilingual model (such as ollama:bge-m3) reads them: rebuild the index with it`,
        detail: { notes: 2 },
      },
    ]);
    // unchanged notes are not read again, and not told again
    const again = collectingLogger();
    await indexVault(dir, path.join(dir, "i.db"), useLiteEmbedder(), { log: again });
    expect(again.warnings).toEqual([]);
  });

  it("files each link's sentence under the note it points to, resolves links to notes created later, and drops the text when the link goes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-backlinks-"));
    const db = path.join(dir, ".vault-rag", "index.db");
    fs.mkdirSync(path.join(dir, "kitchen"));
    fs.writeFileSync(path.join(dir, "kitchen", "Bread.md"), "# Bread\n\nFlour, water and salt, baked hot.\n");
    fs.writeFileSync(
      path.join(dir, "Diary.md"),
      "# Diary\n\nMy [[Bread|levain loaf]] rose overnight. The [[Starter]] wants feeding on rye.\n",
    );
    const embedder = useLiteEmbedder();
    await indexVault(dir, db, embedder);
    const linked = async (word: string) => {
      const s = SqliteStore.open(db, { readonly: true });
      const hits = await s.queryKeyword(word, 10, {}, { backlinks: 0.5 });
      await s.close();
      return [...new Set(hits.map((h) => h.meta.path))];
    };
    // the diary holds the words itself; Bread holds none of them, and is found by what the diary says of it
    expect((await linked("levain")).sort()).toEqual(["Diary.md", "kitchen/Bread.md"]);
    // "rye" is said of Starter, which no note is yet: only the diary itself holds the word
    expect(await linked("rye")).toEqual(["Diary.md"]);
    // the note is created; the diary, unchanged, is not re-read, yet its words now count for Starter
    fs.writeFileSync(path.join(dir, "kitchen", "Starter.md"), "# Starter\n\nFlour and water, kept warm.\n");
    const s2 = await indexVault(dir, db, embedder);
    expect(s2).toMatchObject({ added: 1, unchanged: 2 });
    expect((await linked("rye")).sort()).toEqual(["Diary.md", "kitchen/Starter.md"]);
    // the diary edited without its links: nothing it said stays behind
    fs.writeFileSync(path.join(dir, "Diary.md"), "# Diary\n\nMy levain loaf rose overnight, fed on rye.\n");
    fs.utimesSync(path.join(dir, "Diary.md"), new Date(), new Date(Date.now() + 5000));
    await indexVault(dir, db, embedder);
    expect(await linked("levain")).toEqual(["Diary.md"]);
    expect(await linked("rye")).toEqual(["Diary.md"]);
    // a linking note renamed: its links move with it, once, and Starter's text comes back
    fs.writeFileSync(path.join(dir, "Diary.md"), "# Diary\n\nThe [[Starter]] wants feeding on rye.\n");
    fs.utimesSync(path.join(dir, "Diary.md"), new Date(), new Date(Date.now() + 10_000));
    await indexVault(dir, db, embedder);
    fs.renameSync(path.join(dir, "Diary.md"), path.join(dir, "Journal.md"));
    await indexVault(dir, db, embedder);
    const s = SqliteStore.open(db, { readonly: true });
    expect(await s.linkTexts()).toEqual(
      new Map([
        [
          "Journal.md",
          [
            {
              written: "Starter",
              target: "kitchen/Starter.md",
              text: "The Starter wants feeding on rye.",
              display: "Starter",
            },
          ],
        ],
      ]),
    );
    await s.close();
    expect((await linked("rye")).sort()).toEqual(["Journal.md", "kitchen/Starter.md"]);
    // the linked note deleted: nothing is said of a note that is gone
    fs.rmSync(path.join(dir, "kitchen", "Starter.md"));
    await indexVault(dir, db, embedder);
    expect(await linked("rye")).toEqual(["Journal.md"]);
  });
});
