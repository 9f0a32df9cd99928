import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder, type Embedder } from "../../src/embed/index.js";
import { indexVault } from "../../src/indexing/index.js";
import { SqliteStore } from "../../src/store/index.js";
import { CHUNKER_VERSION } from "../../src/chunk/index.js";
import { TINY_DIMS, writeTinyBert } from "../embed/tiny-bert.js";

/**
 * A model whose dimensions are known only once it is loaded (Transformers.js: the tiny BERT that
 * tiny-bert.ts writes, read offline from a temporary folder), indexed across a chunker upgrade.
 */
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-manifest-dims-"));
  writeTinyBert(path.join(root, "models"), "vault-rag/tiny-bert");
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A new, unloaded embedder, as each `index` run has: its dimensions are 0 until its first embed. */
function unloaded(): Embedder {
  const e = createEmbedder("transformers:vault-rag/tiny-bert", { modelDir: path.join(root, "models"), offline: true });
  expect(e.dimensions).toBe(0);
  return e;
}

function vault(name: string): { dir: string; db: string } {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  for (const [file, text] of [
    ["robots.md", "# Robots\n\nThe robot motors drain the battery when the wheel turns.\n"],
    ["bread.md", "# Bread\n\nThe sourdough starter needs flour and water before the oven.\n"],
    ["garden.md", "# Garden\n\nThe tomato seed goes in the garden when the kitchen is warm.\n"],
  ])
    fs.writeFileSync(path.join(dir, file), text);
  return { dir, db: path.join(root, `${name}.db`) };
}

async function rewriteManifest(
  db: string,
  change: (m: NonNullable<Awaited<ReturnType<SqliteStore["manifest"]>>>) => void,
) {
  const s = SqliteStore.open(db);
  const m = (await s.manifest())!;
  change(m);
  await s.setManifest(m);
  await s.close();
}

async function stored(db: string) {
  const s = SqliteStore.open(db);
  try {
    return { dimensions: (await s.manifest())!.embedder.dimensions, coverage: await s.vectorCoverage() };
  } finally {
    await s.close();
  }
}

describe("the manifest of a model whose dimensions are known once it is loaded", () => {
  it("keeps the model's dimensions across a chunker upgrade, and the next run writes vectors", async () => {
    const { dir, db } = vault("upgrade");
    await indexVault(dir, db, unloaded());
    expect((await stored(db)).dimensions).toBe(TINY_DIMS);
    await rewriteManifest(db, (m) => (m.chunkerVersion = "3"));
    // the upgrade re-chunks every note and embeds nothing: the model is never loaded
    expect(await indexVault(dir, db, unloaded())).toMatchObject({ updated: 3, embedded: 0 });
    const after = await stored(db);
    expect(after.dimensions).toBe(TINY_DIMS);
    expect(after.coverage.withVectors).toBe(after.coverage.chunks);
    // a renamed note is stored with its cached vectors, checked against the manifest's dimensions
    fs.renameSync(path.join(dir, "robots.md"), path.join(dir, "machines.md"));
    fs.appendFileSync(path.join(dir, "bread.md"), "\n## Baking\n\nBake the bread in the oven with power to save.\n");
    expect(await indexVault(dir, db, unloaded())).toMatchObject({ added: 1, updated: 1, deleted: 1, failed: 0 });
    const next = await stored(db);
    expect(next.dimensions).toBe(TINY_DIMS);
    expect(next.coverage.withVectors).toBe(next.coverage.chunks);
  });

  it("heals a manifest that says 0 dimensions on the next run", async () => {
    const { dir, db } = vault("healed");
    await indexVault(dir, db, unloaded());
    await rewriteManifest(db, (m) => (m.embedder.dimensions = 0));
    fs.renameSync(path.join(dir, "garden.md"), path.join(dir, "plants.md"));
    expect(await indexVault(dir, db, unloaded())).toMatchObject({ added: 1, deleted: 1, failed: 0 });
    const after = await stored(db);
    expect(after.dimensions).toBe(TINY_DIMS);
    expect(after.coverage.withVectors).toBe(after.coverage.chunks);
    const s = SqliteStore.open(db);
    expect((await s.manifest())!.chunkerVersion).toBe(CHUNKER_VERSION);
    await s.close();
  });
});
