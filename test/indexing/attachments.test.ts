import { describe, expect, it } from "vitest";
import { ocrReady, unreadableText } from "../../src/indexing/attachments.js";
import { collectingLogger, silentLogger } from "../../src/log.js";

describe("unreadableText", () => {
  it("says each reason on one line, with the limit it went over and the fix", () => {
    expect(unreadableText({ reason: "timeout", detail: "60 s" })).toBe(
      "took over 60 s to read — split it, or list it in .vault-ragignore",
    );
    expect(unreadableText({ reason: "memory", detail: "512 MB" })).toBe(
      "over the memory limit (512 MB) while read — split it, or list it in .vault-ragignore",
    );
    expect(unreadableText({ reason: "scanned" })).toMatch(/^scanned: no text layer — read it by OCR .*tesseract/);
  });
});

describe("ocrReady", () => {
  it("is off unless asked, and warns once with the apt command when a program is missing", () => {
    const log = collectingLogger(silentLogger);
    expect(ocrReady(false, log)).toBe(false);
    expect(log.warnings).toEqual([]);
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      expect(ocrReady(true, log)).toBe(false);
    } finally {
      process.env.PATH = path;
    }
    expect(log.warnings).toEqual([
      expect.objectContaining({
        code: "ocr_unavailable",
        message: expect.stringContaining("install them with: sudo apt-get install tesseract-ocr poppler-utils"),
      }),
    ]);
  });
});
