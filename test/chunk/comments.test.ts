import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunkNote } from "../../src/chunk/index.js";
import { withoutComments } from "../../src/vault/comments.js";
import { parseNote, readNoteText } from "../../src/vault/index.js";

const note = (text: string, p = "plans/Launch.md") => parseNote(p, text, 1_760_000_000);
const chunksOf = (text: string) => chunkNote(note(text), { minWords: 0 });
const allText = (text: string) =>
  chunksOf(text)
    .map((c) => `${c.meta.section}\n${c.text}\n${c.embedText}`)
    .join("\n");

const NOTE = [
  "# Launch",
  "",
  "The launch is on Monday %%and the budget is 41,000 zorkmids%% for the whole team.",
  "",
  "%%",
  "Private: the supplier is [[Acme Secret]] #confidential and the margin is thin.",
  "",
  "A blank line does not end a block comment.",
  "%%",
  "",
  "## Checklist",
  "",
  "Print the `%%` sign with `printf '%%'`, as shown:",
  "",
  "```sh",
  "printf '100%%\\n'",
  "```",
  "",
  "Book the hall.",
  "",
].join("\n");

describe("Obsidian comments", () => {
  it("leave no text, breadcrumb, embedded text, link or tag of a comment in the passages", () => {
    const text = allText(NOTE);
    for (const hidden of ["zorkmids", "41,000", "supplier", "Acme Secret", "confidential", "blank line"])
      expect(text).not.toContain(hidden);
    expect(text).toContain("The launch is on Monday for the whole team.");
    expect(text).toContain("Book the hall.");
    const parsed = note(NOTE);
    expect(parsed.links).toEqual([]);
    expect(parsed.tags).toEqual([]);
  });

  it("keep `%%` in code spans and fenced code as text", () => {
    const text = allText(NOTE);
    expect(text).toContain("Print the `%%` sign with `printf '%%'`, as shown:");
    expect(text).toContain("printf '100%%\\n'");
  });

  it("keep every other line on its line number", () => {
    const chunks = chunksOf(NOTE);
    const book = chunks.find((c) => c.text.includes("Book the hall."))!;
    // "## Checklist" is the note's 11th line, "Book the hall." its 19th
    expect(book.meta.start_line).toBe(11);
    expect(book.meta.end_line).toBe(19);
  });

  it("hide the rest of the note after a `%%` that is never closed", () => {
    const text = allText("# Notes\n\nShown words here.\n\n%% draft never closed\n\n## Later\n\nStill hidden words.\n");
    expect(text).toContain("Shown words here.");
    expect(text).not.toContain("draft never closed");
    expect(text).not.toContain("Later");
    expect(text).not.toContain("Still hidden");
  });

  it("are read line by line, as documented", () => {
    expect(withoutComments("a %%secret%% b\n%%\nplan\n%%\n`%%` stays\n")).toBe("a b\n\n\n\n`%%` stays\n");
    expect(withoutComments("kept %%hidden to the end\nof the note")).toBe("kept \n");
    // a comment opened inside a callout's text ends at its `%%`, whatever lies between
    expect(withoutComments("> [!note]\n> shown %%x\n> ```\n> y%% end")).toBe("> [!note]\n> shown \n\n end");
    // a fence inside a comment is part of it; a fence outside keeps its `%%`
    expect(withoutComments("%%\n```\n%% a\n```\n")).toBe("\n\n a\n```\n");
    expect(withoutComments("~~~\n%% a\n~~~\nb %%c%%")).toBe("~~~\n%% a\n~~~\nb ");
    // an unmatched backtick is text: the `%%` after it opens a comment
    expect(withoutComments("a ` b %%c%% d")).toBe("a ` b d");
    const plain = "no comment here, 100% sure\n";
    expect(withoutComments(plain)).toBe(plain);
  });

  it("keeps the line count of a long note of many `%%` and backticks", () => {
    const big = "`a` %% b ` ``\n".repeat(50_000);
    const out = withoutComments(big);
    expect(out.split("\n").length).toBe(big.split("\n").length);
  });
});

describe("get note", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("serves a note, and a section of it, without its comments", () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-comments-"));
    fs.mkdirSync(path.join(dir, "plans"));
    fs.writeFileSync(path.join(dir, "plans", "Launch.md"), NOTE);
    const whole = readNoteText(dir, "Launch").text;
    expect(whole).not.toContain("zorkmids");
    expect(whole).not.toContain("Acme Secret");
    expect(whole).toContain("printf '100%%\\n'");
    const section = readNoteText(dir, "Launch", "Launch").text;
    expect(section).not.toContain("supplier");
    expect(section).toContain("Book the hall.");
  });
});
