import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/indexing/lock.js";
import { collectingLogger } from "../../src/log.js";
import { openOwnFile, readRegularFile, writeNewFile } from "../../src/safe-file.js";
import { SqliteStore } from "../../src/store/index.js";
import { readNoteText, readVaultFile } from "../../src/vault/index.js";

/**
 * Files planted in a vault someone else made (a clone, a synced folder, a zip), or swapped in
 * after the walk listed them: vault-rag must not write through them, hang on them, or read what
 * lies outside the vault through them.
 */
const VICTIM = "IMPORTANT USER DATA\n";

function place() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-planted-"));
  const vault = path.join(root, "vault");
  const outside = path.join(root, "outside");
  fs.mkdirSync(vault);
  fs.mkdirSync(outside);
  const victim = path.join(outside, "victim.txt");
  fs.writeFileSync(victim, VICTIM);
  return { root, vault, outside, victim };
}

describe("files planted in .vault-rag/", () => {
  it("never writes a lock through a symbolic link, and says what to remove", () => {
    const { vault, victim } = place();
    fs.mkdirSync(path.join(vault, ".vault-rag"));
    const db = path.join(vault, ".vault-rag", "index.db");
    fs.symlinkSync(victim, `${db}.lock`);
    expect(() => acquireLock(db, collectingLogger())).toThrow(
      `vault-rag: the lock file ${db}.lock is a symbolic link — vault-rag never writes through one (it would overwrite what it points to); remove it and run again`,
    );
    expect(fs.readFileSync(victim, "utf8")).toBe(VICTIM);
  });

  it("refuses a .vault-rag folder that is a link out of the vault, before anything is made there", () => {
    const { vault, outside } = place();
    fs.symlinkSync(outside, path.join(vault, ".vault-rag"));
    const db = path.join(vault, ".vault-rag", "index.db");
    const message = `vault-rag: ${path.join(vault, ".vault-rag")} is a symbolic link to ${fs.realpathSync(outside)} — vault-rag keeps no index through a link in the vault, which could write outside it; remove the link, or keep the index in that place itself (${path.join(fs.realpathSync(outside), "index.db")})`;
    expect(() => SqliteStore.open(db, { create: true })).toThrow(message);
    expect(() => acquireLock(db, collectingLogger())).toThrow(message);
    expect(fs.readdirSync(outside)).toEqual(["victim.txt"]);
  });

  it("writes a cache file only as a new file, and opens its own files through no link", () => {
    const { root, victim } = place();
    const tmp = path.join(root, "index.db.vectors.123.tmp");
    fs.symlinkSync(victim, tmp);
    expect(() => writeNewFile(tmp, Buffer.from("snapshot"))).toThrow(/EEXIST/);
    expect(() => openOwnFile(tmp, fs.constants.O_RDWR)).toThrow(/ELOOP/);
    expect(fs.readFileSync(victim, "utf8")).toBe(VICTIM);
    const fresh = path.join(root, "new.tmp");
    writeNewFile(fresh, Buffer.from("snapshot"));
    expect(fs.readFileSync(fresh, "utf8")).toBe("snapshot");
  });

  it("names a journal file planted as a link when SQLite will not open the index for it", async () => {
    const { vault, victim } = place();
    const db = path.join(vault, ".vault-rag", "index.db");
    const made = SqliteStore.open(db, { create: true });
    await made.close();
    for (const side of ["-wal", "-shm"]) fs.rmSync(db + side, { force: true });
    fs.symlinkSync(victim, `${db}-shm`);
    fs.symlinkSync(victim, `${db}-wal`);
    expect(() => SqliteStore.open(db)).toThrow(
      /beside it is a symbolic link, which SQLite will not write through; remove it$/,
    );
    expect(fs.readFileSync(victim, "utf8")).toBe(VICTIM);
  });
});

describe("notes swapped after the walk", () => {
  const file = (vault: string, p: string) => ({ path: p, absPath: path.join(vault, p), mtime: 0, size: 0 });

  it("reads a FIFO as no note, without waiting for a writer", () => {
    const { vault } = place();
    execFileSync("mkfifo", [path.join(vault, "pipe.md")]);
    const log = collectingLogger();
    expect(readVaultFile(file(vault, "pipe.md"), log)).toEqual({ skipped: true });
    expect(log.warnings.map((w) => w.message)).toEqual([
      'vault-rag: skipped "pipe.md": it is not a regular file (a FIFO, device or folder)',
    ]);
    expect(() => readNoteText(vault, "pipe.md")).toThrow(/^vault-rag: no note "pipe.md" in the vault — /);
  });

  it("refuses a note that became a link to a file outside the vault, in the index and in get_note", () => {
    const { vault, victim } = place();
    fs.writeFileSync(path.join(vault, "a.md"), "# A\n");
    fs.symlinkSync(victim, path.join(vault, "zzz.md"));
    const log = collectingLogger();
    expect(readVaultFile(file(vault, "zzz.md"), log)).toEqual({ skipped: true });
    expect(log.warnings[0].message).toBe('vault-rag: skipped "zzz.md": it is a link that points outside the vault');
    expect(() => readNoteText(vault, "zzz.md")).toThrow(/^vault-rag: no note "zzz.md" in the vault/);
    // a link to a note inside the vault is read as that note
    fs.symlinkSync(path.join(vault, "a.md"), path.join(vault, "b.md"));
    expect(readVaultFile(file(vault, "b.md")).note?.body).toBe("# A\n");
  });

  it("finds a note over the size limit too big before reading it", () => {
    const { vault } = place();
    const big = path.join(vault, "huge.md");
    fs.writeFileSync(big, "");
    fs.truncateSync(big, 40 * 1024 * 1024); // sparse: 40 MB that take no room
    const log = collectingLogger();
    expect(readVaultFile(file(vault, "huge.md"), log)).toEqual({ skipped: true });
    expect(log.warnings[0].message).toBe(
      'vault-rag: skipped "huge.md": 41943040 bytes is over the 33554432-byte limit',
    );
    expect(readRegularFile(big, { maxBytes: 100 })).toEqual({ refused: "41943040 bytes is over the 100-byte limit" });
  });
});
