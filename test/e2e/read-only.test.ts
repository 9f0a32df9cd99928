import fs from "node:fs";
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { needs, permissionsMissing } from "../support/needs.js";
import { cli, cliUnder, OBEY_PERMISSIONS } from "../reliability/helpers.js";
import { exampleVaultCopy } from "./helpers.js";

const env = { VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const made: string[] = [];
afterAll(() => {
  // writable again, so that the temporary folder can be removed
  for (const dir of made)
    for (const f of [dir, ...fs.readdirSync(dir, { recursive: true }).map(String)])
      fs.chmodSync(path.resolve(dir, f), 0o755);
});

/** Makes every file and folder under `dir` read-only (files 0444, folders 0555). */
function readOnly(dir: string): void {
  made.push(dir);
  for (const f of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const p = path.join(dir, f);
    fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o555 : 0o444);
  }
  fs.chmodSync(dir, 0o555);
}

const missing = permissionsMissing();

describe.skipIf(!!missing)(needs("an index on read-only media", missing), () => {
  it("is searched (read as it is on disk, said with --verbose), and nothing is written beside it", async () => {
    const { vault } = exampleVaultCopy("vr-readonly-");
    const built = await cli(["index", vault, "--quiet"], env);
    expect(built.code, built.stderr).toBe(0);
    readOnly(vault);
    const before = fs.readdirSync(path.join(vault, ".vault-rag")).sort();
    // run where permission bits apply (root's override capabilities dropped): the folder cannot be written
    const r = await cliUnder(OBEY_PERMISSIONS, ["search", "--vault", vault, "--verbose", "SMARS motors"], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("robots/SMARS.md");
    expect(r.stderr).toContain(
      `vault-rag: ${path.join(vault, ".vault-rag")} cannot be written, so the index is read as it is on disk`,
    );
    const quiet = await cliUnder(OBEY_PERMISSIONS, ["search", "--vault", vault, "SMARS motors"], env);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain("cannot be written");
    const status = await cliUnder(OBEY_PERMISSIONS, ["status", vault, "--json"], env);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).notes).toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(vault, ".vault-rag")).sort()).toEqual(before);
  }, 120_000);

  it("searches an index written before notes had dates, properties and link display texts, without upgrading it", async () => {
    const { vault } = exampleVaultCopy("vr-readonly-old-");
    const built = await cli(["index", vault, "--quiet"], env);
    expect(built.code, built.stderr).toBe(0);
    const file = path.join(vault, ".vault-rag", "index.db");
    const db = new Database(file);
    for (const c of ["date", "date_source", "props"]) db.exec(`ALTER TABLE chunks DROP COLUMN ${c}`);
    db.exec("ALTER TABLE link_texts DROP COLUMN display");
    db.pragma("journal_mode = DELETE");
    db.close();
    const bytes = fs.readFileSync(file);
    readOnly(vault);
    for (const args of [["SMARS motors"], ["--since", "2000-01-01", "SMARS motors"], ["--mode", "keyword", "SMARS"]]) {
      const r = await cliUnder(OBEY_PERMISSIONS, ["search", "--vault", vault, "--json", ...args], env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).map((h: { path: string }) => h.path)).toContain("robots/SMARS.md");
    }
    const related = await cliUnder(OBEY_PERMISSIONS, ["related", "--vault", vault, "robots/SMARS.md"], env);
    expect(related.code, related.stderr).toBe(0);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  }, 120_000);
});
