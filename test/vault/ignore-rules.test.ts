import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import ignore from "ignore";
import { afterEach, describe, expect, it } from "vitest";
import { parseIgnoreRules } from "../../src/vault/ignore-rules.js";

const VAULT_MODULE = path.resolve("dist/vault/index.js");
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A line of `**` segments that makes a backtracking matcher take time exponential in them. */
const nested = (segments: number) => `${Array(segments).fill("**/a").join("/")}/**/c`;

describe(".vault-ragignore rules", () => {
  it("match as gitignore lines do", () => {
    const cases: [string, string, boolean][] = [
      // a name without a slash: at any depth, file or folder
      ["drafts", "drafts/", true],
      ["drafts", "a/drafts/", true],
      ["drafts", "a/drafts", true],
      ["drafts", "drafts.md", false],
      // a trailing slash: folders only
      ["drafts/", "drafts", false],
      ["drafts/", "a/drafts/", true],
      // a slash at the start or in the middle: from the top only
      ["/drafts", "a/drafts/", false],
      ["a/drafts", "a/drafts/", true],
      ["a/drafts", "b/a/drafts/", false],
      // `*` and `?` stay within a name
      ["*.tmp.md", "x/y.tmp.md", true],
      ["a/*.md", "a/b/c.md", false],
      ["a/*", "a/", false],
      ["a/*", "a/b", true],
      ["?.md", "ab.md", false],
      ["[ab].md", "b.md", true],
      ["[!ab].md", "b.md", false],
      // `**`: any number of folders
      ["**/private", "x/y/private/", true],
      ["a/**/b", "a/b/", true],
      ["a/**/b", "a/x/y/b/", true],
      ["a/**/b", "x/a/b/", false],
      ["a/**", "a/x/y.md", true],
      ["a/**", "a/", false],
      ["a/**/", "a/x/", true],
      ["a/**/", "a/", false],
      // escapes and case
      ["\\#note.md", "#note.md", true],
      ["\\!x.md", "!x.md", true],
      ["Drafts", "drafts/", true],
    ];
    for (const [line, p, want] of cases) expect(parseIgnoreRules(line).ignores(p), `${line} on ${p}`).toBe(want);
  });

  it("let the last matching line decide, and keep out what is under an ignored folder", () => {
    const rules = parseIgnoreRules("# notes\n*.md\n!keep.md\nold/\n!old/keep.md\n");
    expect(rules.ignores("x.md")).toBe(true);
    expect(rules.ignores("keep.md")).toBe(false);
    expect(rules.ignores("a/keep.md")).toBe(false);
    // git cannot re-include a file whose folder is excluded
    expect(rules.ignores("old/keep.md")).toBe(true);
    expect(parseIgnoreRules("").ignores("x.md")).toBe(false);
  });

  it("answer as the ignore library (git's rules) for lines of names, *, ?, [..] and ** on any path", () => {
    const segment = fc.constantFrom("a", "b", "A", "*", "**", "***", "?", "[ab]", "[!a]", "a*", "*b", "\\*", "x.md");
    const line = fc
      .tuple(
        fc.array(segment, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom("", " ", "\\ ", "\r"),
      )
      .map(
        ([segs, lead, trail, neg, end]) =>
          `${neg ? "!" : ""}${lead ? "/" : ""}${segs.join("/")}${trail ? "/" : ""}${end}`,
      );
    const name = fc.constantFrom("a", "b", "ab", "ba", "B", "x.md", "*", "a b");
    const vaultPath = fc
      .tuple(fc.array(name, { minLength: 1, maxLength: 7 }), fc.boolean())
      .map(([names, folder]) => names.join("/") + (folder ? "/" : ""));
    let ignored = 0;
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 3 }),
        fc.array(vaultPath, { maxLength: 20 }),
        (lines, paths) => {
          const text = lines.join("\n");
          const ours = parseIgnoreRules(text);
          const theirs = ignore().add(text);
          for (const p of paths) {
            const want = theirs.ignores(p);
            if (want) ignored++;
            expect(ours.ignores(p), `${JSON.stringify(text)} on ${p}`).toBe(want);
          }
        },
      ),
      { numRuns: 1000, seed: 37 },
    );
    // the property compared paths that are left out, not only paths that are kept
    expect(ignored).toBeGreaterThan(500);
  });

  it("read a path in steps linear in its length, however many ** a line holds", () => {
    for (const segments of [7, 9, 20]) {
      for (const depth of [40, 160]) {
        const rules = parseIgnoreRules(`${nested(segments)}\n`);
        let folder = "";
        let read = 0;
        for (let d = 0; d < depth; d++) {
          folder += "a/";
          read += folder.length;
          expect(rules.ignores(folder)).toBe(false);
        }
        expect(rules.ignores(`${folder}c`)).toBe(true);
        read += folder.length + 1;
        // one table step per character, and the edges of each set of states the first time it meets one
        expect(rules.steps, `${segments} segments, ${depth} deep`).toBeLessThan(2 * read);
      }
    }
  });

  it("walk a vault whose ignore line holds twelve ** segments over a folder 40 deep", () => {
    // the audit's reproduction: a backtracking matcher takes 7 s with 7 segments, 90 s with 9,
    // about four times more with each one more
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-ignore-"));
    made.push(vault);
    const deep = path.join(vault, ...Array(40).fill("a"));
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, "deep.md"), "# Deep\n");
    fs.writeFileSync(path.join(vault, "top.md"), "# Top\n");
    fs.writeFileSync(path.join(vault, ".vault-ragignore"), `${nested(12)}\n`);
    const script = `import { walkVault } from ${JSON.stringify(VAULT_MODULE)};
      console.log(JSON.stringify(walkVault(${JSON.stringify(vault)}).map((f) => f.path)));`;
    // in a child, so that a walk that never ends cannot hold the test runner: it is stopped
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 100_000,
      killSignal: "SIGKILL",
    });
    expect(r.signal, `the walk did not end; stderr: ${r.stderr}`).toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([`${Array(40).fill("a").join("/")}/deep.md`, "top.md"]);
  }, 120_000);
});
