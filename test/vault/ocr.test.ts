import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ocrPages } from "../../src/vault/attachments/ocr.js";
import { readPdf } from "../../src/vault/attachments/pdf.js";
import { ocrMissing, readAttachmentOffThread, walkVault } from "../../src/vault/index.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
/** A page with a picture of the words "Scanned receipt 2024" and no text layer (see make.sh). */
const scanned = () => new Uint8Array(fs.readFileSync(path.join(FIXTURES, "scanned.pdf")));
let root = "";

beforeAll(() => {
  // the real programs, never a stand-in: .ci/run installs them (tesseract-ocr poppler-utils)
  expect(ocrMissing(), "OCR tests need: apt-get install tesseract-ocr poppler-utils").toEqual([]);
  root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-ocr-"));
  fs.copyFileSync(path.join(FIXTURES, "scanned.pdf"), path.join(root, "scan.pdf"));
  fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(root, "manual.pdf"));
});
afterAll(() => root && fs.rmSync(root, { recursive: true, force: true }));

describe("ocrMissing", () => {
  it("names the programs not on PATH", () => {
    expect(ocrMissing("/nonexistent")).toEqual(["tesseract", "pdftoppm"]);
    expect(ocrMissing("")).toEqual(["tesseract", "pdftoppm"]);
  });
});

describe("OCR of a scanned PDF", () => {
  it("reads the words in a page's picture with tesseract", async () => {
    const [text] = await ocrPages(scanned(), [1]);
    expect(text).toMatch(/Scanned receipt 2024/);
  });

  it("gives readPdf's pages with no text layer to OCR, and only those", async () => {
    const asked: number[][] = [];
    const ocr = async (pages: number[]) => (asked.push(pages), ocrPages(scanned(), pages));
    const r = await readPdf(scanned(), Infinity, ocr);
    if ("reason" in r) throw new Error(r.reason);
    expect(r.parts).toEqual([{ page: 1, trail: [], text: expect.stringMatching(/Scanned receipt 2024/) }]);
    const text = await readPdf(new Uint8Array(fs.readFileSync(path.join(FIXTURES, "manual-3p.pdf"))), Infinity, ocr);
    expect("parts" in text && text.parts).toHaveLength(3);
    expect(asked).toEqual([[1]]); // the manual's pages all have text
  });

  it("is off unless asked: a scanned PDF is then `scanned`", async () => {
    const file = walkVault(root).find((f) => f.path === "scan.pdf")!;
    expect(await readAttachmentOffThread(file)).toMatchObject({ unreadable: { reason: "scanned" } });
    const told: number[] = [];
    const r = await readAttachmentOffThread(file, { ocr: true, onOcr: (n) => told.push(n) });
    if (!("attachment" in r)) throw new Error(JSON.stringify(r));
    expect(r.attachment.parts.map((p) => [p.page, p.text])).toEqual([[1, expect.stringMatching(/receipt 2024/)]]);
    expect(told).toEqual([1]);
  });
});

describe("watch with OCR", () => {
  it("indexes a scanned PDF's words when watching with ocr", async () => {
    const { watchVault } = await import("../../src/indexing/index.js");
    const { useLiteEmbedder } = await import("../../src/embed/index.js");
    const { SqliteStore } = await import("../../src/store/index.js");
    const db = path.join(root, ".vault-rag/index.db");
    const w = await watchVault(root, db, useLiteEmbedder(), { debounceMs: 100, ocr: true });
    try {
      await w.idle();
    } finally {
      await w.close();
    }
    const s = SqliteStore.open(db);
    try {
      const rows = await s.get({ path: "scan.pdf" });
      expect(rows.map((r) => [r.meta.page, r.text])).toEqual([[1, expect.stringMatching(/Scanned receipt 2024/)]]);
    } finally {
      await s.close();
    }
  });
});
