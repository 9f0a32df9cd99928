import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openVault } from "../src/index.js";

// "é" as macOS file names often spell it (e + a combining accent) and as a keyboard types it
const nfd = (s: string) => s.normalize("NFD");
const nfc = (s: string) => s.normalize("NFC");

describe("names in either Unicode form", () => {
  it("finds notes, links, folders, tags and headings named with decomposed accents by names typed composed", async () => {
    const vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-nfd-")), "notes");
    fs.mkdirSync(path.join(vault, nfd("Café")), { recursive: true });
    fs.writeFileSync(path.join(vault, nfd("Café menu.md")), `# Menu\n\n## ${nfd("Crème")}\n\nCustard, burnt sugar.\n`);
    fs.writeFileSync(path.join(vault, nfd("Café/Plan.md")), `# Plan\n\nOpen the shutters at seven. #${nfd("café")}\n`);
    fs.writeFileSync(
      path.join(vault, "Diary.md"),
      `# Diary\n\nBreakfast at [[${nfc("Café menu")}|the bakery]] with pastries.\n`,
    );
    expect(nfd("Café")).not.toBe(nfc("Café"));
    const v = await openVault(vault);
    try {
      await v.index();
      // the note by a composed name
      expect((await v.related(nfc("Café menu"))).note).toBe(nfd("Café menu.md"));
      expect(await v.note(nfc("Café menu"), { heading: nfc("Crème") })).toEqual({
        path: nfd("Café menu.md"),
        text: `## ${nfd("Crème")}\n\nCustard, burnt sugar.`,
      });
      // the composed wikilink reached the decomposed note: its sentence is the note's backlink text
      const hit = (await v.search("pastries", { mode: "keyword" })).hits.find((h) => h.path === nfd("Café menu.md"));
      expect(hit?.backlinked).toBe(true);
      // a folder filter typed composed
      const inFolder = await v.search("shutters", { folder: nfc("Café") });
      expect(inFolder.hits.map((h) => h.path)).toEqual([nfd("Café/Plan.md")]);
      // a tag written with a decomposed accent, filtered typed composed
      const tagged = await v.search("pastries", { tags: [nfc("café")] });
      expect(tagged.hits.map((h) => h.path)).toEqual([nfd("Café/Plan.md")]);
    } finally {
      await v.close();
    }
  });
});
