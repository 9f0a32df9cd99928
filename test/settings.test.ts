import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSettings, SETTINGS_FILE } from "../src/settings.js";
import { VaultRagError } from "../src/errors.js";

function withSettings(text: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-settings-"));
  fs.writeFileSync(path.join(root, SETTINGS_FILE), text);
  return root;
}

describe("the settings file", () => {
  it("refuses a bad file with a usage error naming the file and the key", () => {
    const cases: [string, string][] = [
      ["{not json", "is not valid JSON"],
      ["[]", "must hold a JSON object"],
      ['{"leavOut": {}}', 'unknown setting "leavOut" (known: leaveOut, denseFirst, rerank, attachments, ocr)'],
      ['{"leaveOut": {"headings": "Backlinks"}}', '"leaveOut.headings" must be a list'],
      ['{"denseFirst": "Projects"}', '"denseFirst" must be a list of folder names'],
      ['{"denseFirst": ["../elsewhere"]}', '"denseFirst" names "../elsewhere"'],
      ['{"denseFirst": ["/"]}', '"denseFirst" names "/"'],
      ['{"rerank": ""}', '"rerank" must be a non-empty string'],
      ['{"attachments": "no"}', '"attachments" must be true or false'],
      ['{"ocr": "yes"}', '"ocr" must be true or false'],
      ['{"ocr": 1}', '"ocr" must be true or false'],
    ];
    for (const [text, says] of cases) {
      const root = withSettings(text);
      let caught: unknown;
      try {
        readSettings(root);
      } catch (e) {
        caught = e;
      }
      expect(caught, text).toBeInstanceOf(VaultRagError);
      expect((caught as VaultRagError).code).toBe("usage");
      expect((caught as Error).message).toContain(path.join(root, SETTINGS_FILE));
      expect((caught as Error).message).toContain(says);
    }
  });

  it("reads folders as the vault writes them, without leading ./ or a trailing slash, and the reranker trimmed", () => {
    const s = readSettings(
      withSettings('{"denseFirst": ["Projects/", "./Inbox", "Work\\\\Clients"], "rerank": " transformers:a/b "}'),
    );
    expect(s.denseFirst).toEqual(["Projects", "Inbox", "Work/Clients"]);
    expect(s.rerank).toBe("transformers:a/b");
  });

  it("reads OCR off by default and on when the file says so", () => {
    expect(readSettings(withSettings("{}")).ocr).toBe(false);
    expect(readSettings(withSettings('{"ocr": true}')).ocr).toBe(true);
  });
});
