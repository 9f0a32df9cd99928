import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { linkResolver, linkStem, linkTargets, noteLinkResolver, oneNote } from "../../src/vault/index.js";
import { linkEnd, linkNameKeys, noteMatches, noteNameKey } from "../../src/vault/links.js";
import { blankUrls } from "../../src/vault/tags.js";

const paths = ["r/SMARS.md", "kitchen/Sourdough.md", "a/Note.md", "b/Note.md", "Inbox.md"];

describe("wikilink targets", () => {
  it("compare without ./, a leading slash, backslashes, surrounding spaces or .md (any case)", () => {
    expect(linkStem(" ./robots\\SMARS.MD ")).toBe("robots/SMARS");
    expect(linkStem(".\\r\\SMARS")).toBe("r/SMARS");
    expect(linkStem("/Inbox.md")).toBe("Inbox");
    expect(linkStem("./")).toBe("");
    for (const link of ["r/SMARS", "./r/SMARS", ".\\r\\SMARS", "/r/SMARS.md", "r/smars.MD", "SMARS", " smars "])
      expect(linkTargets(paths, link), link).toEqual(["r/SMARS.md"]);
  });

  it("read ./ and ../ within a path as the path they lead to, and a name with a backslash in it as that note when one is so named", () => {
    expect(linkStem("kitchen/./Sourdough.md")).toBe("kitchen/Sourdough");
    expect(linkStem("kitchen/../Inbox.md")).toBe("Inbox");
    expect(linkTargets(paths, "kitchen/../Inbox.md")).toEqual(["Inbox.md"]);
    expect(linkTargets(paths, "kitchen/./Sourdough")).toEqual(["kitchen/Sourdough.md"]);
    expect(linkTargets(paths, "../Inbox.md")).toEqual([]);
    // a legal name outside Windows: the note so named, by its path or its name; else a separator
    const odd = [...paths, "h/back\\slash.md"];
    for (const link of ["h/back\\slash.md", "back\\slash", "H/BACK\\SLASH"])
      expect(linkTargets(odd, link), link).toEqual(["h/back\\slash.md"]);
    expect(linkTargets(odd, "kitchen\\Sourdough")).toEqual(["kitchen/Sourdough.md"]);
    expect(oneNote(odd, "h/back\\slash.md", { in: "the index", kind: "index" })).toBe("h/back\\slash.md");
  });

  it("resolve exactly, then in any case, then by the end of a path, and give every note an ambiguous name fits", () => {
    expect(linkTargets(paths, "Note")).toEqual(["a/Note.md", "b/Note.md"]);
    expect(linkTargets(paths, "b/Note")).toEqual(["b/Note.md"]);
    expect(linkTargets(paths, "sourdough")).toEqual(["kitchen/Sourdough.md"]);
    expect(linkTargets(paths, "./")).toEqual([]);
    expect(linkTargets(paths, "Missing")).toEqual([]);
    // the end of a path only at a folder boundary: "ote" is not "Note"
    expect(linkTargets(paths, "ote")).toEqual([]);
  });
});

describe("linkResolver", () => {
  // the rule written out as plainly as it reads: exact stem, else any case, else the end of a path
  const reference = (all: string[], target: string): string[] => {
    const stem = (p: string) => p.replace(/\.md$/i, "");
    const want = linkStem(target);
    if (!want) return [];
    const exact = all.filter((p) => stem(p) === want);
    if (exact.length) return exact;
    const loose = all.filter((p) => stem(p).toLowerCase() === want.toLowerCase());
    if (loose.length) return loose;
    return all.filter((p) =>
      stem(p)
        .toLowerCase()
        .endsWith("/" + want.toLowerCase()),
    );
  };

  it("resolves every link as the plain rule does, on generated vaults and links", () => {
    const part = fc.constantFrom("a", "A", "b", "note", "Note", "x y");
    const notePath = fc.array(part, { minLength: 1, maxLength: 3 }).map((ps) => ps.join("/") + ".md");
    const link = fc.tuple(
      fc.array(part, { minLength: 0, maxLength: 3 }),
      fc.constantFrom("", ".md", ".MD"),
      fc.constantFrom("", "./", "/"),
    );
    fc.assert(
      fc.property(fc.uniqueArray(notePath, { maxLength: 12 }), fc.array(link, { maxLength: 8 }), (all, links) => {
        const resolve = linkResolver(all);
        for (const [ps, ext, lead] of links) {
          const target = lead + ps.join("/") + ext;
          expect(resolve(target), target).toEqual(reference(all, target));
        }
      }),
    );
  });
});

