import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { until } from "../support/children.js";
import { chunkNote } from "../../src/chunk/index.js";
import { collectingLogger, type Logger } from "../../src/log.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { watchVault, type IndexSummary } from "../../src/indexing/index.js";
import { SqliteStore } from "../../src/store/index.js";
import { readNote, walkVault } from "../../src/vault/index.js";

/** What a clean build would hold: every chunk id of every note on disk. */
function expectedIds(vault: string): string[] {
  return walkVault(vault)
    .flatMap((f) => chunkNote(readNote(f)!))
    .map((c) => c.id)
    .sort();
}
async function indexedIds(db: string): Promise<string[]> {
  const s = SqliteStore.open(db);
  const ids = (await s.get({})).map((r) => r.id).sort();
  await s.close();
  return ids;
}
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A logger that keeps the watcher's debug lines (`vault-rag watch: change three.md`): the changes it has seen. */
function seenLog(): { log: Logger; seen: string[] } {
  const seen: string[] = [];
  return { seen, log: { warn() {}, info() {}, debug: (m) => seen.push(m) } };
}
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** Waits until the watcher has brought the index to what the vault holds, and is idle. */
async function synced(w: { idle(): Promise<void> }, vault: string, db: string): Promise<void> {
  await until("the index to match the vault", async () => same(await indexedIds(db), expectedIds(vault)));
  await w.idle();
}
/** Waits until `list` (a watcher's batch reports) holds `n` entries, and the watcher is idle. */
async function batchesDone(w: { idle(): Promise<void> }, list: unknown[], n: number): Promise<void> {
  await until(`${n} batches`, () => list.length >= n);
  await w.idle();
}

