import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LEAVE_OUT_DEFAULTS, withoutQueries } from "../../src/vault/queries.js";
import { templateFolders } from "../../src/vault/templates.js";
import { walkVault, whyNotWalked } from "../../src/vault/walk.js";
import { readSettings, SETTINGS_FILE } from "../../src/settings.js";
import { holdsProse } from "../../src/answer/context.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

describe("withoutQueries", () => {
  it("blanks a dataview block and its fences, keeping every other line", () => {
    const text = "# Books\n\n```dataview\nTABLE rating\nFROM #book\n```\nRead more.\n";
    expect(withoutQueries(text)).toBe("# Books\n\n\n\n\n\nRead more.\n");
  });

  it("keeps a code block of another language, and a dataview fence inside it", () => {
    const text = "````md\n```dataview\nLIST\n```\n````\n```js\nconst x = 1; // <% not a tag %>\n```\n";
    expect(withoutQueries(text)).toBe(text);
  });

  it("leaves out dataviewjs, query and tasks blocks, and a tilde fence", () => {
    for (const lang of ["dataviewjs", "query", "tasks", "DataView"]) {
      expect(withoutQueries(`a\n~~~${lang}\nx\n~~~\nb`)).toBe("a\n\n\n\nb");
    }
  });

  it("leaves out Templater tags on a line and across lines, but not in a code span", () => {
    expect(withoutQueries("Made <% tp.date.now() %> today")).toBe("Made  today");
    expect(withoutQueries("a <%*\nconst x = 1;\n%> b")).toBe("a \n\n b");
    expect(withoutQueries("Write `<% tp.file.title %>` in a template")).toBe(
      "Write `<% tp.file.title %>` in a template",
    );
  });

  it("leaves out inline Dataview queries and media embeds, not other code or note embeds", () => {
    expect(withoutQueries("By `= this.author` and `$= dv.current()` with `x = 1`")).toBe("By  and  with `x = 1`");
    expect(withoutQueries("In Vim hit `=` or `==` to indent")).toBe("In Vim hit `=` or `==` to indent");
    expect(withoutQueries("![[Pasted image 20251203194416.png]]\n![[talk.mp3|300]]\n![[Other note]]")).toBe(
      "\n\n![[Other note]]",
    );
  });

  it("leaves out the sections under headings the setting names, to the next heading of their level", () => {
    const text = "# Note\nbody\n## Backlinks\n- [[A]]\n### Deeper\nx\n## Next\nkept\n";
    expect(withoutQueries(text, { ...LEAVE_OUT_DEFAULTS, headings: ["backlinks"] })).toBe(
      "# Note\nbody\n\n\n\n\n## Next\nkept\n",
    );
  });

  it("keeps every line's number and never adds text (property)", () => {
    const part = fc.constantFrom(
      "```dataview",
      "```",
      "~~~",
      "<% tp.x %>",
      "<%*",
      "%>",
      "`= this.a`",
      "![[p.png]]",
      "## Backlinks",
      "## Other",
      "plain words",
      "`code`",
      "",
    );
    fc.assert(
      fc.property(fc.array(fc.array(part, { maxLength: 3 }), { maxLength: 30 }), (rows) => {
        const text = rows.map((r) => r.join(" ")).join("\n");
        const out = withoutQueries(text, { ...LEAVE_OUT_DEFAULTS, headings: ["Backlinks"] });
        expect(out.split("\n").length).toBe(text.split("\n").length);
        expect(out.length).toBeLessThanOrEqual(text.length);
        // a text holding nothing to leave out comes back as it is
        if (!/dataview|<%|%>|`=|!\[\[|Backlinks/.test(text)) expect(out).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("template folders", () => {
  function vault(files: Record<string, string>): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-templates-"));
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    return root;
  }

  it("reads the core plugin's and Templater's folders, and ignores a broken settings file", () => {
    const root = vault({
      ".obsidian/templates.json": '{"folder": "/Templates/"}',
      ".obsidian/plugins/templater-obsidian/data.json": '{"templates_folder": "meta/tp"}',
    });
    expect(templateFolders(root)).toEqual([
      { folder: "Templates", source: ".obsidian/templates.json" },
      { folder: "meta/tp", source: ".obsidian/plugins/templater-obsidian/data.json" },
    ]);
    fs.writeFileSync(path.join(root, ".obsidian/templates.json"), "{not json");
    expect(templateFolders(root).map((t) => t.folder)).toEqual(["meta/tp"]);
  });

  it("leaves the template folder out of a walk, and says why", () => {
    const root = vault({
      ".obsidian/templates.json": '{"folder": "Templates"}',
      "Templates/Daily.md": "# <% tp.file.title %>\n",
      "Templates Archive/Kept.md": "# Kept\n",
      "Note.md": "# Note\n",
    });
    expect(walkVault(root).map((f) => f.path)).toEqual(["Note.md", "Templates Archive/Kept.md"]);
    expect(whyNotWalked(root, "Templates/Daily.md")).toContain("is the templates folder (.obsidian/templates.json");
  });
});

describe("settings file", () => {
  function withSettings(text: string | undefined): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-settings-"));
    if (text !== undefined) fs.writeFileSync(path.join(root, SETTINGS_FILE), text);
    return root;
  }

  it("adds the languages and headings it names to the defaults", () => {
    const s = readSettings(withSettings('{"leaveOut": {"codeLanguages": ["chart"], "headings": ["Backlinks"]}}'));
    expect(s.leaveOut.codeLanguages).toEqual([...LEAVE_OUT_DEFAULTS.codeLanguages, "chart"]);
    expect(s.leaveOut.headings).toEqual(["Backlinks"]);
    expect(readSettings(withSettings(undefined)).leaveOut).toEqual(LEAVE_OUT_DEFAULTS);
  });
});

describe("holdsProse", () => {
  it("finds no prose in headings, links and embeds alone", () => {
    expect(holdsProse("# Schaltungen\n\n\n")).toBe(false);
    expect(holdsProse("## Sources & References\n- [[Seneca]]\n- [Letters](https://example.org)\n")).toBe(false);
    expect(holdsProse("## Control\nSome things are up to us.")).toBe(true);
    expect(holdsProse("- [[Seneca]] wrote letters")).toBe(true);
  });
});
