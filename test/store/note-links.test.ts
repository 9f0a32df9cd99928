import { expect, it } from "vitest";
import type { NoteEntry } from "../../src/store/index.js";
import { linkedNotes, relatedNotes } from "../../src/search/index.js";
import { forEachBackend } from "./backends.js";
import { meta, record, vec } from "./helpers.js";

const note = (p: string): NoteEntry => ({ path: p, hash: `h-${p}`, mtime: 1, size: 1 });

/** Links and related notes from what a store holds, on every backend (SQLite, and a real Chroma server). */
forEachBackend("$name store: links and related notes", (backend) => {
  it("lists each note's wikilinks once, and finds related notes by their best pair of chunks", async () => {
    const { store: s } = await backend.fresh();
    await s.upsertNotes([
      {
        note: note("r/SMARS.md"),
        records: [
          record("s0", meta({ path: "r/SMARS.md", ordinal: 0, links: ["Motors"], hash: "s0" }), vec(1, 0, 0, 0)),
          record(
            "s1",
            meta({ path: "r/SMARS.md", ordinal: 1, links: ["Motors", "k/Bread"], hash: "s1" }),
            vec(0, 1, 0, 0),
          ),
        ],
      },
      {
        note: note("e/Motors.md"),
        records: [record("m0", meta({ path: "e/Motors.md", hash: "m0" }), vec(0.9, 0.1, 0, 0))],
      },
      {
        note: note("k/Bread.md"),
        records: [record("b0", meta({ path: "k/Bread.md", hash: "b0" }), vec(0, 0, 1, 0))],
      },
      {
        note: note("d/Log.md"),
        records: [record("l0", meta({ path: "d/Log.md", links: ["smars"], hash: "l0" }), vec(0.1, 0.9, 0.1, 0))],
      },
    ]);
    const links = (await s.noteLinks()).sort((a, b) => a.path.localeCompare(b.path));
    expect(links.map((l) => ({ ...l, links: [...l.links].sort() }))).toEqual([
      { path: "d/Log.md", links: ["smars"] },
      { path: "r/SMARS.md", links: ["Motors", "k/Bread"] },
    ]);
    // out: Motors and k/Bread; in: d/Log.md links [[smars]] (any case, by file name)
    expect([...(await linkedNotes(s, "r/SMARS.md"))].sort()).toEqual(["d/Log.md", "e/Motors.md", "k/Bread.md"]);
    const { note: found, related } = await relatedNotes(s, "smars", { k: 3 });
    expect(found).toBe("r/SMARS.md");
    expect(related.map((r) => r.path)).toEqual(["e/Motors.md", "d/Log.md", "k/Bread.md"]);
    expect(related[0]).toMatchObject({ linked: true, source: { id: "s0" }, target: { id: "m0" } });
    expect(related[1]).toMatchObject({ source: { id: "s1" }, target: { id: "l0" } });
    expect(related[0].score).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 3);
    expect((await relatedNotes(s, "r/SMARS.md", { unlinkedOnly: true })).related).toEqual([]);
    await s.close();
  });

  it("finds the links that can name a note through a narrowed read, in any case, and leaves out the notes whose links cannot", async () => {
    const { store: s } = await backend.fresh();
    const linking = (p: string, links: string[]) => ({
      note: note(p),
      records: [record(`id-${p}`, meta({ path: p, links, hash: `h-${p}` }), vec(1, 0, 0, 0))],
    });
    await s.upsertNotes([
      linking("k/Kiln.md", ["Motors"]),
      linking("d/a.md", ["KILN"]), // another case
      linking("d/b.md", ["\u212Ailn"]), // the Kelvin sign, which JavaScript lowers to "k"
      linking("d/c.md", ["./k/kiln.md"]),
      linking("d/d.md", ["Motors", "k/Bread"]), // cannot name it
      linking("d/e.md", ["kiln-notes"]), // holds the name, names another note
      linking("e/Motors.md", []),
    ]);
    expect([...(await linkedNotes(s, "k/Kiln.md"))].sort()).toEqual(["d/a.md", "d/b.md", "d/c.md", "e/Motors.md"]);
    const narrowed = (await s.noteLinks({ path: "k/Kiln.md", name: "kiln" })).map((l) => l.path).sort();
    expect(narrowed).not.toContain("d/d.md");
    expect(narrowed).toEqual(expect.arrayContaining(["d/a.md", "d/b.md", "d/c.md", "k/Kiln.md"]));
    await s.close();
  });

  it("compares a note of many chunks by a spread of them, never with itself, and stops when its signal is aborted", async () => {
    const { store: s } = await backend.fresh();
    // a journal of 200 chunks (more than RELATED_DEFAULTS.passages and .candidates): all but its
    // last point one way, its last another; two short notes each near one of them, 300 far
    const journal = Array.from({ length: 200 }, (_, i) =>
      record(
        `j${i}`,
        meta({ path: "Journal.md", ordinal: i, hash: `j${i}` }),
        i === 199 ? vec(0, 0, 1, 0) : vec(1, 0, 0, i / 1000), // each its own (HNSW links no copies)
      ),
    );
    await s.upsertNotes([
      { note: note("Journal.md"), records: journal },
      {
        note: note("Motors.md"),
        records: [record("m0", meta({ path: "Motors.md", hash: "m0" }), vec(0.95, 0.05, 0, 0))],
      },
      {
        note: note("Bread.md"),
        records: [record("b0", meta({ path: "Bread.md", hash: "b0" }), vec(0, 0.1, 0.9, 0))],
      },
      // the journal is a part of the vault, not most of it
      ...Array.from({ length: 300 }, (_, i) => ({
        note: note(`f/${i}.md`),
        records: [record(`f${i}`, meta({ path: `f/${i}.md`, hash: `f${i}` }), vec(0, 0.2, i / 1000, 1))],
      })),
    ]);
    // count the dense queries and what they bring: at most 64 (RELATED_DEFAULTS.passages), none of
    // them the journal's own chunks (filtered out by the store, not crowding the candidates)
    const asked: { k: number; paths: string[] }[] = [];
    const counted = new Proxy(s, {
      get(target, key, receiver) {
        if (key !== "queryDense") return Reflect.get(target, key, receiver);
        return async (...args: Parameters<typeof s.queryDense>) => {
          const hits = await target.queryDense(...args);
          asked.push({ k: args[1], paths: hits.map((h) => h.meta.path) });
          return hits;
        };
      },
    });
    const { related } = await relatedNotes(counted, "Journal", { k: 2 });
    expect(asked.length).toBe(64);
    expect(asked.every((a) => a.k === 50 && !a.paths.includes("Journal.md"))).toBe(true);
    expect(related.map((r) => r.path)).toEqual(["Motors.md", "Bread.md"]);
    // the spread reaches the journal's end: its last chunk is what Bread.md is near
    expect(related[1]).toMatchObject({ source: { id: "j199" }, target: { id: "b0" } });
    await expect(relatedNotes(s, "Journal", { signal: AbortSignal.abort() })).rejects.toThrow(/aborted/);
    await s.close();
  });

  it("counts a link to a note written with ./, a leading slash, backslashes or .md as a link to it", async () => {
    const { store: s } = await backend.fresh();
    const linking = ["./r/SMARS", "/r/SMARS.md", "r\\SMARS", " SMARS.md "];
    await s.upsertNotes([
      {
        note: note("r/SMARS.md"),
        records: [record("s0", meta({ path: "r/SMARS.md", hash: "s0" }), vec(1, 0, 0, 0))],
      },
      ...linking.map((link, i) => ({
        note: note(`d/${i}.md`),
        records: [record(`d${i}`, meta({ path: `d/${i}.md`, links: [link], hash: `d${i}` }), vec(0, 1, 0, 0))],
      })),
    ]);
    expect([...(await linkedNotes(s, "r/SMARS.md"))].sort()).toEqual(["d/0.md", "d/1.md", "d/2.md", "d/3.md"]);
    await s.close();
  });
});
