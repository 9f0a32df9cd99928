import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyVaultWithoutIndex, exampleVaultCopy } from "./helpers.js";

describe("the README's two commands, in order", () => {
  it("copies a vault for a test without the index it holds", () => {
    const from = fs.mkdtempSync(path.join(os.tmpdir(), "vr-indexed-"));
    fs.writeFileSync(path.join(from, "a.md"), "# A\n");
    fs.mkdirSync(path.join(from, ".vault-rag"));
    fs.writeFileSync(path.join(from, ".vault-rag", "index.db"), "an index");
    const to = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-copy-")), "vault");
    copyVaultWithoutIndex(from, to);
    expect(fs.readdirSync(to)).toEqual(["a.md"]);
    // whatever examples/vault holds (the README's first command indexes it in place)
    expect(fs.existsSync(path.join(exampleVaultCopy("vr-readme-").vault, ".vault-rag"))).toBe(false);
  });

  it("CI runs the README's first command, then the lint, then npm test, then the install test", () => {
    const first = spawnSync(process.execPath, ["scripts/readme-first-command.mjs"], { encoding: "utf8" });
    expect(first.status).toBe(0);
    const readme = fs.readFileSync("README.md", "utf8");
    expect(first.stdout).toBe(
      readme.slice(readme.indexOf("```sh\n") + 6, readme.indexOf("```", readme.indexOf("```sh\n") + 6)),
    );
    expect(first.stdout).toMatch(/^npm ci && npm run build && node dist\/cli\/main\.js index examples\/vault && /);
    const steps = fs
      .readFileSync(".ci/run", "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.replace(/\s+# .*$/, "")); // the commands, not their comments
    expect(steps.slice(-9)).toEqual([
      'first="$(node scripts/readme-first-command.mjs)"',
      "printf '+ %s\\n' \"$first\"",
      'bash -euo pipefail -c "$first"',
      "npm run lint",
      "command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)",
      "command -v tesseract >/dev/null && command -v pdftoppm >/dev/null ||",
      "  (apt-get update && apt-get install -y tesseract-ocr poppler-utils)",
      "npm test",
      "scripts/install-test.sh",
    ]);
  });
});
