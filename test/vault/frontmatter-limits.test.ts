import { describe, expect, it } from "vitest";
import { collectingLogger } from "../../src/log.js";
import { frontmatterList, parseNote, splitFrontmatter } from "../../src/vault/index.js";

/** A note whose `tags` repeat, through YAML aliases, one anchored list of `items` tags. */
const aliased = (items: number, aliases: number) =>
  `---\nbase: &x [${Array.from({ length: items }, (_, i) => `t${i}`).join(", ")}]\n` +
  `tags: [${Array(aliases).fill("*x").join(", ")}]\n---\n# Flood\n\nText #inline\n`;

describe("frontmatter limits", () => {
  it("read a note whose frontmatter repeats an anchor more than 10 times by its body, and say why", () => {
    const log = collectingLogger();
    const note = parseNote("flood.md", aliased(100, 11), 0, log);
    expect(note.tags).toEqual(["inline"]);
    expect(note.body).toBe("# Flood\n\nText #inline\n");
    expect(log.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "frontmatter_invalid",
        `vault-rag: invalid frontmatter in "flood.md" at line 2: it repeats its anchors (*name) more than 10 times — the note is indexed without it`,
      ],
    ]);
    // within the budget, aliases read as YAML reads them
    expect(parseNote("ok.md", "---\nkeep: &k [a, b]\ntags: *k\naliases: *k\n---\n", 0).tags).toEqual(["a", "b"]);
  });

  it("leave frontmatter over 64 KB unread, with a warning naming the note", () => {
    const log = collectingLogger();
    const text = aliased(12_000, 2);
    const bytes = Buffer.byteLength(text.slice(4, text.indexOf("\n---\n") + 1));
    expect(bytes).toBeGreaterThan(64 * 1024);
    const note = parseNote("big.md", text, 0, log);
    expect(note.tags).toEqual(["inline"]);
    expect(note.properties).toBe("");
    expect(note.bodyStartLine).toBe(5);
    expect(log.warnings.map((w) => [w.code, w.message, w.detail])).toEqual([
      [
        "frontmatter_too_large",
        `vault-rag: the frontmatter of "big.md" is ${bytes} bytes, over the 65536-byte limit — the note is indexed without it`,
        { path: "big.md", bytes },
      ],
    ]);
    // a pasted image's base64 is not counted: the index leaves it out
    const cover = `---\ntitle: Dune\ncover: data:image/png;base64,${"QUJD".repeat(50_000)}\n---\n`;
    const split = splitFrontmatter(cover);
    expect(split.oversized).toBeUndefined();
    expect(split.data.title).toBe("Dune");
  });

  it("read at most the first values of a list, however many aliases repeat it", () => {
    let read = 0;
    const items = Array.from({ length: 40_000 }, (_, i) => `t${i}`);
    const counted = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) read++;
        return Reflect.get(target, key, receiver);
      },
    });
    const list = frontmatterList(Array(99).fill(counted), true, 1001);
    expect(list).toHaveLength(1001);
    expect(list.slice(0, 2)).toEqual(["t0", "t1"]);
    expect(read).toBe(1001);
    // a note: the first 1000 values are normalised, the first 200 tags kept
    const log = collectingLogger();
    const note = parseNote("flood.md", aliased(5000, 10), 0, log);
    expect(note.tags).toHaveLength(200);
    expect(note.tags.slice(0, 2)).toEqual(["t0", "t1"]);
    expect(log.warnings.map((w) => [w.code, w.message])).toEqual([
      [
        "tags_truncated",
        `vault-rag: "flood.md" has over 1000 tags in its frontmatter; the first 200 are kept as its tags`,
      ],
    ]);
  });
});
