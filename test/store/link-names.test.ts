import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { indexedNote, linkedNotes, relatedNotes } from "../../src/search/index.js";
import { SqliteStore, type NoteEntry, type Store } from "../../src/store/index.js";
import { encodeList } from "../../src/store/sqlite/compile.js";
import { ASCII_LOOKALIKES, linkNamesCurrent } from "../../src/store/sqlite/link-names.js";
import { noteNameKey } from "../../src/vault/links.js";
import { forEachBackend } from "./backends.js";
import { meta, openStore, record, tmpDb, vec } from "./helpers.js";

const note = (p: string): NoteEntry => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });
const linking = (p: string, links: string[] = []) => ({
  note: note(p),
  records: [record(`id-${p}`, meta({ path: p, links, hash: `h-${p}` }), vec(1, 0, 0, 0))],
});
const cafe = "Caf\u00e9"; // composed, as a keyboard types it
const cafeNfd = "Cafe\u0301"; // decomposed, as macOS often names files

/** A store that counts the calls of `store.notes()` without paths (a read of every note). */
function counting(store: Store): { store: Store; everyNote: () => number } {
  let n = 0;
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      if (key !== "notes") return Reflect.get(target, key, receiver);
      return (paths?: readonly string[]) => {
        if (!paths) n++;
        return target.notes(paths);
      };
    },
  });
  return { store: proxy, everyNote: () => n };
}

forEachBackend("$name store: the links and names of notes, found without reading them all", (backend) => {
  it("finds the notes whose links end with a note's name, in any script and case, and keeps them as notes change", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([
      linking("k/Kiln.md", ["Motors"]),
      linking("d/a.md", ["KILN", "Motors"]),
      linking("d/e.md", ["kiln-notes"]), // holds the name, ends with another
      linking(`c/${cafe}.md`, []),
      linking("x/1.md", [cafe.toLowerCase()]),
      linking("x/2.md", [cafe.toUpperCase(), "k/Kiln"]),
      linking("x/3.md", ["other"]),
      linking("e/Motors.md", []),
    ]);
    const narrowed = async (path: string, name: string) =>
      (await s.noteLinks({ path, name })).map((l) => `${l.path}: ${[...l.links].sort().join(", ")}`).sort();
    // only the links that can name it: not d/e.md's, not d/a.md's to Motors
    expect(await narrowed("k/Kiln.md", "kiln")).toEqual(["d/a.md: KILN", "k/Kiln.md: Motors", "x/2.md: k/Kiln"]);
    expect(await narrowed(`c/${cafe}.md`, cafe.toLowerCase())).toEqual([`x/1.md: café`, `x/2.md: CAFÉ`]);
    expect([...(await linkedNotes(s, `c/${cafe}.md`))].sort()).toEqual(["x/1.md", "x/2.md"]);
    expect([...(await linkedNotes(s, "k/Kiln.md"))].sort()).toEqual(["d/a.md", "e/Motors.md", "x/2.md"]);
    // a note indexed again with other links, and a note deleted, no longer link to it
    await s.upsertNotes([linking("x/1.md", ["other"])]);
    await s.deleteNotes(["x/2.md"]);
    expect(await narrowed(`c/${cafe}.md`, cafe.toLowerCase())).toEqual([]);
    expect([...(await linkedNotes(s, "k/Kiln.md"))].sort()).toEqual(["d/a.md", "e/Motors.md"]);
    await s.close();
  });

  it("gives the notes of some file names, in any case and Unicode form, and the entries of some paths", async () => {
    const { store: s } = await backend.fresh();
    const paths = [
      "k/Kiln.md",
      "a/KILN.MD",
      "d/\u212Ailn.md", // the Kelvin sign: its name is "kiln" too
      "e/kilns.md",
      "x/100%_done.md",
      "x/100ab_done.md",
      `d/${cafeNfd}.md`,
      "guide/README.md",
    ];
    await s.upsertNotes([...paths.map((p) => linking(p)), { note: note("empty/kiln.md"), records: [] }]);
    expect(await s.notesNamed(["kiln"])).toEqual(["a/KILN.MD", "d/\u212Ailn.md", "empty/kiln.md", "k/Kiln.md"]);
    expect(await s.notesNamed(["100%_done"])).toEqual(["x/100%_done.md"]);
    expect(await s.notesNamed([cafe.toLowerCase()])).toEqual([`d/${cafeNfd}.md`]);
    expect(await s.notesNamed(["readme", "nothing"])).toEqual(["guide/README.md"]);
    // many names at once: every path is read, and the answer is the same
    const many = ["kiln", "readme", ...Array.from({ length: 10 }, (_, i) => `n${i}`)];
    expect(await s.notesNamed(many)).toEqual([
      "a/KILN.MD",
      "d/\u212Ailn.md",
      "empty/kiln.md",
      "guide/README.md",
      "k/Kiln.md",
    ]);
    expect(await s.notesNamed([])).toEqual([]);
    expect([...(await s.notes(["k/Kiln.md", "gone.md", "empty/kiln.md"])).keys()].sort()).toEqual([
      "empty/kiln.md",
      "k/Kiln.md",
    ]);
    await s.close();
  });

  it("finds the note a name means, and the notes linked to it, without reading every note, unless no note fits", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([
      linking("k/Kiln.md", ["guide/index", "Motors"]),
      linking("a/Note.md"),
      linking("b/Note.md"),
      linking("guide/README.md"),
      linking(`d/${cafeNfd}.md`, ["k/kiln"]),
      linking("h/back\\slash.md", ["\u212Ailn"]),
      linking("e/Motors.md"),
    ]);
    const { store, everyNote } = counting(s);
    expect(await indexedNote(store, "KILN")).toBe("k/Kiln.md");
    expect(await indexedNote(store, "\u212Ailn")).toBe("k/Kiln.md");
    expect(await indexedNote(store, cafe)).toBe(`d/${cafeNfd}.md`);
    expect(await indexedNote(store, "guide/index")).toBe("guide/README.md");
    expect(await indexedNote(store, "back\\slash")).toBe("h/back\\slash.md");
    await expect(indexedNote(store, "Note")).rejects.toThrow(/"Note" could be "a\/Note.md" or "b\/Note.md"/);
    expect([...(await linkedNotes(store, "k/Kiln.md"))].sort()).toEqual([
      `d/${cafeNfd}.md`,
      "e/Motors.md",
      "guide/README.md",
      "h/back\\slash.md",
    ]);
    expect((await relatedNotes(store, "kiln", { k: 2 })).note).toBe("k/Kiln.md");
    expect(everyNote()).toBe(0);
    // a name no note fits: every note is read to name the closest
    await expect(indexedNote(store, "kil")).rejects.toThrow(/no note "kil" in the index — did you mean "k\/Kiln.md"/);
    let asked = 0;
    await expect(relatedNotes(store, "Kilm", { unmatched: () => void asked++ })).rejects.toThrow(/did you mean/);
    expect(asked).toBe(1);
    expect(everyNote()).toBe(2);
    await s.close();
  });
});

