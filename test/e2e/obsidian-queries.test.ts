import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { explain } from "../support/children.js";
import { BIN } from "./helpers.js";

// Obsidian's queries, templates and embeds through the CLI: a Dataview dashboard, a Templater
// template and a note of one pasted picture must not rank as prose nor reach an answer's sources
let vault = "";

function run(args: string[], dir = vault) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULT_RAG_VAULT: dir },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

type Hit = { path: string; text: string };

beforeAll(() => {
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-obsidian-")), "vault");
  write(vault, {
    ".obsidian/templates.json": '{"folder": "Templates"}',
    ".vault-rag.json": '{"leaveOut": {"headings": ["Evolution Log"]}}',
    "philosophy/Dichotomy of Control.md":
      "# Dichotomy of Control\n\nThe Stoics held that some things are up to us, our judgements and our choices, and the rest is not; peace comes from minding only the first.\n",
    "Dashboard.md": [
      "# Dashboard",
      "",
      "```dataview",
      'TABLE status FROM "philosophy" WHERE contains(file.name, "dichotomy of control")',
      "```",
      "",
      '<%* const q = "what is the dichotomy of control" %><% tp.file.cursor(1) %>',
      "",
      "Open: `= this.dichotomy` `$= dv.pages('#control').length`",
      "",
    ].join("\n"),
    "philosophy/Epictetus.md":
      "# Epictetus\n\nA Greek Stoic teacher, born a slave, whose pupil Arrian wrote down his discourses.\n\n## Evolution Log\n\n- 2025-11-25 added the dichotomy of control\n",
    "Templates/Concept.md": "# <% tp.file.title %>\n\nWhat is the dichotomy of control in {{title}}?\n",
    "de/Schaltungen.md": "# Schaltungen\n\n![[Pasted image 20251203194416.png]]\n",
    "de/Flip-Flop.md":
      "# Flip-Flop\n\nEin Flip-Flop speichert ein Bit; es schaltet bei der Flanke des Takts, wie die Schaltungen im Praktikum zeigen.\n",
  });
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, explain("index", r)).toBe(0);
});

describe("vault-rag on Obsidian's queries, templates and embeds", () => {
  it("ranks the definition first, with no dashboard, template or left-out section among the hits", () => {
    for (const mode of ["keyword", "hybrid"]) {
      const r = run(["search", "--json", "--mode", mode, "-k", "10", "what is the dichotomy of control"]);
      expect(r.code, explain(`search --mode ${mode}`, r)).toBe(0);
      const hits = JSON.parse(r.stdout) as Hit[];
      expect(hits[0].path).toBe("philosophy/Dichotomy of Control.md");
      expect(hits.map((h) => h.path)).not.toContain("Templates/Concept.md");
      for (const h of hits) {
        expect(h.text).not.toMatch(/dataview|tp\.file|this\.dichotomy|Evolution Log/);
      }
      // the dashboard's words are all inside its query, its Templater tag and inline queries: no
      // keyword matches it (a dense list on a vault of five notes holds every passage)
      if (mode === "keyword") expect(hits.map((h) => h.path)).not.toContain("Dashboard.md");
    }
  });

  it("finds a note of one picture by its title, but never hands it to ask", () => {
    const found = run(["search", "--json", "--mode", "keyword", "Schaltungen"]);
    expect(found.code, explain("search", found)).toBe(0);
    const paths = (JSON.parse(found.stdout) as Hit[]).map((h) => h.path);
    expect(paths).toContain("de/Schaltungen.md");
    const asked = run(["ask", "--context-only", "--json", "--mode", "keyword", "Schaltungen"]);
    expect(asked.code, explain("ask --context-only", asked)).toBe(0);
    const sources = (JSON.parse(asked.stdout) as { sources: { path: string }[] }).sources.map((s) => s.path);
    expect(sources).toContain("de/Flip-Flop.md");
    expect(sources).not.toContain("de/Schaltungen.md");
    expect(asked.stdout).not.toContain("Pasted image");
  });

  it("says why a template is not indexed when it is asked for by name", () => {
    const r = run(["chunks", vault, "--note", "Templates/Concept.md"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"Templates/" is the templates folder (.obsidian/templates.json names it)');
  });

  it("refuses a settings file of the wrong shape with one line naming it", () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "vr-obsidian-bad-"));
    write(other, { ".vault-rag.json": '{"leaveOut": {"headings": "Backlinks"}}', "Note.md": "# Note\n\nwords\n" });
    const r = run(["index", other, "--quiet"], other);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(null);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(other, ".vault-rag.json")} "leaveOut.headings" must be a list`);
  });
});
