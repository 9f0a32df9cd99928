import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chunkAttachment } from "../../src/chunk/index.js";
import { readCanvas } from "../../src/vault/attachments/canvas.js";
import { htmlToMarkdown, readDocx } from "../../src/vault/attachments/docx.js";
import { readPdf } from "../../src/vault/attachments/pdf.js";
import { fileTypeOf, readAttachment, walkVault, type VaultFile } from "../../src/vault/index.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
const bytes = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));

/** A vault holding the fixtures named, as the walk lists them. */
function vaultOf(...names: string[]): { root: string; files: VaultFile[] } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-att-"));
  for (const n of names) fs.copyFileSync(path.join(FIXTURES, n), path.join(root, n));
  fs.writeFileSync(path.join(root, "Note.md"), "# Note\n\nA note.\n");
  return { root, files: walkVault(root) };
}

describe("fileTypeOf", () => {
  it("names notes and the attachments read, by extension in any case", () => {
    expect(fileTypeOf("a/b.md")).toBe("note");
    expect(fileTypeOf("papers/X.PDF")).toBe("pdf");
    expect(fileTypeOf("plan.canvas")).toBe("canvas");
    expect(fileTypeOf("work/Report.docx")).toBe("docx");
    expect(fileTypeOf("photo.jpg")).toBeUndefined();
    expect(fileTypeOf("folder.pdf/README")).toBeUndefined();
  });
});

describe("readPdf", () => {
  it("reads each page's text with its outline entry as heading, and the metadata title", async () => {
    const r = await readPdf(bytes("manual-3p.pdf"));
    if ("reason" in r) throw new Error(r.reason);
    expect(r.title).toBe("Greenhouse Controller Manual");
    expect(r.pages).toBe(3);
    expect(r.parts.map((p) => [p.page, p.trail])).toEqual([
      [1, ["Installation"]],
      [2, ["Watering schedule"]],
      [3, ["Troubleshooting"]],
    ]);
    expect(r.parts[1].text).toContain("Each watering cycle lasts at most eight minutes");
    // two paragraphs on the page, a blank line apart
    expect(r.parts[1].text.split("\n\n")).toHaveLength(2);
  });

  it("says why a PDF cannot be read: encrypted, damaged, scanned", async () => {
    expect(await readPdf(bytes("encrypted.pdf"))).toEqual({ reason: "encrypted" });
    expect(await readPdf(bytes("scanned.pdf"))).toEqual({ reason: "scanned" });
    const damaged = await readPdf(bytes("damaged.pdf"));
    expect(damaged).toMatchObject({ reason: "damaged" });
    expect((damaged as { detail: string }).detail).toMatch(/\S/);
    expect(await readPdf(new TextEncoder().encode("not a pdf"))).toMatchObject({ reason: "damaged" });
  });

  it("stops at its deadline", async () => {
    expect(await readPdf(bytes("manual-3p.pdf"), performance.now() - 1)).toEqual({ reason: "timeout" });
  });
});

