import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });
let vault = "";

/** `vault-rag search --json` with `args`: the hits (none is `[]`, exit 1). */
function hits(query: string, ...args: string[]): { path: string; tags: string[]; page?: number }[] {
  const r = cli(["search", query, "--vault", vault, "--json", ...args]);
  expect([0, 1], r.stderr).toContain(r.status);
  return JSON.parse(r.stdout);
}

/** `vault-rag index --json`, checked to exit 0. */
function index(): Record<string, any> {
  const r = cli(["index", vault, "--json"]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const write = (rel: string, text: string) => fs.writeFileSync(path.join(vault, rel), text);

beforeAll(() => {
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-att-tags-")), "vault");
  fs.mkdirSync(path.join(vault, "papers"), { recursive: true });
  fs.mkdirSync(path.join(vault, "notes"));
  fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(vault, "papers", "manual-3p.pdf"));
  fs.copyFileSync(path.join(FIXTURES, "compost.docx"), path.join(vault, "papers", "compost.docx"));
  // an embed, a Markdown link (relative to the note's folder) and a wikilink
  write(
    "notes/Reading.md",
    "---\ntags: [greenhouse]\n---\n# Reading\n\nThe controller's manual:\n\n![[manual-3p.pdf]]\n",
  );
  write("notes/Bench.md", "# Bench\n\n#hardware The wiring is in [the manual](../papers/manual-3p.pdf), page 2.\n");
  write("notes/Heap.md", "# Heap\n\n#garden How I turn the heap: [[compost.docx]].\n");
  write("Plain.md", "# Plain\n\nA note that links to nothing, tagged #greenhouse too.\n");
  index();
}, 120_000);

describe("an attachment's tags come from the notes that link to it", () => {
  it("finds a PDF's pages by the tags of the notes that embed it or link to it, and no other's", () => {
    const pdf = hits("watering cycle", "--tag", "greenhouse", "--type", "pdf");
    expect(pdf.length).toBeGreaterThan(0);
    for (const h of pdf) {
      expect(h.path).toBe("papers/manual-3p.pdf");
      expect(h.tags).toEqual(["greenhouse", "hardware"]);
    }
    expect(hits("watering cycle", "--tag", "hardware", "--type", "pdf").map((h) => h.path)).toContain(
      "papers/manual-3p.pdf",
    );
    const docx = hits("turning the heap", "--where", '{"tags": {"$contains": "garden"}}', "--type", "docx");
    expect(docx.map((h) => h.path)).toContain("papers/compost.docx");
    // a note's tags are not passed to an attachment it does not link to
    expect(hits("turning the heap", "--tag", "greenhouse", "--type", "docx")).toEqual([]);
  });

  it("follows a linking note's tags, a link removed and a note deleted, without embedding again", () => {
    write(
      "notes/Reading.md",
      "---\ntags: [orchard]\n---\n# Reading\n\nThe controller's manual:\n\n![[manual-3p.pdf]]\n",
    );
    const retagged = index();
    // the PDF is not read again, and nothing is embedded: the note's text is as it was
    expect(retagged).toMatchObject({ updated: 1, embedded: 0, attachments: { updated: 0, unchanged: 2 } });
    expect(hits("watering cycle", "--tag", "greenhouse", "--type", "pdf")).toEqual([]);
    expect(hits("watering cycle", "--tag", "orchard", "--type", "pdf")[0]).toMatchObject({
      path: "papers/manual-3p.pdf",
      tags: ["hardware", "orchard"],
    });
    // the link removed: that note's tag goes
    write("notes/Bench.md", "# Bench\n\n#hardware The wiring is in the manual, page 2.\n");
    index();
    expect(hits("watering cycle", "--tag", "hardware", "--type", "pdf")).toEqual([]);
    expect(hits("watering cycle", "--type", "pdf")[0].tags).toEqual(["orchard"]);
    // the linking note deleted: the Word document has no tags left
    fs.rmSync(path.join(vault, "notes/Heap.md"));
    index();
    expect(hits("turning the heap", "--tag", "garden", "--type", "docx")).toEqual([]);
    expect(hits("turning the heap", "--type", "docx")[0].tags).toEqual([]);
    // the vectors were kept throughout: every passage has them, none was embedded again
    const st = JSON.parse(cli(["status", vault, "--json"]).stdout);
    expect(st.phases.dense).toMatchObject({ state: "complete" });
  });
});
