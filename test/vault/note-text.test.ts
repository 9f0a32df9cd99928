import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { capText, GET_NOTE_MAX_CHARS, resolveNote } from "../../src/vault/index.js";

describe("get_note's notes", () => {
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

  it("refuses a name that fits two notes, naming both", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-notes-"));
    for (const p of ["a/Plan.md", "b/Plan.md", "b/Other.md"]) {
      fs.mkdirSync(path.join(vault, path.dirname(p)), { recursive: true });
      fs.writeFileSync(path.join(vault, p), `# ${p}\n`);
    }
    expect(() => resolveNote(vault, "plan")).toThrow(
      'vault-rag: "plan" could be "a/Plan.md" or "b/Plan.md" — give the path of the one you mean',
    );
    expect(resolveNote(vault, "b/plan").path).toBe("b/Plan.md");
    expect(resolveNote(vault, "Other").path).toBe("b/Other.md");
  });
});
