import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { collectingLogger } from "../../src/log.js";
import { readNote, walkVault } from "../../src/vault/index.js";
import { needs, permissionsMissing } from "../support/needs.js";
import { cli, cliUnder, OBEY_PERMISSIONS, startEmbedStub } from "./helpers.js";

let stub: Awaited<ReturnType<typeof startEmbedStub>>;
afterEach(stopChildren);
beforeAll(async () => (stub = await startEmbedStub(1)));
afterAll(() => stub.close());

describe("hostile input", () => {
  const missing = permissionsMissing();
  it.skipIf(!!missing)(
    needs("indexes everything it can, warns by file name about the rest, and reports partial failure", missing),
    async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-hostile-"));
      const vault = path.join(root, "vault");
      fs.mkdirSync(vault);
      const w = (p: string, data: string | Buffer) => {
        fs.mkdirSync(path.dirname(path.join(vault, p)), { recursive: true });
        fs.writeFileSync(path.join(vault, p), data);
      };
      w("good.md", "# Good\n\nA normal note about motors.\n");
      w("bad yaml.md", "---\ntags: [unclosed\ntitle: : :\n---\n# Still here\n\nThe body is indexed.\n");
      w("binary.md", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
      w("latin1.md", Buffer.from("caf\xe9 au lait", "latin1"));
      w("big.md", "# Big\n\n" + "A sentence about batteries and power saving in a very large note. ".repeat(300_000)); // ~20 MB
      w("many headings.md", Array.from({ length: 10_000 }, (_, i) => `## Heading ${i}\n\nline ${i}\n`).join("\n"));
      w(Array.from({ length: 30 }, (_, i) => `d${i}`).join("/") + "/deep.md", "# Deep\n\nThirty folders down.\n");
      w(`names/with spaces 'quotes' "double" ünïcödé 日本.md`, "# Odd name\n\nStill indexed.\n");
      fs.symlinkSync(vault, path.join(vault, "names", "loop"));
      fs.writeFileSync(path.join(root, "outside.md"), "# Outside\n\nsecret\n");
      fs.symlinkSync(path.join(root, "outside.md"), path.join(vault, "escape.md"));
      w("locked.md", "# Locked\n\nNobody may read this.\n");
      fs.chmodSync(path.join(vault, "locked.md"), 0o000);
      const db = path.join(root, "index.db");
      // permission bits apply (root runs without its override capabilities), so locked.md is unreadable
      const r = await cliUnder(
        OBEY_PERMISSIONS,
        ["index", vault, "--db", db, "--model", "ollama:stub-embed", "--json"],
        { OLLAMA_HOST: stub.host },
      );
      expect(r.code).toBe(1); // partial failure (the unreadable file) is reported
      const s = JSON.parse(r.stdout);
      const messages = s.warnings.map((x: { message: string }) => x.message).join("\n");
      expect(s.failed, messages).toBe(1);
      expect(s.skipped, messages).toBe(2);
      expect(s.added).toBe(6);
      expect(messages).toContain('skipped "binary.md": it is a binary file');
      expect(messages).toContain('vault-rag: cannot read "locked.md": permission denied');
      expect(messages).toContain('skipped "latin1.md": it is not valid UTF-8');
      expect(messages).toContain('invalid frontmatter in "bad yaml.md"');
      expect(messages).toContain('skipped symlink "escape.md" — it points outside the vault');
      expect(messages).toMatch(/names\/loop/);
      const found = await cli(
        ["search", "--vault", vault, "--db", db, "--mode", "keyword", "--json", "thirty folders"],
        { OLLAMA_HOST: stub.host },
      );
      expect(JSON.parse(found.stdout)[0].path).toMatch(/\/deep\.md$/);
      const check = await cli(["check", "--vault", vault, "--db", db, "--json"], { OLLAMA_HOST: stub.host });
      expect(JSON.parse(check.stdout).problems).toEqual([]);
    },
    300_000,
  );

  it("counts a skipped binary note as a warning, never as stale; a BOM note is never stale; status and check agree", async () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-skip-"));
    fs.writeFileSync(path.join(vault, "good.md"), "# Good\n\nA normal note about motors.\n");
    fs.writeFileSync(path.join(vault, "bom.md"), "\uFEFF# Bom\n\nSaved by an editor that writes a byte order mark.\n");
    fs.writeFileSync(path.join(vault, "x.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const env = { OLLAMA_HOST: stub.host };
    const args = ["--vault", vault, "--json"];
    for (let round = 0; round < 2; round++) {
      const r = await cli(["index", vault, "--model", "ollama:stub-embed"], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^notes: (2 added|0 added), 0 updated, 0 deleted, (0|2) unchanged, 1 skipped$/m);
      expect(r.stderr).toContain('warning: skipped "x.md": it is a binary file, not Markdown text');
      expect(JSON.parse((await cli(["status", ...args], env)).stdout).stale).toBe(0);
      const check = JSON.parse((await cli(["check", ...args], env)).stdout);
      expect(check).toMatchObject({ ok: true, stale: 0 });
    }
    fs.appendFileSync(path.join(vault, "bom.md"), "One more line.\n");
    expect(JSON.parse((await cli(["status", ...args], env)).stdout).stale).toBe(1);
    expect(JSON.parse((await cli(["check", ...args], env)).stdout).stale).toBe(1);
  });

  it("never writes to a --db file that is not an index: a note or another program's database is left as it was", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-foreign-"));
    const vault = path.join(dir, "vault");
    fs.mkdirSync(vault);
    fs.writeFileSync(path.join(vault, "a.md"), "# A\n\nA note about motors.\n");
    const note = path.join(dir, "precious.md");
    fs.writeFileSync(note, "# Precious\n\nnot an index\n");
    const other = path.join(dir, "other.db");
    const o = new Database(other);
    o.exec("CREATE TABLE orders (id INTEGER); INSERT INTO orders VALUES (7);");
    o.close();
    const fix =
      "nothing was changed; point --db at an index or at a new path to build one there (an index that was overwritten: delete it, then run `vault-rag index`)";
    const env = { OLLAMA_HOST: stub.host };
    for (const [file, why] of [
      [note, "it is not a SQLite database"],
      [other, "a SQLite database without vault-rag's tables; it holds orders"],
    ]) {
      const before = fs.readFileSync(file);
      for (const args of [
        ["search", "--vault", vault, "--db", file, "motors"],
        ["index", vault, "--db", file, "--model", "ollama:stub-embed", "--quiet"],
        ["index", vault, "--full", "--db", file, "--model", "ollama:stub-embed", "--quiet"],
      ]) {
        const r = await cli(args, env);
        expect(r.code, args.join(" ")).toBe(2);
        expect(r.stderr.trim(), args.join(" ")).toBe(
          `vault-rag: ${file} is not an index of vault-rag (${why}) — ${fix}`,
        );
      }
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    }
    // an empty file is a new index
    const empty = path.join(dir, "empty.db");
    fs.writeFileSync(empty, "");
    expect((await cli(["index", vault, "--db", empty, "--model", "ollama:stub-embed", "--quiet"], env)).code).toBe(0);
  });

  it("names the way out of a truncated index, and index --full rebuilds it", async () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-damaged-"));
    for (let i = 0; i < 40; i++)
      fs.writeFileSync(
        path.join(vault, `n${i}.md`),
        `# Note ${i}\n\nA note about motors and batteries, number ${i}.\n`,
      );
    const env = { OLLAMA_HOST: stub.host };
    expect((await cli(["index", vault, "--model", "ollama:stub-embed", "--quiet"], env)).code).toBe(0);
    const db = path.join(vault, ".vault-rag", "index.db");
    const good = fs.readFileSync(db);
    fs.truncateSync(db, Math.floor(fs.statSync(db).size / 2));
    const message = `vault-rag: the index at ${db} is damaged (database disk image is malformed) — run \`vault-rag index ${vault} --full\` to rebuild it from the notes`;
    for (const args of [
      ["index", vault, "--quiet"],
      ["check", vault, "--repair"],
      ["search", "--vault", vault, "motors"],
      ["status", vault],
    ]) {
      const r = await cli(args, env);
      // search exits 2 for an error, as grep does: its 1 means "no hits"
      expect(r.code, args.join(" ")).toBe(args[0] === "search" ? 2 : 1);
      expect(r.stderr.trim(), args.join(" ")).toBe(message);
    }
    // an index given with --db, damaged inside (found by a query, not when opened), is named with its --db
    const copy = path.join(os.tmpdir(), `vr-damaged-copy-${process.pid}.db`);
    fs.writeFileSync(copy, good);
    const fd = fs.openSync(copy, "r+");
    fs.writeSync(fd, Buffer.alloc(32_768, 0xff), 0, 32_768, Math.floor(good.length / 2));
    fs.closeSync(fd);
    const inside = await cli(["search", "--vault", vault, "--db", copy, "motors"], env);
    expect(inside.code).toBe(2);
    // SQLite's own words depend on the first statement that meets the damaged pages (the dense
    // coverage count, or the keyword index's word counts): the refusal and its way out are the same
    const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect(inside.stderr.trim()).toMatch(
      new RegExp(
        `^${esc(`vault-rag: the index at ${copy} is damaged (`)}(vtable constructor failed: fts|database disk image is malformed)${esc(`) — run \`vault-rag index ${vault} --full --db ${copy}\` to rebuild it from the notes`)}$`,
      ),
    );
    fs.rmSync(copy);
    const full = await cli(["index", vault, "--full", "--model", "ollama:stub-embed", "--json"], env);
    expect(full.code, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout)).toMatchObject({ added: 40, failed: 0 });
    expect(full.stderr).toContain(
      `warning: the index at ${db} is damaged (database disk image is malformed) — rebuilding it from the notes`,
    );
    expect(JSON.parse((await cli(["check", vault, "--json"], env)).stdout)).toMatchObject({
      ok: true,
      counts: { notes: 40 },
    });
  });

  it("warns about a file deleted between listing and reading", () => {
    const vault = fs.mkdtempSync(path.join(os.tmpdir(), "vr-vanish-"));
    fs.writeFileSync(path.join(vault, "gone.md"), "# Gone\n");
    const [file] = walkVault(vault);
    fs.rmSync(path.join(vault, "gone.md"));
    const log = collectingLogger();
    expect(readNote(file, log)).toBeUndefined();
    expect(log.warnings[0].message).toBe('vault-rag: cannot read "gone.md": it was deleted while indexing');
  });
});

describe("check --repair", () => {
  /** A vault of `n` notes about topics, indexed with the stub model into a file of its own, and found healthy. */
  const indexedVault = async (n: number, extra: Record<string, string> = {}) => {
    const { checkIndex } = await import("../../src/indexing/index.js");
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-repair-"));
    const vault = path.join(root, "vault");
    fs.mkdirSync(vault);
    for (let i = 0; i < n; i++)
      fs.writeFileSync(path.join(vault, `n${i}.md`), `# Note ${i}\n\nText about topic ${i} and motors.\n`);
    for (const [name, text] of Object.entries(extra)) fs.writeFileSync(path.join(vault, name), text);
    const db = path.join(root, "index.db");
    const index = ["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--json"];
    expect((await cli(index, { OLLAMA_HOST: stub.host })).code).toBe(0);
    expect((await checkIndex(vault, db)).problems).toEqual([]);
    return { vault, db, index };
  };

  it("finds orphan vectors and a damaged keyword index, repairs them without embedding, and counts chunks without vectors as pending", async () => {
    const { SqliteStore } = await import("../../src/store/index.js");
    const { checkIndex } = await import("../../src/indexing/index.js");
    const { vault, db } = await indexedVault(5);
    const s = SqliteStore.open(db);
    s.db.prepare("INSERT INTO windows (chunk, hash, vector) SELECT 99999, 'orphan', vector FROM windows LIMIT 1").run();
    s.db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = 'n2.md')").run();
    s.db.prepare("INSERT INTO fts (fts) VALUES ('delete-all')").run();
    await s.close();
    const damaged = await checkIndex(vault, db);
    expect(damaged.ok).toBe(false);
    // a chunk without vectors is pending (the next index embeds it), not damage
    expect(damaged.problems).toEqual([
      "1 vector(s) belong to no chunk",
      "the keyword index holds 0 row(s) for 5 chunk(s)",
    ]);
    expect(damaged.chunksWithoutVectors).toBe(1);
    const repaired = await checkIndex(vault, db, { repair: true });
    expect(repaired.repaired).toEqual(["removed 1 orphan vector(s)", "rebuilt the keyword index from the chunks"]);
    expect((await checkIndex(vault, db)).problems).toEqual([]);
    // a repair that needed no keyword rebuild does not say it made one
    const s2 = SqliteStore.open(db);
    s2.db
      .prepare("INSERT INTO windows (chunk, hash, vector) SELECT 99998, 'orphan', vector FROM windows LIMIT 1")
      .run();
    await s2.close();
    expect((await checkIndex(vault, db, { repair: true })).repaired).toEqual(["removed 1 orphan vector(s)"]);
    const again = JSON.parse(
      (
        await cli(["index", vault, "--db", db, "--model", "ollama:stub-embed", "--quiet", "--json"], {
          OLLAMA_HOST: stub.host,
        })
      ).stdout,
    );
    // the pending chunk kept its note: the next index embeds it alone
    expect(again).toMatchObject({ added: 0, unchanged: 5, embedded: 1, pending: 0 });
    const found = JSON.parse(
      (
        await cli(["search", "--vault", vault, "--db", db, "--mode", "keyword", "--json", "topic"], {
          OLLAMA_HOST: stub.host,
        })
      ).stdout,
    );
    expect(found.length).toBe(5);
  });

  it("finds a note that lost all its chunks, which index would call unchanged, and repairs it; an empty note is no problem", async () => {
    const { SqliteStore } = await import("../../src/store/index.js");
    const { checkIndex } = await import("../../src/indexing/index.js");
    const { vault, db, index } = await indexedVault(3, { "empty.md": "" });
    const env = { OLLAMA_HOST: stub.host };
    // the chunks of n1.md go, by hand, with their vectors and keyword rows
    const s = SqliteStore.open(db);
    s.db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = 'n1.md')").run();
    s.db.prepare("DELETE FROM chunks WHERE path = 'n1.md'").run();
    s.db.prepare("INSERT INTO fts (fts) VALUES ('rebuild')").run();
    await s.close();
    expect((await checkIndex(vault, db)).problems).toEqual([
      '1 note(s) have no passages in the index though their text makes some ("n1.md"): no search finds them',
    ]);
    const repaired = await checkIndex(vault, db, { repair: true });
    expect(repaired.repaired).toContain("dropped 1 damaged note(s); the next index re-indexes them");
    expect(JSON.parse((await cli(index, env)).stdout)).toMatchObject({ added: 1, unchanged: 3 });
    const found = await cli(["search", "--vault", vault, "--db", db, "--mode", "keyword", "--json", "topic 1"], env);
    expect(JSON.parse(found.stdout).map((h: { path: string }) => h.path)).toContain("n1.md");
    expect((await checkIndex(vault, db)).problems).toEqual([]);
  });
});
