import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useLiteEmbedder, type Embedder } from "../../src/embed/index.js";
import { indexVault } from "../../src/index/index.js";
import { SqliteStore } from "../../src/store/index.js";

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
    fs.writeFileSync(path.join(dir, `n${String(i).padStart(3, "0")}.md`), `---\ntitle: Note ${k}\n---\n# Part\n\nNote ${k} is about motor ${k} and the battery that drives it through a gearbox.\n`);
  }
  return dir;
}

describe("indexing pipeline", () => {
  it("embeds each distinct text once while batches overlap, and stores what one batch would", async () => {
    const dir = vault(30);
    const small = instrumented();
    const s1 = await indexVault(dir, path.join(dir, "a.db"), small, { batchNotes: 2 });
    const whole = instrumented();
    const s2 = await indexVault(dir, path.join(dir, "b.db"), whole, { batchNotes: 1000 });
    expect(small.calls).toBeGreaterThan(5); // many batches, so texts were in flight across them
    expect(new Set(small.texts).size).toBe(small.texts.length);
    expect(small.texts.length).toBe(whole.texts.length);
    expect(s1).toMatchObject({ added: 30, embedded: whole.texts.length, failed: 0 });
    expect(s1.chunks).toBe(s2.chunks);
    const a = SqliteStore.open(path.join(dir, "a.db"));
    const b = SqliteStore.open(path.join(dir, "b.db"));
    const rows = async (s: SqliteStore) => (await s.get({ includeVectors: true })).map((r) => [r.id, Array.from(r.vector)]).sort();
    expect(await rows(a)).toEqual(await rows(b));
    expect((await a.get({})).length).toBe(30);
    await a.close();
    await b.close();
  });

  it("stops at a batch whose embedding fails, keeping the batches before it", async () => {
    const dir = vault(12);
    const failing = instrumented(3);
    await expect(indexVault(dir, path.join(dir, "c.db"), failing, { batchNotes: 4 })).rejects.toThrow("model crashed on this batch");
    const c = SqliteStore.open(path.join(dir, "c.db"));
    expect((await c.notes()).size).toBe(8);
    await c.close();
    const resumed = instrumented();
    const s = await indexVault(dir, path.join(dir, "c.db"), resumed, { batchNotes: 4 });
    expect(s).toMatchObject({ added: 4, unchanged: 8 });
  });
});
