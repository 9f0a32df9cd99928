import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

/**
 * Property names a plain object mishandles (`constructor`, `__proto__`), names a filter reads as
 * something else (`path`, `prop.path`, `$id`) and a name holding `=`, end to end through the CLI:
 * every field `props` lists reaches its property in `--where` and `--prop`.
 */
let vault = "";

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", ...env },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function found(args: string[]): string[] {
  const r = run(["search", "--vault", vault, "--json", "--mode", "keyword", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path).sort();
}

const NOTES: Record<string, string> = {
  "A.md":
    '---\nconstructor: Ada\n__proto__: guarded\npath: a/side\n"prop.path": pp-a\n"$id": 7\n"a=b": left\n---\n# A\n\nLoom cards and looms.\n',
  "B.md":
    '---\nconstructor: Babbage\npath: b/side\n"prop.path": pp-b\n"$id": 8\n"a=b": right\n---\n# B\n\nLoom engines.\n',
  "C.md": "# C\n\nA loom without properties.\n",
};

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-prop-names-")), "vault");
  fs.mkdirSync(vault, { recursive: true });
  for (const [p, text] of Object.entries(NOTES)) fs.writeFileSync(path.join(vault, p), text);
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
});

describe("property names end to end", () => {
  it("props lists constructor and __proto__, and distinct fields for path, prop.path and $id", () => {
    const r = run(["props", "--vault", vault, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const fields = Object.fromEntries(
      (JSON.parse(r.stdout) as { name: string; field: string }[]).map((p) => [p.name, p.field]),
    );
    expect(fields).toEqual({
      constructor: "constructor",
      ["__proto__"]: "__proto__",
      path: "prop.path",
      "prop.path": "prop.prop.path",
      $id: "prop.$id",
      "a=b": "a=b",
    });
  });

  it("every field props lists reaches its property in --where and in --prop", () => {
    expect(found(["--where", '{"constructor": "Ada"}', "loom"])).toEqual(["A.md"]);
    expect(found(["--where", '{"__proto__": "guarded"}', "loom"])).toEqual(["A.md"]);
    expect(found(["--where", '{"prop.path": "b/side"}', "loom"])).toEqual(["B.md"]);
    expect(found(["--where", '{"prop.prop.path": "pp-a"}', "loom"])).toEqual(["A.md"]);
    expect(found(["--where", '{"prop.$id": {"$gte": 8}}', "loom"])).toEqual(["B.md"]);
    expect(found(["--where", '{"a=b": "right"}', "loom"])).toEqual(["B.md"]);
    expect(found(["--prop", "constructor=Babbage", "loom"])).toEqual(["B.md"]);
    expect(found(["--prop", "__proto__=guarded", "loom"])).toEqual(["A.md"]);
    expect(found(["--prop", "prop.path=a/side", "loom"])).toEqual(["A.md"]);
    expect(found(["--prop", "prop.prop.path=pp-b", "loom"])).toEqual(["B.md"]);
    expect(found(["--prop", "prop.$id=7", "loom"])).toEqual(["A.md"]);
    expect(found(["--prop", "a=b=left", "loom"])).toEqual(["A.md"]);
  });

  it("VAULT_RAG_DATE_KEYS=__proto__ indexes, each note dated by its file", () => {
    const db = path.join(path.dirname(vault), "proto.db");
    const r = run(["index", vault, "--db", db, "--quiet"], { VAULT_RAG_DATE_KEYS: "__proto__,constructor" });
    expect(r.code, r.stderr).toBe(0);
    const s = run(["search", "--vault", vault, "--db", db, "--json", "--mode", "keyword", "loom"], {
      VAULT_RAG_DATE_KEYS: "__proto__,constructor",
    });
    expect(s.code, s.stderr).toBe(0);
    expect((JSON.parse(s.stdout) as { path: string }[]).length).toBe(3);
  });
});
