import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

/**
 * Property types end to end through the CLI: ratings written as text ("8") compare as numbers once
 * Obsidian's `.obsidian/types.json` declares `rating` a number (the next `index` reads every note
 * again); until then, the no-result hint says the values are text. A date matches its day's times.
 */
let vault = "";

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const search = (args: string[]) => run(["search", "--vault", vault, "--mode", "keyword", ...args, "stoic"]);
function found(args: string[]): string[] {
  const r = search(["--json", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path).sort();
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-prop-types-")), "vault");
  fs.mkdirSync(vault, { recursive: true });
  fs.writeFileSync(
    path.join(vault, "Book.md"),
    '---\nrating: "8"\ncreated: 2025-11-25T08:02:35\n---\n# Book\n\nA book about stoic philosophy.\n',
  );
  fs.writeFileSync(
    path.join(vault, "Other.md"),
    '---\nrating: "5"\ncreated: 2025-11-26T10:00:00\n---\n# Other\n\nAnother book on stoic ideas.\n',
  );
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
});

describe("property types", () => {
  it("--prop with a date matches a date-time property on that day", () => {
    expect(found(["--prop", "created=2025-11-25"])).toEqual(["Book.md"]);
  });

  it("a number comparison on text values finds nothing and says the values are text", () => {
    const r = search(["--where", '{"rating": {"$gte": 7}}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('vault-rag: the property "rating" holds text in 2 notes, not numbers');
  });

  it("with .obsidian/types.json declaring rating a number, the next index compares it as a number", () => {
    fs.mkdirSync(path.join(vault, ".obsidian"), { recursive: true });
    fs.writeFileSync(path.join(vault, ".obsidian/types.json"), JSON.stringify({ types: { rating: "number" } }));
    const r = run(["index", vault, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(found(["--where", '{"rating": {"$gte": 7}}'])).toEqual(["Book.md"]);
    const props = JSON.parse(run(["props", "--vault", vault, "--json"]).stdout) as { name: string; types: object }[];
    expect(props.find((p) => p.name === "rating")?.types).toEqual({ number: 2 });
  });
});