describe("watch mode", () => {
  it("converges after edits, additions, deletions, moves, temp-file saves and a burst of 300 files", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-watch-")), "v");
    fs.mkdirSync(path.join(vault, "a"), { recursive: true });
    fs.writeFileSync(path.join(vault, "a/one.md"), "# One\n\nThe first note, about motors and wiring.\n");
    fs.writeFileSync(path.join(vault, "two.md"), "# Two\n\nThe second note, about bread.\n");
    const db = path.join(vault, ".vault-rag/index.db");
    const batches: IndexSummary[] = [];
    const counts: number[] = []; // the paths each batch's file events named
    const w = await watchVault(vault, db, useLiteEmbedder(), {
      debounceMs: 150,
      onBatch: (s, n) => (batches.push(s), counts.push(n)),
    });
    await w.idle();
    expect(await indexedIds(db)).toEqual(expectedIds(vault));

    fs.appendFileSync(path.join(vault, "a/one.md"), "\n## More\n\nA new section about the DRV8833 driver.\n");
    fs.writeFileSync(path.join(vault, "three.md"), "# Three\n\nA brand new note.\n");
    fs.rmSync(path.join(vault, "two.md"));
    // an editor saving through a temp file and a rename
    fs.writeFileSync(path.join(vault, ".three.md.tmp"), "# Three\n\nA brand new note, saved again.\n");
    fs.renameSync(path.join(vault, ".three.md.tmp"), path.join(vault, "three.md"));
    await synced(w, vault, db);
    expect(await indexedIds(db)).toEqual(expectedIds(vault));

    // a move keeps its vectors: nothing is embedded
    fs.mkdirSync(path.join(vault, "archive"));
    fs.renameSync(path.join(vault, "a/one.md"), path.join(vault, "archive/one.md"));
    batches.length = 0;
    await synced(w, vault, db);
    expect(await indexedIds(db)).toEqual(expectedIds(vault));
    expect(batches.reduce((n, b) => n + b.embedded, 0)).toBe(0);
    expect(batches.reduce((n, b) => n + b.added + b.deleted, 0)).toBe(2);

    // a rename that changes the file name (and so the title) re-points the vectors too
    fs.renameSync(path.join(vault, "archive/one.md"), path.join(vault, "archive/First note.md"));
    batches.length = 0;
    await synced(w, vault, db);
    expect(await indexedIds(db)).toEqual(expectedIds(vault));
    expect(batches.reduce((n, b) => n + b.embedded, 0)).toBe(0);
    const s = SqliteStore.open(db);
    expect((await s.get({ path: "archive/First note.md" })).map((r) => r.meta.title)).toEqual(["First note"]);
    await s.close();

    // one note saved three times over, then a folder removed with its note: each batch counts the
    // notes it was told of, once each (the file events were up to 3, and 2)
    counts.length = 0;
    const before = batches.length;
    for (let i = 0; i < 3; i++) {
      fs.appendFileSync(path.join(vault, "three.md"), `\nSaved ${i} times.\n`);
      // apart, so that chokidar (which drops a change that comes within 5 ms of the one before)
      // may report each save; the assertions hold however many it reports, and in however many
      // batches the saves fall (a busy machine may pass the 150 ms debounce between two)
      await pause(30);
    }
    await synced(w, vault, db);
    const saves = counts.length;
    expect(saves).toBeGreaterThanOrEqual(1);
    fs.mkdirSync(path.join(vault, "gone"));
    fs.writeFileSync(path.join(vault, "gone", "four.md"), "# Four\n\nShort-lived.\n");
    await batchesDone(w, counts, saves + 1);
    fs.rmSync(path.join(vault, "gone"), { recursive: true });
    await batchesDone(w, counts, saves + 2);
    expect(counts).toEqual(Array.from({ length: saves + 2 }, () => 1));
    expect(batches.slice(before).map((b) => [b.updated, b.added, b.deleted])).toEqual([
      ...Array.from({ length: saves }, () => [1, 0, 0]),
      [0, 1, 0],
      [0, 0, 1],
    ]);

    // a burst, like a git checkout
    fs.mkdirSync(path.join(vault, "burst"));
    for (let i = 0; i < 300; i++)
      fs.writeFileSync(
        path.join(vault, "burst", `n${i}.md`),
        `# Note ${i}\n\nBurst note number ${i} about ${i % 2 ? "robots" : "gardens"}.\n`,
      );
    await synced(w, vault, db);
    const ids = await indexedIds(db);
    expect(ids).toEqual(expectedIds(vault));
    expect(new Set(ids).size).toBe(ids.length); // no duplicates
    await w.close();
  });

  it("removes a note that another process indexed and that was deleted before the watcher saw it made", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-watch-brief-")), "v");
    fs.mkdirSync(path.join(vault, "travel"), { recursive: true });
    fs.writeFileSync(path.join(vault, "travel/Perth.md"), "# Perth\n\nA city on the Swan River.\n");
    const db = path.join(vault, ".vault-rag/index.db");
    const w = await watchVault(vault, db, useLiteEmbedder(), { debounceMs: 150 });
    await w.idle();
    // all in one turn of this thread, so the watcher reads the folder only once the note is gone:
    // it never learns of the note, which the other process's index holds
    fs.writeFileSync(path.join(vault, "travel/Rottnest.md"), "# Rottnest\n\nAn island of quokkas.\n");
    const other = spawnSync(process.execPath, [path.resolve("dist/cli/main.js"), "index", vault, "--quiet"], {
      encoding: "utf8",
    });
    fs.rmSync(path.join(vault, "travel/Rottnest.md"));
    expect(other.status, other.stderr).toBe(0);
    expect((await indexedIds(db)).length).toBe(expectedIds(vault).length + 1);
    await synced(w, vault, db);
    await w.close();
  });

  it("gives a warning once, not again on each pass that finds the same file as it was, and again when it is new", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-watch-warn-")), "v");
    fs.mkdirSync(vault, { recursive: true });
    fs.writeFileSync(path.join(vault, "photo.md"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    fs.writeFileSync(path.join(vault, "one.md"), "# One\n\nA note about motors.\n");
    const log = collectingLogger();
    const batches: IndexSummary[] = [];
    const w = await watchVault(vault, path.join(vault, ".vault-rag/index.db"), useLiteEmbedder(), {
      debounceMs: 150,
      log,
      onBatch: (s) => batches.push(s),
    });
    await w.idle();
    const skipped = () => log.warnings.filter((x) => x.code === "note_skipped").map((x) => x.detail?.path);
    expect(skipped()).toEqual(["photo.md"]);
    // two more passes, each reading the whole vault again: the binary file is not warned about again
    for (const text of ["A note about motors and wiring.", "A note about motors, wiring and batteries."]) {
      const before = batches.length;
      fs.writeFileSync(path.join(vault, "one.md"), `# One\n\n${text}\n`);
      await batchesDone(w, batches, before + 1);
    }
    expect(batches.length).toBeGreaterThanOrEqual(3);
    expect(skipped()).toEqual(["photo.md"]);
    // a second binary file is new: it is warned about, the first still not
    const before = batches.length;
    fs.writeFileSync(path.join(vault, "scan.md"), Buffer.from([0x25, 0x50, 0x00, 0x02]));
    await batchesDone(w, batches, before + 1);
    expect(skipped()).toEqual(["photo.md", "scan.md"]);
    await w.close();
  });

  it("stops a pass under way when closed, after the batch it was storing, and the next run goes on from there; idle() resolves after close", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-watch-close-")), "v");
    fs.mkdirSync(vault, { recursive: true });
    for (let i = 0; i < 400; i++)
      fs.writeFileSync(
        path.join(vault, `n${i}.md`),
        `# Note ${i}\n\nNote number ${i} is about ${i % 3 ? "robots and their motors" : "gardens and their soil"}, at some length so that it takes the model a while.\n`,
      );
    const db = path.join(vault, ".vault-rag/index.db");
    const batches: IndexSummary[] = [];
    let onSaved: () => void = () => {};
    const firstSaved = new Promise<void>((r) => (onSaved = r));
    const errors: unknown[] = [];
    const w = await watchVault(vault, db, useLiteEmbedder(), {
      onBatch: (s) => batches.push(s),
      onError: (e) => errors.push(e),
      onProgress: (phase, done) => phase === "saved" && done > 0 && onSaved(),
    });
    // the first pass (all 400 notes) has stored its first batch of vectors: close now
    await firstSaved;
    await w.close();
    // it stopped without finishing, without a batch report or an error
    expect(batches).toEqual([]);
    expect(errors).toEqual([]);
    // its keyword phase stored every note; some passages still wait for their vectors
    const s = SqliteStore.open(db);
    expect((await s.count()).notes).toBe(400);
    const cut = await s.vectorCoverage();
    await s.close();
    expect(cut.withVectors).toBeGreaterThanOrEqual(1);
    expect(cut.withVectors).toBeLessThan(cut.chunks);
    // the next pass embeds the rest only: every note is unchanged
    const again = await watchVault(vault, db, useLiteEmbedder(), { onBatch: (b) => batches.push(b) });
    await again.idle();
    await again.close();
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ added: 0, unchanged: 400, pending: 0 });
    expect(await indexedIds(db)).toEqual(expectedIds(vault));
    const done = SqliteStore.open(db);
    const coverage = await done.vectorCoverage();
    await done.close();
    expect(coverage.withVectors).toBe(coverage.chunks);
    // closed with a change seen and not yet passed over: idle() still resolves
    const lastLog = seenLog();
    const last = await watchVault(vault, db, useLiteEmbedder(), { debounceMs: 5_000, log: lastLog.log });
    await last.idle();
    fs.writeFileSync(path.join(vault, "late.md"), "# Late\n\nWritten just before the close.\n");
    await until("the watcher to see late.md", () => lastLog.seen.some((m) => m.endsWith(" late.md")));
    const waited = last.idle();
    await last.close();
    await waited; // (a wait that never ends fails on the test's timeout)
  });
});