describe("the names of the notes a link can mean", () => {
  // parts that reach every reading: cases, both forms of "é", the Kelvin sign, backslashes,
  // ./ and ../, .md twice, and a folder's page by each of its names
  const part = fc.constantFrom(
    "a",
    "A",
    "note",
    "Note",
    "x y",
    "caf\u00e9",
    "cafe\u0301",
    "\u212ailn",
    "kiln",
    "index",
    "README",
    "_index",
    "back\\slash",
    "..",
    ".",
    "x.md",
  );
  const notePath = fc.array(part, { minLength: 1, maxLength: 3 }).map((ps) => ps.join("/") + ".md");
  const target = fc
    .tuple(
      fc.array(part, { minLength: 0, maxLength: 3 }),
      fc.constantFrom("", ".md", ".MD"),
      fc.constantFrom("", "./", "/", " "),
      fc.constantFrom("/", "\\"),
    )
    .map(([ps, ext, lead, sep]) => lead + ps.join(sep) + ext);

  it("are linkNameKeys: a resolver over the notes of those names answers as one over every note", () => {
    fc.assert(
      fc.property(fc.uniqueArray(notePath, { maxLength: 14 }), fc.array(target, { maxLength: 8 }), (all, targets) => {
        const sorted = [...all].sort();
        const resolve = linkResolver(sorted);
        for (const t of targets) {
          const keys = new Set(linkNameKeys(t));
          const named = sorted.filter((p) => keys.has(noteNameKey(p)));
          expect(linkResolver(named)(t), t).toEqual(resolve(t));
          expect(noteMatches(named, t), t).toEqual(noteMatches(sorted, t));
        }
      }),
    );
  });

  it("hold a note's file name without .md, in any case and either Unicode form, and a folder page's other names", () => {
    expect(noteNameKey("kitchen/Sourdough.MD")).toBe("sourdough");
    expect(noteNameKey("x.md.md")).toBe("x.md");
    expect(noteNameKey("d/Cafe\u0301.md")).toBe("caf\u00e9");
    expect(noteNameKey("\u212Ailn.md")).toBe("kiln");
    expect(linkNameKeys("./k/KILN.md")).toEqual(["kiln"]);
    expect(linkNameKeys("x.md.md")).toEqual(["x.md"]);
    expect(linkNameKeys("guide/index")).toEqual(["index", "readme", "_index"]);
    // a backslash: the name as written, and as folders
    expect(linkNameKeys("h/back\\slash.md")).toEqual(["back\\slash", "slash"]);
    expect(linkNameKeys("./")).toEqual([]);
  });

  it("end, for a link to a note, with the part linkedNotes compares with the note's file name", () => {
    expect(linkEnd(" ./robots\\SMARS.md ")).toBe("smars");
    expect(linkEnd("kitchen/../Inbox.md")).toBe("inbox");
    expect(linkEnd("\u212Ailn")).toBe("kiln");
    expect(linkEnd("guide/index.md")).toBe("index");
  });
});

describe("noteLinkResolver", () => {
  const resolve = noteLinkResolver([
    "git/undo.md",
    "undo.md",
    "Nope.md",
    "kitchen/Sourdough.md",
    "a/Note.md",
    "b/Note.md",
  ]);

  it("reads a Markdown link relative to its note first, then from the vault's top, as Obsidian does", () => {
    // [x](undo.md) in git/a.md: relative, so git/undo.md, though undo.md exists at the top
    expect(resolve("git/undo.md", "git/a.md", true)).toEqual(["git/undo.md"]);
    // [x](git/undo.md) in git/a.md reads git/git/undo.md, which is no note: from the top it is
    expect(resolve("git/git/undo.md", "git/a.md", true)).toEqual(["git/undo.md"]);
    // a link that climbs out with ../ has no top-level reading; neither has a note at the top
    expect(resolve("a/b.md", "a/c/n.md", true)).toEqual([]);
    expect(resolve("missing.md", "top.md", true)).toEqual([]);
  });

  it("resolves wikilinks by their own rules only, giving every note an ambiguous name fits", () => {
    expect(resolve("sourdough", "Diary.md")).toEqual(["kitchen/Sourdough.md"]);
    expect(resolve("Note", "x.md")).toEqual(["a/Note.md", "b/Note.md"]);
    // no top-level reading of a wikilink, with or without .md: git/Nope is not Nope
    expect(resolve("git/Nope", "git/a.md")).toEqual([]);
    expect(resolve("git/git/undo.md", "git/a.md")).toEqual([]);
    expect(resolve("git/Nope.md", "git/a.md")).toEqual([]);
  });

  it("finds a folder's page for a link to the folder: index.md first, else README.md, else _index.md", () => {
    // `[the guide](guide/)` is stored as guide/index.md
    expect(linkResolver(["guide/README.md", "guide/setup.md"])("guide/index.md")).toEqual(["guide/README.md"]);
    expect(linkResolver(["guide/index.md", "guide/README.md"])("guide/index.md")).toEqual(["guide/index.md"]);
    expect(linkResolver(["docs/_index.md"])("docs/index.md")).toEqual(["docs/_index.md"]);
    expect(linkResolver(["README.md"])("index")).toEqual(["README.md"]);
    expect(linkResolver(["guide/README.md"])("guide/indexes.md")).toEqual([]);
  });
});

describe("URLs blanked before tags are read", () => {
  const reference = (s: string) => s.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, " ");
  it("are the URLs the pattern finds, found in one pass from each ://", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "B", "1", ".", "-", "+", "_", ":", "/", "//", "://", " ", "\n", "#", "é", "x:"), {
          maxLength: 40,
        }),
        (parts) => {
          const s = parts.join("");
          expect(blankUrls(s)).toBe(reference(s));
        },
      ),
      { numRuns: 3000 },
    );
    expect(blankUrls("see https://x.org/#top and #tag")).toBe("see   and #tag");
    // a run that a quadratic pattern takes 46 s to read at 400 KB
    const run = "a.".repeat(200_000);
    expect(blankUrls(`#tag ${run}`)).toBe(`#tag ${run}`);
  });
});