describe("an index written without link_names", () => {
  /** A store of linking notes whose file then loses link_names, as an index written before it. */
  async function oldIndex(): Promise<string> {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([
      linking("k/Kiln.md", ["Motors"]),
      linking("d/a.md", ["KILN"]),
      linking("d/b.md", ["\u212Ailn"]),
      linking("d/e.md", ["kiln-notes"]),
      linking(`c/${cafe}.md`, []),
      linking("x/1.md", [cafe]),
      linking("e/Motors.md", []),
    ]);
    await s.close();
    const db = new Database(file);
    db.exec("DROP TABLE link_names");
    db.close();
    return file;
  }
  const hasTable = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'link_names'").get();
    } finally {
      db.close();
    }
  };

  it("is answered read-only by reading the passages' links, and given the table, filled, when opened for writing", async () => {
    const file = await oldIndex();
    const read = SqliteStore.open(file, { readonly: true });
    expect([...(await linkedNotes(read, "k/Kiln.md"))].sort()).toEqual(["d/a.md", "d/b.md", "e/Motors.md"]);
    expect([...(await linkedNotes(read, `c/${cafe}.md`))]).toEqual(["x/1.md"]);
    expect(await indexedNote(read, "kiln")).toBe("k/Kiln.md");
    await read.close();
    expect(hasTable(file)).toBe(false);
    const write = SqliteStore.open(file);
    expect(hasTable(file)).toBe(true);
    const names = write.db.prepare("SELECT source, written, name FROM link_names ORDER BY source").all();
    expect(names).toEqual([
      { source: "d/a.md", written: "KILN", name: "kiln" },
      { source: "d/b.md", written: "\u212Ailn", name: "kiln" },
      { source: "d/e.md", written: "kiln-notes", name: "kiln-notes" },
      { source: "k/Kiln.md", written: "Motors", name: "motors" },
      { source: "x/1.md", written: cafe, name: cafe.toLowerCase() },
    ]);
    expect([...(await linkedNotes(write, "k/Kiln.md"))].sort()).toEqual(["d/a.md", "d/b.md", "e/Motors.md"]);
    await write.close();
  });

  it("is read by its passages when a build that does not keep link_names wrote to it, and filled again when opened for writing", async () => {
    const file = tmpDb();
    const s = await openStore(file);
    await s.upsertNotes([linking("k/Kiln.md"), linking("d/a.md", ["Motors"])]);
    await s.upsertNotes([linking("d/b.md", ["KILN"])]);
    await s.deleteNotes(["d/b.md"]);
    // every write of this build keeps it
    expect(linkNamesCurrent(s.db)).toBe(true);
    await s.close();
    // an older build's write: d/a.md now links to Kiln, link_names unchanged, the generation moved
    const db = new Database(file);
    db.prepare("UPDATE chunks SET links = ? WHERE path = 'd/a.md'").run(encodeList(["kiln"]));
    db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'").run();
    db.close();
    const read = SqliteStore.open(file, { readonly: true });
    expect(linkNamesCurrent(read.db)).toBe(false);
    expect([...(await linkedNotes(read, "k/Kiln.md"))]).toEqual(["d/a.md"]);
    await read.close();
    const write = SqliteStore.open(file);
    expect(linkNamesCurrent(write.db)).toBe(true);
    expect(write.db.prepare("SELECT name, source, written FROM link_names").all()).toEqual([
      { name: "kiln", source: "d/a.md", written: "kiln" },
    ]);
    expect([...(await linkedNotes(write, "k/Kiln.md"))]).toEqual(["d/a.md"]);
    await write.close();
  });

  it("gets it rebuilt from the passages by a repair", async () => {
    const s = await openStore();
    await s.upsertNotes([linking("k/Kiln.md"), linking("d/a.md", ["kiln"])]);
    s.db.exec("DELETE FROM link_names");
    expect([...(await linkedNotes(s, "k/Kiln.md"))]).toEqual([]);
    await s.repair();
    expect([...(await linkedNotes(s, "k/Kiln.md"))]).toEqual(["d/a.md"]);
    await s.close();
  });
});

describe("ASCII_LOOKALIKES", () => {
  it("are every character outside ASCII whose note-name key is ASCII, by this Node's Unicode data", () => {
    const found: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      if (/^[\x00-\x7f]+$/.test(noteNameKey(ch))) found.push(ch);
    }
    expect(found).toEqual([...ASCII_LOOKALIKES].sort());
  });
});
