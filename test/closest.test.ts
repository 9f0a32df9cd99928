import { describe, expect, it } from "vitest";
import { closestNotes, noteFix } from "../src/closest.js";

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
    // before: the folder's own notes, whose whole paths are nearer than the note meant
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
    // before, the two far names came along with the right one
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
