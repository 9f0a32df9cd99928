import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { closest, closestNotes, editDistance, noteFix } from "../src/closest.js";

const paths = [
  "robots/SMARS.md",
  "robots/SMARS Quad.md",
  "kitchen/Sourdough.md",
  "git/stash-everything.md",
  "Inbox.md",
];

describe("closest notes", () => {
  it("finds notes by a misspelt or re-spaced name, and by a path", () => {
    expect(closestNotes("sourdoug", paths)).toEqual(["kitchen/Sourdough.md"]);
    expect(closestNotes("stash everything", paths)).toEqual(["git/stash-everything.md"]);
    expect(closestNotes("robots/smars quad", paths)).toEqual(["robots/SMARS Quad.md", "robots/SMARS.md"]);
    expect(closestNotes("kubernetes", paths)).toEqual([]);
  });

  it("offers no note whose short name merely stands inside what was typed", () => {
    // a vault of API pages has notes named "ch", "h" and "s": none is near "nosuchnote"
    const api = ["EditorPosition/ch.md", "HSL/h.md", "HSL/s.md", "Vault/Vault.md"];
    expect(closestNotes("nosuchnote", api)).toEqual([]);
    // a name that is most of what was typed still is
    expect(closestNotes("Vault.on", api)).toEqual(["Vault/Vault.md"]);
  });

  it("finds a note whose name was typed in the wrong folder, before the folder's other notes", () => {
    const help = [
      "Plugins/Canvas.md",
      "Plugins/Slides.md",
      "Plugins/Backlinks.md",
      "Editing and formatting/Callouts.md",
    ];
    // not the folder's own notes, whose whole paths are nearer than the note meant
    expect(closestNotes("Plugins/Calouts.md", help)).toEqual([
      "Editing and formatting/Callouts.md",
      "Plugins/Canvas.md",
    ]);
    expect(closestNotes("Plugins/Canvs", help)).toEqual(["Plugins/Canvas.md"]);
  });

  it("offers only the notes about as close as the best: a re-spaced name alone, notes holding a word by length", () => {
    const til = [
      "git/resetting-a-reset.md",
      "git/renaming-a-branch.md",
      "elixir/reversing-a-list.md",
      "git/stash-everything.md",
      "git/stashing-untracked-files.md",
      "git/stash-a-single-untracked-file.md",
      "git/show-stash.md",
    ];
    // the right one alone, without the two far names
    expect(closestNotes("Resetting A Reset", til)).toEqual(["git/resetting-a-reset.md"]);
    expect(closestNotes("stash", til)).toEqual([
      "git/show-stash.md",
      "git/stash-everything.md",
      "git/stashing-untracked-files.md",
    ]);
    expect(closestNotes("", til)).toEqual([]);
  });

  it("says how to fix a name: the closest notes, else a path of the vault's own, else that there are no notes", () => {
    expect(noteFix("sourdoug", paths)).toBe('did you mean "kitchen/Sourdough.md"?');
    expect(noteFix("kubernetes", paths)).toBe(
      `give a vault-relative path like "git/stash-everything.md" or a note's name; find notes with search`,
    );
    expect(noteFix("x", [])).toBe("the index has no notes yet: run `vault-rag index` first");
    expect(noteFix("x", [], "vault")).toBe("the vault has no Markdown notes yet");
  });
});

describe("closest names", () => {
  // the rule as first written: plain edit distance over every name (a swap of neighbours one edit,
  // optimal string alignment), the whole table, no early stop
  const lev = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) {
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.length][b.length];
  };
  it("count a swap of neighbours as one edit, and stop past a limit with limit + 1", () => {
    expect(editDistance("cuont", "count")).toBe(1);
    expect(editDistance("aproximate", "approximate")).toBe(1);
    expect(editDistance("ab", "ba")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("kitten", "sitting", 1)).toBe(2);
    fc.assert(
      fc.property(fc.stringMatching(/^[abc]{0,8}$/), fc.stringMatching(/^[abc]{0,8}$/), fc.nat(4), (a, b, limit) => {
        expect(editDistance(a, b)).toBe(lev(a, b));
        expect(editDistance(a, b, limit)).toBe(Math.min(lev(a, b), limit + 1));
      }),
      { numRuns: 2000 },
    );
  });
  const reference = (want: string, names: string[], n = 3) => {
    const w = want.toLowerCase();
    if (!w) return [];
    const scored = names
      .map((name) => {
        const l = name.toLowerCase();
        const d = l === w ? 0 : l.includes(w) || (w.includes(l) && 2 * l.length >= w.length) ? 1 : lev(w, l);
        return { name, d, gap: Math.abs(l.length - w.length) };
      })
      .filter((x) => x.d <= Math.max(2, Math.floor(w.length / 2)));
    const best = Math.min(Infinity, ...scored.map((x) => x.d));
    return scored
      .filter((x) => x.d <= best + 2)
      .sort((a, b) => a.d - b.d || a.gap - b.gap || a.name.localeCompare(b.name))
      .slice(0, n)
      .map((x) => x.name);
  };
  it("are those plain edit distance finds, though far names are given up on early", () => {
    const name = fc.stringMatching(/^[abcP-]{0,12}$/);
    fc.assert(
      fc.property(name, fc.array(name, { maxLength: 12 }), (want, names) => {
        expect(closest(want, names)).toEqual(reference(want, names));
      }),
      { numRuns: 2000 },
    );
  });
});
