import { describe, expect, it } from "vitest";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { likeliest, search, sharedWordNet, spellingFixes, spellingNotice, withFixes } from "../../src/search/index.js";
import { SqliteStore, type NoteEntry } from "../../src/store/index.js";
import { testManifest } from "../store/backends.js";
import { meta, tmpDb } from "../store/helpers.js";

const note = (p: string): NoteEntry => ({ path: p, hash: p, mtime: 1, size: 1 });

/** A real index file of four one-chunk notes (the model's own vectors), then opened read-only as searches open it. */
async function vault(
  texts: Record<string, string> = {
    "postgres/approximate-count.md": "Get a quick approximate count of a large table from the planner's statistics.",
    "postgres/statement-timeout.md": "Set a statement timeout so that a query cannot run too long.",
    "vim/reverse-lines.md": "Reverse a group of lines with the global command and move.",
    "people/maggie.md": "Maggie wrote the tmux config; three panes and a status line.",
  },
): Promise<{ store: SqliteStore; file: string }> {
  const file = tmpDb();
  const store = SqliteStore.open(file, { create: true });
  await store.setManifest(testManifest(512));
  const embedder = useLiteEmbedder();
  const vectors = await embedder.embedDocuments(Object.values(texts));
  await store.upsertNotes(
    Object.entries(texts).map(([p, text], i) => ({
      note: note(p),
      records: [{ id: p, text, meta: meta({ path: p }), windows: [{ hash: p, vector: vectors[i] }] }],
    })),
  );
  await store.close();
  return { store: SqliteStore.open(file, { readonly: true }), file };
}

describe("spelling", () => {
  const embedder = useLiteEmbedder();

  it("reads a misspelt word as the vault's closest word, and says so; spell: false searches as typed", async () => {
    const { store } = await vault();
    const res = await search({ store, embedder }, "aproximate cuont", { mode: "keyword" });
    expect(res.spelling).toEqual([
      { from: "aproximate", to: "approximate" },
      { from: "cuont", to: "count" },
    ]);
    expect(res.notice).toBe(
      'no passage holds the words "aproximate" or "cuont" — searched for "approximate" and "count" instead',
    );
    expect(res.hits[0].path).toBe("postgres/approximate-count.md");
    const typed = await search({ store, embedder }, "aproximate cuont", { mode: "keyword", spell: false });
    expect(typed.spelling).toBeUndefined();
    expect(typed.hits).toEqual([]);
    // hybrid: the keyword list is read fixed, so its note leads
    const hybrid = await search({ store, embedder }, "statment timout", {});
    expect(hybrid.spelling).toEqual([
      { from: "statment", to: "statement" },
      { from: "timout", to: "timeout" },
    ]);
    expect(hybrid.hits[0].path).toBe("postgres/statement-timeout.md");
    await store.close();
  });

  it("leaves English words alone, an inflection WordNet's base forms miss too, and fixes only to a word of the same first letter", async () => {
    const { store } = await vault();
    const wn = sharedWordNet();
    // "threw" is one edit from "three", "laggy" from "maggie", "hogging" and "reversing" are words
    expect(await spellingFixes(store, "I threw away the laggy hogging reversing", wn)).toEqual([]);
    // "rverse" is one edit from "revers" (reverse): fixed; short words never are ("teh")
    expect(await spellingFixes(store, "rverse teh lines", wn)).toEqual([{ from: "rverse", to: "reverse" }]);
    // a word a passage holds is never fixed, however odd
    expect(await spellingFixes(store, "statistics planner", wn)).toEqual([]);
    // without WordNet nothing is: a real word could not be told from a typo
    expect(await spellingFixes(store, "aproximate", undefined)).toEqual([]);
    await store.close();
  });

  it("weighs a fix by how many passages hold it: mutx is the vault's mutex, not the code's mut", async () => {
    // "mut" (Rust code) and "mutex" are each one edit from "mutx", and "mut" is in more passages
    const { store } = await vault({
      "os/mutex.md": "A mutex lets one thread at a time into a critical section.",
      "os/spinlock.md": "A spinlock busy-waits where a mutex would sleep.",
      "os/condvar.md": "A condition variable waits on a mutex until it is signalled.",
      "rust/bindings.md": "let mut count = 0; a binding is changed only when declared mut.",
      "rust/references.md": "A mut reference is exclusive: fn push(v: &mut Vec<i32>).",
      "rust/loops.md": "for x in v.iter_mut() { *x += 1 } where v is mut.",
      "rust/structs.md": "let mut p = Point { x: 1 }; p.x = 2;",
    });
    const wn = sharedWordNet();
    expect(await spellingFixes(store, "spinlok vs mutx", wn)).toEqual([
      { from: "spinlok", to: "spinlock" },
      { from: "mutx", to: "mutex" },
    ]);
    const res = await search({ store, embedder }, "spinlok vs mutx", { mode: "keyword" });
    expect(res.hits.slice(0, 3).map((h) => h.path)).toContain("os/mutex.md");
    // how often counts: a word in far more passages wins over a nearer, rarer one
    expect(
      likeliest("aproximatly", [
        { word: "aproximately", chunks: 1, edits: 1 },
        { word: "approximately", chunks: 40, edits: 2 },
      ])?.word,
    ).toBe("approximately");
    await store.close();
  });

  it("puts each fix in place of the word, in any case, and names them all", () => {
    const fixes = [
      { from: "aproximate", to: "approximate" },
      { from: "cuont", to: "count" },
    ];
    expect(withFixes("Aproximate CUONT of rows (cuont)", fixes)).toBe("approximate count of rows (count)");
    expect(spellingNotice(fixes.slice(1))).toBe('no passage holds the word "cuont" — searched for "count" instead');
    expect(spellingNotice([...fixes, { from: "tabel", to: "table" }])).toBe(
      'no passage holds the words "aproximate", "cuont" or "tabel" — searched for "approximate", "count" and "table" instead',
    );
  });
});
