import { describe, expect, it } from "vitest";
import { linkStem, linkTargets } from "../../src/vault/index.js";

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
