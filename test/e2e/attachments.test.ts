import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmStub, type LlmStub } from "../support/llm-stub.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
let vault = "";
let stub: LlmStub;
const env = () => ({ ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", OLLAMA_HOST: stub?.base ?? "" });
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env: env(), encoding: "utf8" });
/** The CLI run asynchronously: the LLM stub lives in this process. */
const cliAsync = (args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });

/** examples/vault with the fixtures: a PDF manual, an encrypted, a damaged and a scanned PDF, a .docx, a board. */
function vaultWithAttachments(prefix: string): string {
  const { vault } = exampleVaultCopy(prefix);
  fs.mkdirSync(path.join(vault, "papers"));
  for (const f of ["manual-3p.pdf", "encrypted.pdf", "damaged.pdf", "scanned.pdf"])
    fs.copyFileSync(path.join(FIXTURES, f), path.join(vault, "papers", f));
  fs.copyFileSync(path.join(FIXTURES, "compost.docx"), path.join(vault, "garden", "compost.docx"));
  fs.mkdirSync(path.join(vault, "boards"));
  // the board's file cards name a note of the vault and the manual
  const board = JSON.parse(fs.readFileSync(path.join(FIXTURES, "garden-plan.canvas"), "utf8"));
  for (const n of board.nodes)
    if (n.type === "file") n.file = n.file === "manual.pdf" ? "papers/manual-3p.pdf" : "garden/Tomatoes.md";
  fs.writeFileSync(path.join(vault, "boards", "garden-plan.canvas"), JSON.stringify(board));
  return vault;
}

beforeAll(async () => {
  vault = vaultWithAttachments("vr-attachments-");
  stub = await startLlmStub();
  const r = cli(["index", vault]);
  expect(r.status, r.stderr).toBe(0);
}, 120_000);
afterAll(() => stub?.close());

