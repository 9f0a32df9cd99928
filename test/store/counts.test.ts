import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/store/index.js";
import { meta, openStore, record, tmpDb, vec } from "./helpers.js";

const note = (p: string) => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const rec = (p: string, i: number, withVector = true) => {
  const r = record(`${p}#${i}`, meta({ path: p, ordinal: i }), vec(1, i, 0, 0));
  return withVector ? r : { ...r, windows: [] };
};

/** The counts the file keeps in `meta`, as JSON, or undefined. */
const kept = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    const v = db.prepare("SELECT value FROM meta WHERE key = 'counts'").pluck().get() as string | undefined;
    return v === undefined ? undefined : (JSON.parse(v) as Record<string, unknown>);
  } finally {
    db.close();
  }
};

const generation = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() as string;
  } finally {
    db.close();
  }
};

const setKept = (file: string, value: string) => {
  const db = new Database(file);
  try {
    db.prepare("UPDATE meta SET value = ? WHERE key = 'counts'").run(value);
  } finally {
    db.close();
  }
};

const open: SqliteStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
const reader = (file: string) => {
  const s = SqliteStore.open(file, { readonly: true });
  open.push(s);
  return s;
};

describe("SQLite store counts", () => {
  it("keeps the counts a writable connection took, at their generation", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    open.push(s);
    await s.upsertNotes([
      { note: note("a.md"), records: [rec("a.md", 0), rec("a.md", 1, false)] },
      { note: note("b.md"), records: [rec("b.md", 0)] },
    ]);
    expect(await s.vectorCoverage()).toEqual({ chunks: 3, withVectors: 2 });
    expect(kept(file)).toMatchObject({ notes: 2, chunks: 3, withVectors: 2 });
    expect(await reader(file).count()).toEqual({ notes: 2, chunks: 3 });
  });

  it("answers a new connection from the kept counts while the generation stands", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    open.push(s);
    await s.upsertNotes([{ note: note("a.md"), records: [rec("a.md", 0)] }]);
    await s.vectorCoverage();
    const at = kept(file)!;
    // counts no scan would give: a reader that returns them read them, and did not count
    setKept(file, JSON.stringify({ ...at, notes: 70, chunks: 80, withVectors: 90 }));
    const r = reader(file);
    expect(await r.count()).toEqual({ notes: 70, chunks: 80 });
    expect(await r.vectorCoverage()).toEqual({ chunks: 80, withVectors: 90 });
  });

  it("counts again after a write moves the generation, and after a value it cannot read", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    open.push(s);
    await s.upsertNotes([{ note: note("a.md"), records: [rec("a.md", 0)] }]);
    await s.vectorCoverage();
    setKept(file, JSON.stringify({ ...kept(file)!, chunks: 80 }));
    const writer = SqliteStore.open(file);
    open.push(writer);
    await writer.upsertNotes([{ note: note("b.md"), records: [rec("b.md", 0, false)] }]);
    expect(await reader(file).vectorCoverage()).toEqual({ chunks: 2, withVectors: 1 });
    setKept(file, "not json");
    expect(await reader(file).count()).toEqual({ notes: 2, chunks: 2 });
    // a value at the generation, with a count that is not a whole number
    setKept(file, JSON.stringify({ generation: generation(file), notes: 2, chunks: -1 }));
    expect(await reader(file).count()).toEqual({ notes: 2, chunks: 2 });
  });

  it("leaves the file as it was when the connection is read-only", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([{ note: note("a.md"), records: [rec("a.md", 0)] }]);
    await s.close();
    expect(kept(file)).toBeUndefined();
    expect(await reader(file).vectorCoverage()).toEqual({ chunks: 1, withVectors: 1 });
    expect(kept(file)).toBeUndefined();
  });
});
