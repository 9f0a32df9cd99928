import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { textPdf } from "../../bench/pdf-gen.js";
import { readAttachment, readAttachmentOffThread, walkVault, type VaultFile } from "../../src/vault/index.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-att-thread-"));
fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(root, "manual.pdf"));
fs.copyFileSync(path.join(FIXTURES, "compost.docx"), path.join(root, "compost.docx"));
// a PDF whose reading takes far more heap than the small manual's (over 32 MB for 300 pages)
fs.writeFileSync(path.join(root, "big.pdf"), textPdf(600));
const files = walkVault(root);
const file = (name: string): VaultFile => files.find((f) => f.path === name)!;
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("readAttachmentOffThread", () => {
  it("gives what readAttachment gives on this thread: parts, title, hash", async () => {
    for (const name of ["manual.pdf", "compost.docx"]) {
      const here = await readAttachment(file(name));
      const there = await readAttachmentOffThread(file(name));
      expect(there).toEqual(here);
      expect("attachment" in there && there.attachment.parts.length).toBeGreaterThan(0);
    }
  });

  it("records a file over the memory limit as unreadable, and reads the next file on a new thread", async () => {
    // 24 MB of heap: the manual reads within it, the 600-page PDF does not
    const big = await readAttachmentOffThread(file("big.pdf"), { memoryMb: 24 });
    expect(big).toMatchObject({
      unreadable: { reason: "memory", detail: "24 MB" },
      stat: { size: fs.statSync(path.join(root, "big.pdf")).size },
    });
    const next = await readAttachmentOffThread(file("manual.pdf"), { memoryMb: 24 });
    expect("attachment" in next && next.attachment.parts.map((p) => p.page)).toEqual([1, 2, 3]);
  });

  it("records a file over the time limit as unreadable, and reads the next file", async () => {
    // no PDF is read, thread and all, within a millisecond
    const slow = await readAttachmentOffThread(file("big.pdf"), { seconds: 0.001 });
    expect(slow).toMatchObject({ unreadable: { reason: "timeout", detail: "0.001 s" } });
    const next = await readAttachmentOffThread(file("manual.pdf"));
    expect("attachment" in next && next.attachment.note.title).toBe("Greenhouse Controller Manual");
  });

  it("reads files one at a time, each answered with its own", async () => {
    const [a, b, c] = await Promise.all([
      readAttachmentOffThread(file("compost.docx")),
      readAttachmentOffThread(file("big.pdf"), { seconds: 0.001 }),
      readAttachmentOffThread(file("manual.pdf")),
    ]);
    expect("attachment" in a && a.attachment.type).toBe("docx");
    expect(b).toMatchObject({ unreadable: { reason: "timeout" } });
    expect("attachment" in c && c.attachment.type).toBe("pdf");
  });

  it("reads a file in a process run with flags a thread refuses (node --input-type=module -e)", () => {
    const dist = path.resolve("dist/vault/index.js");
    expect(fs.existsSync(dist), "dist/ is missing — run `npm run build` (npm test does it)").toBe(true);
    const script = `const { readAttachmentOffThread, walkVault } = await import(${JSON.stringify(dist)});
      const f = walkVault(${JSON.stringify(root)}).find((x) => x.path === "manual.pdf");
      const r = await readAttachmentOffThread(f);
      console.log(JSON.stringify(r.unreadable ?? r.attachment.parts.map((p) => p.page)));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("[1,2,3]");
  });

  it("gives the error, with its code, of a file that cannot be opened", async () => {
    const gone = { ...file("manual.pdf"), path: "gone.pdf", absPath: path.join(root, "gone.pdf") };
    const r = await readAttachmentOffThread(gone);
    expect("error" in r && r.error.code).toBe("ENOENT");
  });
});