describe("attachments through the CLI", () => {
  it("indexes the readable attachments with the notes, and says which could not be read and why", () => {
    const status = cli(["status", vault, "--json"]);
    const codes = (JSON.parse(status.stdout).warnings as { code: string; path: string }[])
      .filter((w) => w.code === "attachment_unreadable")
      .map((w) => w.path)
      .sort();
    expect(codes).toEqual(["papers/damaged.pdf", "papers/encrypted.pdf", "papers/scanned.pdf"]);
    expect(cli(["status", vault]).stdout).toMatch(/\nwarnings: +\d+ \(.*attachment_unreadable 3/);
    const verbose = cli(["status", vault, "--verbose"]).stdout;
    expect(verbose).toMatch(/warning: cannot read "papers\/encrypted\.pdf": encrypted — /);
    expect(verbose).toMatch(/warning: cannot read "papers\/scanned\.pdf": scanned: no text layer — /);
    expect(verbose).toMatch(/warning: cannot read "papers\/damaged\.pdf": damaged: \S.* — /);
    const check = cli(["check", vault]);
    // check counts notes and attachments apart, as status does
    const { notes, attachments } = JSON.parse(status.stdout) as { notes: number; attachments: number };
    expect(attachments).toBeGreaterThan(0);
    expect(JSON.parse(cli(["check", vault, "--json"]).stdout).counts).toMatchObject({ notes, attachments });
    expect(check.stdout).toMatch(new RegExp(`^${notes} notes, ${attachments} attachments, \\d+ chunks`, "m"));
    expect(check.stdout).toMatch(/warning: cannot read "papers\/encrypted\.pdf": encrypted/);
    expect(check.stdout).toMatch(/warning: cannot read "papers\/scanned\.pdf": scanned: no text layer/);
    expect(check.stdout).toMatch(/warning: cannot read "papers\/damaged\.pdf": damaged: /);
    // the rest of the vault is searchable: a note as before
    expect(cli(["search", "DRV8833", "--vault", vault, "-k", "1"]).stdout).toMatch(/\.md:\d+/);
  });

  it("finds the page that answers a question and prints it as file.pdf:pN", () => {
    const r = cli(["search", "how long does one watering cycle last", "--vault", vault, "-k", "3"]);
    expect(r.stdout.split("\n")[0]).toMatch(
      /^papers\/manual-3p\.pdf:p2 {2}Greenhouse Controller Manual > Watering schedule > p\. 2$/,
    );
    const json = JSON.parse(
      cli(["search", "frost guard amber lamp", "--vault", vault, "--type", "pdf", "--json"]).stdout,
    );
    expect(json[0]).toMatchObject({ path: "papers/manual-3p.pdf", page: 3, file_type: "pdf" });
    expect(json.every((h: { file_type?: string }) => h.file_type === "pdf")).toBe(true);
    // no passage holds two pages
    const chunks = JSON.parse(
      cli(["search", "greenhouse controller", "--vault", vault, "--type", "pdf", "--json", "-k", "20"]).stdout,
    );
    expect(new Set(chunks.map((h: { page: number }) => h.page))).toEqual(new Set([1, 2, 3]));
    for (const h of chunks) expect(h.section).toMatch(new RegExp(`> p\\. ${h.page}$`));
  });

  it("cites a PDF source by file name and page in ask", async () => {
    const r = await cliAsync(["ask", "--vault", vault, "-k", "1", "how long does one watering cycle last"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\nSources:\n\[1\] manual-3p\.pdf, p\. 2 — papers\/manual-3p\.pdf:p2\n$/);
  });

  it("finds a Canvas card under its group, and counts the board's file cards as links", () => {
    const r = cli(["search", "when to sow tomato seedlings indoors", "--vault", vault, "--type", "canvas", "-k", "1"]);
    expect(r.stdout).toMatch(/^boards\/garden-plan\.canvas:1 {2}garden-plan > Spring planting\n/);
    const linked = JSON.parse(
      cli([
        "search",
        "tomato",
        "--vault",
        vault,
        "--where",
        '{"links": {"$contains": "garden/Tomatoes.md"}}',
        "--type",
        "canvas",
        "--json",
      ]).stdout,
    );
    expect(linked.length).toBeGreaterThan(0);
    const related = JSON.parse(cli(["related", "garden/Tomatoes.md", "--vault", vault, "--json"]).stdout);
    const board = related.find((n: { path: string }) => n.path === "boards/garden-plan.canvas");
    expect(board?.linked).toBe(true);
  });

  it("keeps a Word document's headings as its breadcrumb", () => {
    const r = cli(["search", "turn the heap with a fork", "--vault", vault, "--type", "docx", "-k", "1"]);
    expect(r.stdout).toMatch(/^garden\/compost\.docx:\d+ {2}compost\.docx > Hot composting > Turning the heap\n/);
  });

  it("skips unchanged attachments, unreadable ones too, and reads a replaced PDF again", () => {
    const again = JSON.parse(cli(["index", vault, "--json"]).stdout);
    expect(again).toMatchObject({ added: 0, updated: 0, skipped: 0 });
    // the scanned PDF replaced by the manual: read again, and its warning goes
    fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(vault, "papers", "scanned.pdf"));
    const later = JSON.parse(cli(["index", vault, "--json"]).stdout);
    // counted as an attachment, apart from the notes
    expect(later).toMatchObject({ updated: 0, attachments: { updated: 1, unreadable: 0 } });
    const warned = JSON.parse(cli(["status", vault, "--json"]).stdout).warnings.map((w: { path: string }) => w.path);
    expect(warned).not.toContain("papers/scanned.pdf");
    // a PDF added since is a change status counts, as a new note is
    fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(vault, "papers", "added.pdf"));
    expect(JSON.parse(cli(["status", vault, "--json"]).stdout).stale).toBe(1);
    expect(JSON.parse(cli(["index", vault, "--json"]).stdout)).toMatchObject({ added: 0, attachments: { added: 1 } });
    expect(JSON.parse(cli(["status", vault, "--json"]).stdout).stale).toBe(0);
    // `chunks` reads no attachment as a note: it cuts each as `index` does, with its type
    const chunks = cli(["chunks", "--vault", vault]);
    expect(chunks.stderr).not.toMatch(/\.(pdf|docx)": it is a binary file/);
    expect(chunks.stdout).toMatch(/\(boards\/garden-plan\.canvas:\d+-\d+, canvas, \d+ words\)/);
    expect(chunks.stdout).toMatch(/\(papers\/added\.pdf:p2, pdf, \d+ words\)/);
  });

  it("leaves attachments out with --no-attachments or the vault's setting", () => {
    const other = vaultWithAttachments("vr-no-attachments-");
    const r = JSON.parse(cli(["index", other, "--no-attachments", "--json"]).stdout);
    expect(r.skipped).toBe(0);
    expect(cli(["search", "watering cycle", "--vault", other, "--type", "pdf"]).stdout).toBe("");
    fs.writeFileSync(path.join(other, ".vault-rag.json"), '{"attachments": false}');
    const s = JSON.parse(cli(["status", other, "--json"]).stdout);
    expect(s.stale).toBe(0);
  });
});

describe("OCR through the CLI (--ocr, the ocr setting)", () => {
  const made: string[] = [];
  afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  /** A vault of a note, the manual and the scanned PDF (a picture of "Scanned receipt 2024"). */
  const ocrVault = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    fs.writeFileSync(path.join(dir, "Note.md"), "# Note\n\nA note about the greenhouse.\n");
    for (const f of ["scanned.pdf", "manual-3p.pdf"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
    return dir;
  };
  const warned = (dir: string) =>
    (JSON.parse(cli(["status", dir, "--json"]).stdout).warnings as { path: string }[]).map((w) => w.path);

  it("reads a scanned PDF by OCR once asked, cites it to the page, and says what is missing without tesseract", () => {
    const dir = ocrVault("vr-ocr-cli-");
    const plain = cli(["index", dir, "--json"]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(warned(dir)).toEqual(["scanned.pdf"]);
    // asked for OCR where neither program is on PATH: one line says what is missing and how to install it
    const bare = spawnSync(process.execPath, [BIN, "index", dir, "--ocr"], {
      env: { ...env(), PATH: path.join(dir, "no-such-folder") },
      encoding: "utf8",
    });
    expect(bare.status, bare.stderr).toBe(0);
    expect(bare.stderr).toContain(
      "warning: OCR needs tesseract and pdftoppm, not found on PATH — scanned PDFs stay unread; install them with: sudo apt-get install tesseract-ocr poppler-utils\n",
    );
    expect(warned(dir)).toEqual(["scanned.pdf"]);
    // with the programs: the scanned PDF stored unread is read again, by OCR, and its warning goes
    const ocr = cli(["index", dir, "--ocr", "--json"]);
    expect(ocr.status, ocr.stderr).toBe(0);
    expect(JSON.parse(ocr.stdout)).toMatchObject({ updated: 0, attachments: { updated: 1, unreadable: 0 } });
    expect(warned(dir)).toEqual([]);
    const hit = cli(["search", "scanned receipt", "--vault", dir, "--mode", "keyword", "-k", "1"]);
    expect(hit.stdout, hit.stderr).toMatch(/^scanned\.pdf:p1 {2}scanned\.pdf > p\. 1\n {4}Scanned receipt 2024/);
    // read once: the next run with OCR skips it as unchanged
    expect(JSON.parse(cli(["index", dir, "--ocr", "--json"]).stdout)).toMatchObject({
      added: 0,
      updated: 0,
      attachments: { added: 0, updated: 0 },
    });
  });

  it('reads scanned PDFs by OCR with "ocr": true in .vault-rag.json, and status counts them waiting till then', () => {
    const dir = ocrVault("vr-ocr-setting-");
    const stale = () => JSON.parse(cli(["status", dir, "--json"]).stdout).stale as number;
    expect(cli(["index", dir]).status).toBe(0);
    expect(warned(dir)).toEqual(["scanned.pdf"]);
    expect(stale()).toBe(0);
    // the setting asks for OCR: the scanned PDF stored unread waits for the next index
    fs.writeFileSync(path.join(dir, ".vault-rag.json"), '{"ocr": true}');
    expect(stale()).toBe(1);
    expect(JSON.parse(cli(["check", dir, "--json"]).stdout).stale).toBe(1);
    const r = cli(["index", dir, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    expect(warned(dir)).toEqual([]);
    expect(stale()).toBe(0);
    const hit = JSON.parse(cli(["search", "receipt", "--vault", dir, "--type", "pdf", "--json"]).stdout);
    expect(hit[0]).toMatchObject({ path: "scanned.pdf", page: 1, file_type: "pdf" });
  });
});