describe("readDocx", () => {
  it("keeps a Word document's headings as Markdown headings", async () => {
    const r = await readDocx(bytes("compost.docx"));
    if ("reason" in r) throw new Error(r.reason);
    expect(r.parts).toHaveLength(1);
    expect(r.parts[0].text).toMatch(/^# Hot composting\n\nA hot compost heap/);
    expect(r.parts[0].text).toContain("\n\n## Turning the heap\n\n");
    expect(r.parts[0].text).toContain("\n\n# Worm bins\n\n");
  });

  it("says a file that is no Word document is damaged, with mammoth's message", async () => {
    expect(await readDocx(bytes("manual-3p.pdf"))).toMatchObject({ reason: "damaged", detail: expect.any(String) });
  });

  it("turns mammoth's HTML into Markdown blocks, entities decoded", () => {
    expect(htmlToMarkdown("<h2>Turning</h2><p>Turn it &amp; <strong>wait</strong>.</p><ul><li>one</li></ul>")).toBe(
      "## Turning\n\nTurn it & wait.\n\n- one",
    );
  });
});

describe("readCanvas", () => {
  it("gives each text card under its group's label, and the file cards' files", () => {
    const r = readCanvas(fs.readFileSync(path.join(FIXTURES, "garden-plan.canvas"), "utf8"));
    if ("reason" in r) throw new Error(r.reason);
    expect(r.parts.map((p) => p.trail)).toEqual([["Spring planting"], ["Spring planting"], []]);
    expect(r.parts[2].text).toMatch(/^Budget review/);
    expect(r.files).toEqual(["Greenhouse.md", "manual.pdf"]);
  });

  it("says a board that is not JSON Canvas is damaged", () => {
    expect(readCanvas("{nodes")).toMatchObject({ reason: "damaged" });
    expect(readCanvas('{"nodes": 3}')).toMatchObject({ reason: "damaged" });
    expect(readCanvas("{}")).toEqual({ parts: [], files: [] });
  });
});

describe("readAttachment and chunkAttachment", () => {
  it("cuts a PDF page by page: breadcrumb, page and type on every passage, none across two pages", async () => {
    const { files } = vaultOf("manual-3p.pdf");
    const r = await readAttachment(files.find((f) => f.path === "manual-3p.pdf")!);
    if (!("attachment" in r)) throw new Error("unread");
    const chunks = chunkAttachment(r.attachment, { maxWords: 20, minWords: 5 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.meta.file_type).toBe("pdf");
      expect(c.meta.section).toMatch(new RegExp(`^Greenhouse Controller Manual > .+ > p\\. ${c.meta.page}$`));
      const page = r.attachment.parts.find((p) => p.page === c.meta.page)!;
      // each passage's words are its page's
      for (const w of c.text.split(/\s+/)) expect(page.text).toContain(w);
    }
    expect(chunks.map((c) => c.meta.ordinal)).toEqual(chunks.map((_, i) => i));
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    // the model reads the headings below the title, not the page number
    expect(chunks[0].embedText.split("\n")[0]).toBe("Installation");
  });

  it("titles a board by its name and links it to its file cards", async () => {
    const { files } = vaultOf("garden-plan.canvas");
    const r = await readAttachment(files.find((f) => f.path === "garden-plan.canvas")!);
    if (!("attachment" in r)) throw new Error("unread");
    expect(r.attachment.note).toMatchObject({ title: "garden-plan", links: ["Greenhouse.md", "manual.pdf"] });
    const chunks = chunkAttachment(r.attachment);
    expect(chunks.map((c) => c.meta.section)).toEqual([
      "garden-plan > Spring planting",
      "garden-plan > Spring planting",
      "garden-plan",
    ]);
    expect(chunks.every((c) => c.meta.links.includes("Greenhouse.md") && !c.meta.page)).toBe(true);
  });

  it("refuses an attachment over the size limit as oversized, before reading it", async () => {
    const { files } = vaultOf("manual-3p.pdf");
    const r = await readAttachment(
      files.find((f) => f.path === "manual-3p.pdf")!,
      { maxBytes: 1000 },
    );
    expect(r).toMatchObject({ unreadable: { reason: "oversized" } });
  });

  it("is walked unless the vault's settings or the caller turn attachments off", () => {
    const { root, files } = vaultOf("manual-3p.pdf", "compost.docx", "garden-plan.canvas");
    expect(files.map((f) => f.path)).toEqual(["compost.docx", "garden-plan.canvas", "manual-3p.pdf", "Note.md"].sort());
    expect(walkVault(root, undefined, { attachments: false }).map((f) => f.path)).toEqual(["Note.md"]);
    fs.writeFileSync(path.join(root, ".vault-rag.json"), '{"attachments": false}');
    expect(walkVault(root).map((f) => f.path)).toEqual(["Note.md"]);
    fs.writeFileSync(path.join(root, ".vault-ragignore"), "*.pdf\n");
    expect(walkVault(root, undefined, { attachments: true }).map((f) => f.path)).toEqual(
      ["compost.docx", "garden-plan.canvas", "Note.md"].sort(),
    );
  });
});

describe("loading", () => {
  it("loads neither pdf.js, mammoth nor the reading thread for a vault without attachments", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-att-lazy-"));
    fs.writeFileSync(path.join(root, "Note.md"), "# Note\n\nA note about motors.\n");
    // a loader hook that reports every package resolved, in the real CLI
    const hook = path.join(root, "hook.mjs");
    fs.writeFileSync(
      hook,
      `import { register } from "node:module";\nregister("data:text/javascript,${encodeURIComponent(
        'import fs from "node:fs"; export async function resolve(s, c, next) { if (/^(unpdf|mammoth)$|thread-worker\\.js$/.test(s)) fs.writeSync(2, "LOADED " + s.replace(/.*\\//, "") + "\\n"); return next(s, c); }',
      )}");\n`,
    );
    const run = (vault: string) =>
      spawnSync(process.execPath, ["--import", hook, path.resolve("dist/cli/main.js"), "index", vault, "--quiet"], {
        encoding: "utf8",
        env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
      });
    const plain = run(root);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain("LOADED");
    fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(root, "manual.pdf"));
    const pdf = run(root);
    expect(pdf.stderr).toContain("LOADED thread-worker.js");
    expect(pdf.stderr).toContain("LOADED unpdf");
  }, 60_000);
});

describe("watch", () => {
  it("reads a PDF replaced under watch again", async () => {
    const { watchVault } = await import("../../src/indexing/index.js");
    const { useLiteEmbedder } = await import("../../src/embed/index.js");
    const { SqliteStore } = await import("../../src/store/index.js");
    const { until } = await import("../support/children.js");
    const { root } = vaultOf("manual-3p.pdf");
    const db = path.join(root, ".vault-rag/index.db");
    const texts = async () => {
      const s = SqliteStore.open(db);
      const all = (await s.get({ path: "manual-3p.pdf" })).map((r) => r.text).join("\n");
      await s.close();
      return all;
    };
    const w = await watchVault(root, db, useLiteEmbedder(), { debounceMs: 100 });
    try {
      await w.idle();
      expect(await texts()).toContain("watering cycle");
      // replaced by another manual, as a download over the old file
      fs.copyFileSync(
        path.resolve("examples/vault/reference/LP-200 label printer manual.pdf"),
        path.join(root, "manual-3p.pdf"),
      );
      await until("the replaced PDF's text in the index", async () => (await texts()).includes("ribbon cartridge"));
      expect(await texts()).not.toContain("watering cycle");
    } finally {
      await w.close();
    }
  }, 60_000);
});
