import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { capText, GET_NOTE_MAX_CHARS, oneNote, readNoteText, resolveNote } from "../../src/vault/index.js";

/** A vault of these notes, each holding its path as its heading. */
function vaultOf(paths: string[]): string {
  const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-notes-"));
  for (const p of paths) {
    fs.mkdirSync(path.join(vault, path.dirname(p)), { recursive: true });
    fs.writeFileSync(path.join(vault, p), `# ${p}\n`);
  }
  return vault;
}

describe("get_note's notes", () => {
  it("serves a drawing by its words, as the index reads it: no banner, block ids, drawing JSON or plugin properties", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-drawing-"));
    const json = JSON.stringify({ type: "excalidraw", elements: Array.from({ length: 500 }, (_, x) => ({ x })) });
    fs.writeFileSync(
      path.join(vault, "DFS.excalidraw.md"),
      `---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n\n# Text Elements\nvisit a node ^a1\n\n%%\n# Drawing\n\`\`\`json\n${json}\n\`\`\`\n%%\n`,
    );
    expect(readNoteText(vault, "DFS.excalidraw.md")).toEqual({
      path: "DFS.excalidraw.md",
      text: "\n\n# Text Elements\nvisit a node\n\n",
    });
  });

  it("cuts a long note at the named size, at a line end, with a clear mark", () => {
    expect(GET_NOTE_MAX_CHARS).toBe(40_000);
    const line = "A line about motors and batteries, long enough to matter.\n"; // 58 characters
    const long = line.repeat(2_000);
    const cut = capText(long);
    const kept = Math.floor(GET_NOTE_MAX_CHARS / line.length) * line.length - 1;
    expect(cut).toBe(
      `${long.slice(0, kept)}\n\n[truncated by vault-rag: showing ${kept} of ${long.length} characters — ask for one section with "heading"]`,
    );
    expect(capText("short\n")).toBe("short\n");
  });

  it("reads a path through ./ and ../ within the vault as the note it leads to, and serves a note with a backslash in its name", () => {
    const vault = vaultOf(["Welcome.md", "kitchen/Sourdough.md", "kitchen/back\\slash.md"]);
    expect(resolveNote(vault, "kitchen/../Welcome.md").path).toBe("Welcome.md");
    expect(resolveNote(vault, "kitchen/./Sourdough.md").path).toBe("kitchen/Sourdough.md");
    expect(resolveNote(vault, "kitchen/back\\slash.md").path).toBe("kitchen/back\\slash.md");
    expect(resolveNote(vault, "./kitchen/back\\slash.md").path).toBe("kitchen/back\\slash.md");
    expect(() => resolveNote(vault, "kitchen/../../etc/passwd")).toThrow(
      'vault-rag: refused path "kitchen/../../etc/passwd": it leaves the vault — give a vault-relative path like robots/SMARS.md',
    );
  });

  it("serves a note of properties alone as its frontmatter, which is what it holds and how it is indexed", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-notes-"));
    fs.writeFileSync(path.join(vault, "Dune.md"), "---\r\ntitle: Dune\r\nauthor: Frank Herbert\r\n---\r\n");
    fs.writeFileSync(path.join(vault, "Both.md"), "---\ntags: [x]\n---\nThe body.\n");
    expect(readNoteText(vault, "Dune").text).toBe("title: Dune\r\nauthor: Frank Herbert\r\n");
    expect(readNoteText(vault, "Both").text).toBe("The body.\n");
  });

  it("serves a note with a pasted image without the image's base64, as it is indexed", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-notes-"));
    const png = "iVBORw0KGgoAAAANSUhEUgAA" + "QUJD".repeat(50_000);
    fs.writeFileSync(
      path.join(vault, "Arch.md"),
      `# Arch\n\n![diagram](data:image/png;base64,${png})\n\nThe etcd store.\n`,
    );
    expect(readNoteText(vault, "Arch").text).toBe("# Arch\n\n![diagram](data:image/png;base64,…)\n\nThe etcd store.\n");
    // a short data URI (an icon of a few bytes) is left as written
    fs.writeFileSync(path.join(vault, "Icon.md"), "![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n");
    expect(readNoteText(vault, "Icon").text).toBe("![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n");
  });

  it("refuses a name that fits two notes, naming both", () => {
    const vault = vaultOf(["a/Plan.md", "b/Plan.md", "b/Other.md"]);
    expect(() => resolveNote(vault, "plan")).toThrow(
      'vault-rag: "plan" could be "a/Plan.md" or "b/Plan.md" — give the path of the one you mean',
    );
    expect(resolveNote(vault, "b/plan").path).toBe("b/Plan.md");
    expect(resolveNote(vault, "Other").path).toBe("b/Other.md");
  });

  it("reads a path written with a folder and .md as that path, not as another folder's note of that name", () => {
    const vault = vaultOf(["2018-edition/src/editions.md", "src/intro.md"]);
    expect(() => resolveNote(vault, "src/editions.md")).toThrow(
      'vault-rag: no note "src/editions.md" in the vault — did you mean "2018-edition/src/editions.md"?',
    );
    // as a wikilink finds it: the end of a path, without .md, or the file name
    expect(resolveNote(vault, "src/editions").path).toBe("2018-edition/src/editions.md");
    expect(resolveNote(vault, "editions.md").path).toBe("2018-edition/src/editions.md");
    // the path itself, in any case, with Windows separators or a leading ./
    expect(resolveNote(vault, "SRC/Intro.md").path).toBe("src/intro.md");
    expect(resolveNote(vault, ".\\src\\intro.md").path).toBe("src/intro.md");
    expect(resolveNote(vault, "./src/intro.md").path).toBe("src/intro.md");
    // as the index finds it (chunks, related): a leading / is the vault's top
    expect(oneNote(["src/intro.md"], "/src/intro.md", { in: "the index", kind: "index" })).toBe("src/intro.md");
  });

  it("refuses to serve a file the indexer skips (binary, not UTF-8), with the indexer's reason", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-notes-"));
    fs.writeFileSync(path.join(vault, "binary.md"), Buffer.from([0x23, 0x20, 0x00, 0xff, 0x10]));
    fs.writeFileSync(path.join(vault, "latin1.md"), Buffer.from("# Caf\xe9\n", "latin1"));
    expect(() => readNoteText(vault, "binary.md")).toThrow(
      'vault-rag: "binary.md" is not served: it is a binary file, not Markdown text (only notes the index can hold are served)',
    );
    expect(() => readNoteText(vault, "latin1")).toThrow(
      'vault-rag: "latin1.md" is not served: it is not valid UTF-8 — save it as UTF-8 (only notes the index can hold are served)',
    );
  });
});
