import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, DAY, exampleVaultCopy } from "./helpers.js";
import { shellArg } from "../../src/shell-arg.js";
import { acquireLock } from "../../src/indexing/index.js";
import { silentLogger } from "../../src/log.js";

let vault = "";
let elsewhere = "";

function run(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? elsewhere,
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", ...opts.env },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (args: string[]) => {
  const r = run([...args, "--json"]);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

beforeAll(() => {
  ({ vault, elsewhere } = exampleVaultCopy("vr-e2e-", "my vault"));
});

/** A hit as `search --json` prints it (the fields these tests read). */
interface JsonHit {
  path: string;
  text: string;
  tags: string[];
  folder: string;
  top_folder: string;
}

/** The hits, after checking there are some: a loop over no hits checks nothing. */
function nonEmpty(hits: JsonHit[]): JsonHit[] {
  expect(hits.length, "expected at least one hit").toBeGreaterThan(0);
  return hits;
}

describe("vault-rag CLI end to end", () => {
  it("says when the index has no tags, and reads ./folder as the folder", () => {
    const bare = path.join(elsewhere, "untagged");
    fs.mkdirSync(path.join(bare, "common"), { recursive: true });
    fs.writeFileSync(path.join(bare, "common", "tar.md"), "# tar\n\nArchive files: create and extract tarballs.\n");
    expect(run(["index", bare, "--quiet"]).code).toBe(0);
    const tags = run(["tags", "--vault", bare]);
    expect(tags).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "no tags: no note in the index has a #tag or frontmatter tags\n",
    });
    const found = run(["search", "--vault", bare, "--folder", "./common/", "--json", "extract"]);
    expect(JSON.parse(found.stdout).map((h: { path: string }) => h.path)).toEqual(["common/tar.md"]);
  });

  it("finds nothing in a note written since the last index, and says to index again (hybrid: that no passage holds the word)", () => {
    const fresh = path.join(elsewhere, "fresh");
    fs.mkdirSync(fresh, { recursive: true });
    fs.writeFileSync(path.join(fresh, "tar.md"), "# tar\n\nArchive files: create and extract tarballs.\n");
    expect(run(["index", fresh, "--quiet"]).code).toBe(0);
    const before = run(["search", "--vault", fresh, "--mode", "keyword", "okapi"]);
    expect(before).toMatchObject({ code: 1, stderr: "no results: no chunk matches the query\n" });
    fs.writeFileSync(path.join(fresh, "okapi.md"), "# Okapi\n\nThe okapi is a cousin of the giraffe.\n");
    const after = run(["search", "--vault", fresh, "--mode", "keyword", "okapi"]);
    expect(after).toMatchObject({
      code: 1,
      stderr: `no results: no chunk matches the query\nvault-rag: a note changed on disk since the last index (new, edited or deleted) — run \`vault-rag index ${fresh}\` and search again\n`,
    });
    // a hybrid search has hits (the nearest in meaning) and says no passage holds the word, and why
    const hybrid = run(["search", "--vault", fresh, "okapi"]);
    expect(hybrid.code).toBe(0);
    expect(hybrid.stdout).toContain("tar.md:1  tar");
    expect(hybrid.stderr).toBe(
      `note: no passage holds a word of the query, nor a synonym of one: these hits are only the nearest in meaning\nvault-rag: a note changed on disk since the last index (new, edited or deleted) — run \`vault-rag index ${fresh}\` and search again\n`,
    );
    expect(run(["index", fresh, "--quiet"]).code).toBe(0);
    expect(run(["search", "--vault", fresh, "--mode", "keyword", "okapi"]).stdout).toContain("okapi.md:1  Okapi");
    expect(run(["search", "--vault", fresh, "okapi"]).stderr).toBe("");
  });

  it("status counts the notes not indexed yet as stale, names the command, and says when another process is indexing", () => {
    const v = path.join(elsewhere, "partial");
    fs.mkdirSync(v, { recursive: true });
    fs.writeFileSync(path.join(v, "a.md"), "# A\n\nAlpha notes.\n");
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    fs.writeFileSync(path.join(v, "b.md"), "# B\n\nBeta notes, not indexed yet.\n");
    const st = run(["status", "--vault", v]);
    expect(st.code).toBe(0);
    expect(st.stdout).toContain(
      `stale:        1 note(s) new, edited or deleted since the last index — run \`vault-rag index ${shellArg(v)}\`\n`,
    );
    // this test's process holds the index's lock, as a running `vault-rag index` would
    const release = acquireLock(path.join(v, ".vault-rag", "index.db"), silentLogger);
    try {
      const busy = run(["status", "--vault", v]);
      expect(busy.stdout).toContain(
        `stale:        1 note(s) new, edited or deleted since the last index\nindexing:     in progress (pid ${process.pid}) — the stale notes are those it has not stored yet\n`,
      );
      expect(JSON.parse(run(["status", "--vault", v, "--json"]).stdout)).toMatchObject({
        stale: 1,
        indexing: { pid: process.pid },
      });
    } finally {
      release();
    }
  });

  it("chunks and related say why a file of the vault is not a note they can read: left out, or not indexed yet", () => {
    const v = path.join(elsewhere, "left-out");
    for (const d of ["edge", ".trash"]) fs.mkdirSync(path.join(v, d), { recursive: true });
    fs.writeFileSync(path.join(v, ".vault-ragignore"), "edge/\n");
    fs.writeFileSync(path.join(v, "edge", "tags.md"), "# Tags\n\nIgnored on purpose.\n");
    fs.writeFileSync(path.join(v, ".trash", "secret.md"), "# Secret\n\nThrown away.\n");
    fs.writeFileSync(path.join(v, "kept.md"), "# Kept\n\nAn ordinary note about tags.\n");
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    fs.writeFileSync(path.join(v, "later.md"), "# Later\n\nWritten after the index.\n");
    expect(run(["chunks", v, "--note", "edge/tags.md"])).toMatchObject({
      code: 2,
      stderr: 'vault-rag: "edge/tags.md" is not indexed: .vault-ragignore keeps "edge/" out of the index\n',
    });
    expect(run(["related", "--vault", v, ".trash/secret.md"]).stderr).toBe(
      'vault-rag: ".trash/secret.md" is not indexed: it is in ".trash/", a folder vault-rag never indexes\n',
    );
    expect(run(["related", "--vault", v, "later.md"]).stderr).toBe(
      `vault-rag: "later.md" is not indexed: it is not in the index yet — run \`vault-rag index ${shellArg(v)}\`\n`,
    );
    // a name that is no file still gets the closest notes
    expect(run(["related", "--vault", v, "kep"]).stderr).toBe(
      'vault-rag: no note "kep" in the index — did you mean "kept.md"?\n',
    );
  });

  it("related says when the note asked about, or a note it found, was deleted or edited since the last index", () => {
    const v = path.join(elsewhere, "related-stale");
    fs.mkdirSync(v, { recursive: true });
    const notes = {
      "motors.md": "# Motors\n\nThe DC motors of the robot, their driver and the battery that runs them.\n",
      "driver.md": "# Motor driver\n\nThe motor driver board that runs the DC motors from the battery.\n",
      "battery.md": "# Battery\n\nThe battery pack that runs the robot's motors and its driver board.\n",
    };
    for (const [f, t] of Object.entries(notes)) fs.writeFileSync(path.join(v, f), t);
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    const fresh = run(["related", "--vault", v, "motors.md"]);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toBe("");
    fs.rmSync(path.join(v, "motors.md"));
    fs.appendFileSync(path.join(v, "driver.md"), "\nA second paragraph.\n");
    fs.utimesSync(path.join(v, "driver.md"), new Date(), new Date(Date.now() + 5000));
    const stale = run(["related", "--vault", v, "motors.md"]);
    expect(stale.code).toBe(0);
    expect(stale.stderr).toBe(
      `vault-rag: "motors.md" was deleted since the last index — these are the notes related to it as it was indexed; run \`vault-rag index ${shellArg(v)}\` to refresh it\n` +
        'vault-rag: a hit comes from a note changed since the last index ("driver.md") — run `vault-rag index` to refresh it\n',
    );
  });

  it("removes what a stopped or killed --full left beside the index on the next index", () => {
    const v = path.join(elsewhere, "leftover");
    fs.mkdirSync(v, { recursive: true });
    fs.writeFileSync(path.join(v, "a.md"), "# A\n\nAlpha notes.\n");
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    const db = path.join(v, ".vault-rag", "index.db");
    for (const s of ["", "-wal"]) fs.writeFileSync(`${db}.rebuild${s}`, "half a rebuild");
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    expect(fs.readdirSync(path.dirname(db)).filter((f) => f.includes("rebuild"))).toEqual([]);
    expect(json(["status", "--vault", v])).toMatchObject({ notes: 1, stale: 0 });
  });

  it("reads a misspelt word as the vault's word and says so; --no-spell searches as typed", () => {
    const v = path.join(elsewhere, "typos");
    fs.mkdirSync(v, { recursive: true });
    fs.writeFileSync(path.join(v, "tar.md"), "# tar\n\nArchive files: create and extract tarballs.\n");
    fs.writeFileSync(path.join(v, "okapi.md"), "# Okapi\n\nThe okapi is a cousin of the giraffe.\n");
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    const fixed = run(["search", "--vault", v, "--mode", "keyword", "extarct archve"]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain("tar.md:1  tar");
    expect(fixed.stderr).toBe(
      'note: no passage holds the words "extarct" or "archve" — searched for "extract" and "archive" instead\n',
    );
    expect(run(["search", "--vault", v, "--mode", "keyword", "--no-spell", "extarct archve"])).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "no results: no chunk matches the query\n",
    });
    // an English word the notes do not hold is no typo: "giraffes" is found by its stem, "zebra" not at all
    expect(run(["search", "--vault", v, "--mode", "keyword", "zebra"])).toMatchObject({ code: 1, stdout: "" });
  });

  it("prints one note's chunks without the vault walk's warnings about other files, and says when a note holds no text", () => {
    const v = path.join(elsewhere, "chunky");
    fs.mkdirSync(v, { recursive: true });
    fs.writeFileSync(path.join(v, "tar.md"), "# tar\n\nArchive files: create and extract tarballs.\n");
    fs.writeFileSync(path.join(v, "empty.md"), "---\n---\n\n");
    fs.writeFileSync(path.join(v, "photo.md"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    fs.symlinkSync("/etc/hostname", path.join(v, "out.md"));
    const one = run(["chunks", v, "--note", "tar.md"]);
    expect(one).toMatchObject({ code: 0, stderr: "" });
    expect(one.stdout).toContain("── tar  (tar.md:1-3, 8 words)");
    expect(run(["chunks", v, "--note", "empty"])).toMatchObject({
      code: 0,
      stdout: "",
      stderr: 'no chunks: "empty.md" holds no text to index (it is blank, with no properties or invalid ones)\n',
    });
    // the whole vault: its warnings, once each
    const all = run(["chunks", v]);
    expect(all.stderr.split("\n").filter(Boolean).sort()).toEqual([
      'warning: skipped "photo.md": it is a binary file, not Markdown text',
      'warning: skipped symlink "out.md" — it points outside the vault',
    ]);
  });

  it("refuses an empty --vault or --db instead of reading past them, and names --min-ratio in its error", () => {
    const empty = run(["search", "--vault", "", "motors"]);
    expect([empty.code, empty.stderr.trim()]).toEqual([
      2,
      'vault-rag: the vault given is empty ("") — give the folder that holds your notes',
    ]);
    const noDb = run(["status", vault, "--db", ""]);
    expect([noDb.code, noDb.stderr.trim()]).toEqual([
      2,
      'vault-rag: the index given (--db) is empty ("") — give an index file or chroma://host:port/<collection>, or leave it out for <vault>/.vault-rag/index.db',
    ]);
    const ratio = run(["search", "--vault", vault, "--min-ratio", "2", "motors"]);
    expect(ratio.stderr).toContain('--min-ratio must be a number from 0 to 1, got "2"');
  });

  it("refuses to search before indexing, with the fix and exit code 2", () => {
    const r = run(["search", "--vault", vault, "motors"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `vault-rag: no index at ${path.join(vault, ".vault-rag/index.db")} — run \`vault-rag index '${vault}'\` first`,
    );
    // an index given with --db is built there only with --db: the fix says so
    const elsewhereDb = path.join(elsewhere, "other.db");
    const other = run(["status", "--vault", vault, "--db", elsewhereDb]);
    expect(other.code).toBe(2);
    expect(other.stderr.trim()).toBe(
      `vault-rag: no index at ${elsewhereDb} — run \`vault-rag index '${vault}' --db ${shellArg(elsewhereDb)}\` first`,
    );
    // with no vault named and no index here or above, the working directory may be no notes folder (~, /tmp)
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), "vr-bare-"));
    expect(run(["search", "motors"], { cwd: bare }).stderr.trim()).toBe(
      `vault-rag: no index at ${path.join(bare, ".vault-rag/index.db")} — if ${bare} holds your notes, run \`vault-rag index ${shellArg(bare)}\` first; else index your notes folder and search from inside it, or give --vault`,
    );
    // with --db alone the vault is only a guess (the working directory): it is left for the user to name
    const guessed = run(["status", "--db", elsewhereDb], { cwd: elsewhere });
    expect(guessed.stderr.trim()).toBe(
      `vault-rag: no index at ${elsewhereDb} — run \`vault-rag index <vault> --db ${shellArg(elsewhereDb)}\` first`,
    );
    // a mistyped vault is named as such, not as a vault to index
    const missing = path.join(elsewhere, "no-such-vault");
    for (const args of [
      ["search", "--vault", missing, "motors"],
      ["status", missing],
    ]) {
      const m = run(args);
      expect(m.code, args.join(" ")).toBe(2);
      expect(m.stderr.trim()).toBe(
        `vault-rag: vault folder "${missing}" does not exist — pass the folder that holds your notes`,
      );
    }
  });

  it("warns when a folder to index holds no notes at all, and still indexes it", () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "vr-empty-"));
    const r = run(["index", empty]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `warning: no Markdown notes in ${empty} (none ending in .md, outside .vault-ragignore and hidden folders) — check that this is the folder that holds your notes\n`,
    );
    fs.writeFileSync(path.join(empty, "a.md"), "# A\n\nA first note.\n");
    expect(run(["index", empty]).stderr).not.toContain("no Markdown notes");
  });

  it("finds a note of properties alone by its title and fields, and counts it and an empty note in tags, folders and status", () => {
    const v = fs.mkdtempSync(path.join(os.tmpdir(), "vr-props-"));
    fs.mkdirSync(path.join(v, "Books"));
    fs.mkdirSync(path.join(v, "Templates"));
    fs.writeFileSync(
      path.join(v, "Books", "Out of Control.md"),
      '---\ntags: [book]\nauthor: "[[Kevin Kelly]]"\nyear: 1994\n---\n',
    );
    fs.writeFileSync(path.join(v, "Templates", "Blank.md"), "");
    fs.writeFileSync(
      path.join(v, "Kevin Kelly.md"),
      "# Kevin Kelly\n\nFounding editor of a magazine about technology.\n",
    );
    expect(run(["index", v, "--quiet"]).code).toBe(0);
    const hits = json(["search", "--vault", v, "out of control"]) as (JsonHit & { start_line: number })[];
    expect(hits[0]).toMatchObject({ path: "Books/Out of Control.md", start_line: 2, tags: ["book"] });
    expect(hits[0].text).toBe('tags: [book]\nauthor: "[[Kevin Kelly]]"\nyear: 1994');
    expect(run(["tags", "--vault", v]).stdout).toBe("1  book\n");
    expect(run(["folders", "--vault", v]).stdout).toBe("1  (vault root)\n1  Books\n1  Templates\n");
    expect(run(["status", "--vault", v]).stdout).toMatch(/^notes: {8}3$/m);
    // its frontmatter's link counts: the person's note lists it as linking here
    expect(run(["related", "--vault", v, "Kevin Kelly", "--json"]).stdout).toContain(
      '"path": "Books/Out of Control.md"',
    );
  });

  it("refuses to index or watch a folder that does not exist, or a file, and creates nothing", () => {
    const missing = path.join(elsewhere, "no", "such", "folder");
    const r = run(["index", missing]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `vault-rag: vault folder "${missing}" does not exist — pass the folder that holds your notes`,
    );
    expect(fs.existsSync(path.join(elsewhere, "no"))).toBe(false);
    // watch says so too, and stops: it does not print the error and then wait for ever
    const w = spawnSync(process.execPath, [BIN, "watch", missing], {
      cwd: elsewhere,
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(w.signal, "watch exited by itself").toBeNull();
    expect(w.status).toBe(2);
    expect(w.stdout).toBe("");
    expect(w.stderr.trim()).toBe(
      `vault-rag: vault folder "${missing}" does not exist — pass the folder that holds your notes`,
    );
    const note = path.join(vault, "Welcome.md");
    const file = run(["index", note]);
    expect(file.code).toBe(2);
    expect(file.stderr.trim()).toBe(
      `vault-rag: vault folder "${note}" is not a folder — pass the folder that holds your notes, not a file in it`,
    );
  });

  it("names a count flag the same way whether its value is too small, negative or not a number", () => {
    for (const k of ["0", "-3", "abc", "1e9", "99999999999999999999", "10001"]) {
      const r = run(["search", "--vault", vault, "-k", k, "motors"]);
      expect(r.code, k).toBe(2);
      expect(r.stderr, k).toContain(`--top-k must be a whole number from 1 to 10000, got "${k}"`);
    }
    // the prompt budget says its own range, the one the HTTP API has
    expect(run(["ask", "--vault", vault, "--budget", "-1", "motors"]).stderr).toContain(
      '--budget must be a whole number from 100 to 100000, got "-1"',
    );
  });

  it("refuses an index address it cannot open, naming where it came from", () => {
    const a = run(["search", "--vault", vault, "--db", "ftp://host/notes", "motors"]);
    expect(a.code).toBe(2);
    expect(a.stderr.trim()).toBe(
      'vault-rag: --db "ftp://host/notes" is an address vault-rag cannot open — give a file path, chroma://host:port/<collection> or http(s)://host:port/<collection>',
    );
    const b = run(["index", vault], { env: { VAULT_RAG_DB: "s3://bucket/index.db" } });
    expect(b.code).toBe(2);
    expect(b.stderr.trim()).toBe(
      'vault-rag: VAULT_RAG_DB "s3://bucket/index.db" is an address vault-rag cannot open — give a file path, chroma://host:port/<collection> or http(s)://host:port/<collection>',
    );
  });

  it("indexes the vault from another working directory", () => {
    const s = json(["index", vault]);
    expect(s).toMatchObject({
      added: 43,
      updated: 0,
      deleted: 0,
      unchanged: 0,
      failed: 0,
      // the PDF, the Canvas board and the Word document, counted apart from the notes
      attachments: { added: 3, updated: 0, deleted: 0, unchanged: 0, unreadable: 0 },
      dbPath: path.join(vault, ".vault-rag/index.db"),
    });
    expect(s.embedded).toBeGreaterThan(50);
    expect(s.warnings.map((w: { code: string }) => w.code)).toContain("frontmatter_invalid");
    // the bundled model's 128-token window: chunks are cut to fit, nothing is truncated
    expect(s.warnings.map((w: { code: string }) => w.code)).not.toContain("input_truncated");
  });

  it("re-indexes an unchanged vault without embedding anything", () => {
    const s = json(["index", vault]);
    expect(s).toMatchObject({ added: 0, updated: 0, deleted: 0, unchanged: 43, embedded: 0 });
  });

  it("finds the build log among several notes for a motor question, and lets one note take the slots when asked", () => {
    const hits = json(["search", "--vault", vault, "how do the SMARS motors work"]);
    expect(hits).toHaveLength(6);
    expect(new Set(hits.map((h: { path: string }) => h.path)).size).toBeGreaterThanOrEqual(4);
    expect(hits.map((h: { path: string }) => h.path)).toContain("daily/2026-03-14.md");
    const greedy = json([
      "search",
      "--vault",
      vault,
      "--per-note",
      "6",
      "--oversample",
      "1",
      "how do the SMARS motors work",
    ]);
    expect(greedy.filter((h: { path: string }) => h.path === "robots/SMARS.md").length).toBeGreaterThanOrEqual(4);
  });

  it("searches for a question of one 30,000-letter word as for any other, highlighting only words of a sane length", () => {
    // a pattern of the whole word overflowed the regex compiler: exit 1 and a stack trace
    const r = run(["search", "--vault", vault, "-k", "1", `motors ${"x".repeat(30_000)}`]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // a passage about the motors first (SMARS's wiring and the build log about them all but tie)
    expect(r.stdout.split("\n")[0]).toMatch(/^(robots\/|daily\/).*Motor/);
  });

  it("applies every filter flag", () => {
    const pico = json(["search", "--vault", vault, "--tag", "pico", "how do I save power"]);
    expect(pico.length).toBeGreaterThan(0);
    for (const h of pico) expect(h.tags).toContain("pico");
    expect(pico[0].path).toBe("electronics/Pico W.md");
    for (const h of nonEmpty(json(["search", "--vault", vault, "--folder", "kitchen", "bread"])))
      expect(h.folder).toBe("kitchen");
    for (const h of nonEmpty(json(["search", "--vault", vault, "--top-folder", "robots", "motor"])))
      expect(h.top_folder).toBe("robots");
    const recent = json(["search", "--vault", vault, "--since", "2d", "bread"]);
    expect([...new Set(recent.map((h: { path: string }) => h.path))]).toEqual(["kitchen/Sourdough.md"]);
    expect(
      nonEmpty(json(["search", "--vault", vault, "--until", "2d", "bread"])).some(
        (h: { path: string }) => h.path === "kitchen/Sourdough.md",
      ),
    ).toBe(false);
    for (const h of nonEmpty(json(["search", "--vault", vault, "--where", '{"word_count": {"$gt": 40}}', "motor"])))
      expect(h.text.split(/\s+/).length).toBeGreaterThan(30);
    for (const h of nonEmpty(
      json(["search", "--vault", vault, "--where-document", '{"$contains": "DRV8833"}', "driver"]),
    ))
      expect(h.text).toContain("DRV8833");
    const both = nonEmpty(json(["search", "--vault", vault, "--tag", "robots", "--tag", "projects/robots", "motor"]));
    for (const h of both) expect(h.tags).toEqual(expect.arrayContaining(["robots", "projects/robots"]));
  });

  it("prints hits as path:line and breadcrumb with a snippet, and JSON with every field", () => {
    const r = run(["search", "--vault", vault, "-k", "2", "DRV8833"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\S[^\n]*\.md:\d+ {2}\S[^\n]*\n {4}\S/);
    expect(r.stdout).not.toMatch(/%\)/);
    const [hit] = json(["search", "--vault", vault, "-k", "1", "DRV8833"]);
    expect(Object.keys(hit).sort()).toEqual([
      "date",
      "distance",
      "end_line",
      "folder",
      "id",
      "label",
      "mtime",
      "path",
      "props",
      "score",
      "section",
      "start_line",
      "tags",
      "text",
      "title",
      "top_folder",
    ]);
  });

  it("widens a keyword search with WordNet synonyms, says which with --verbose, and not with --no-expand", () => {
    // no note says "vacation"; one says "holiday", WordNet's synonym
    const plain = run(["search", "--vault", vault, "--mode", "keyword", "--no-expand", "--verbose", "vacation"]);
    expect(plain.code, plain.stderr).toBe(1);
    expect(plain.stderr).toContain("no results: no chunk matches the query");
    expect(plain.stderr).not.toContain("synonyms: holiday");
    const widened = run(["search", "--vault", vault, "--mode", "keyword", "--verbose", "-k", "1", "vacation"]);
    expect(widened.code).toBe(0);
    expect(widened.stderr).toContain(
      "synonyms: holiday (weight 0.50 beside the question's words: the best keyword hit holds 0% of them)\n",
    );
    expect(plain.stderr).toContain("synonyms: off (--no-expand)\n");
    // a question whose words all meet in one passage gets none, and says so
    const covered = run(["search", "--vault", vault, "--verbose", "-k", "1", "sourdough starter"]);
    const none =
      "synonyms: none added (the best keyword hit holds the question's words, or the notes use none of their synonyms)\n";
    expect(covered.stderr).toContain(none);
    // a word no note holds, nor a synonym of it: no keyword hit to speak of
    const unknown = run(["search", "--vault", vault, "--verbose", "-k", "1", "axolotl"]);
    expect(unknown.stderr).toContain(
      "synonyms: none added (no hit shown holds the question's words, nor a synonym of them)\n",
    );
    // and names the near pairs it ranked by, or that there were none to make
    expect(covered.stderr).toContain(
      "near pairs: sourdough·starter (each 0.2 × its BM25 where both words stand within 4 words of each other)\n",
    );
    expect(widened.stderr).toContain("near pairs: none (fewer than two words to pair)\n");
    const dense = run(["search", "--vault", vault, "--mode", "dense", "--verbose", "-k", "1", "sourdough starter"]);
    expect(dense.stderr).not.toContain("near pairs");
    expect(dense.stderr).not.toContain("backlink text");
    // no passage of Ramen says "chashu"; the knife note's link to it does, and --verbose says so
    const linked = run(["search", "--vault", vault, "--mode", "keyword", "--verbose", "-k", "3", "chashu"]);
    expect(linked.stdout).toMatch(/^kitchen\/Ramen\.md:/m);
    expect(linked.stderr).toContain(
      "backlink text: kitchen/Ramen.md also matched by what other notes say where they link to it (0.1 × that BM25)\n",
    );
    expect(widened.stderr).toContain("backlink text: no hit matched by what other notes say where they link to it\n");
    // --json marks the same hit, and only it
    const linkedJson = run(["search", "--vault", vault, "--mode", "keyword", "--json", "-k", "3", "chashu"]);
    const marked = (JSON.parse(linkedJson.stdout) as { path: string; backlinked?: boolean }[]).filter(
      (h) => h.backlinked,
    );
    expect(marked.map((h) => h.path)).toEqual(["kitchen/Ramen.md"]);
    // nor one whose missing word has no synonym in the notes: it said "none needed" there too, untruly
    const zebra = run(["search", "--vault", vault, "--mode", "keyword", "--verbose", "-k", "1", "zebra sourdough"]);
    expect(zebra.stderr).toContain(none);
    expect(zebra.stderr).not.toContain("synonyms: zebra");
    const [hit] = nonEmpty(json(["search", "--vault", vault, "--mode", "keyword", "-k", "1", "vacation"]));
    expect(hit.text.toLowerCase()).toContain("holiday");
  });

  it("searches on the question's own words when WordNet cannot be read, and --verbose says why", () => {
    const missing = path.join(elsewhere, "no-wordnet");
    const r = run(["search", "--vault", vault, "--mode", "keyword", "--verbose", "-k", "1", "vacation motors"], {
      env: { VAULT_RAG_WORDNET: missing },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(".md:");
    expect(r.stderr).not.toContain("(weight");
    expect(r.stderr).toMatch(
      new RegExp(
        `^synonyms: off — cannot read the WordNet database at ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(.*\\) — point VAULT_RAG_WORDNET at a WordNet dict folder, or unset it, or turn synonyms off \\(--no-expand; expand: false in MCP and the API\\)$`,
        "m",
      ),
    );
    // the same hits as a search that asks for no synonyms
    const args = ["search", "--vault", vault, "--mode", "keyword", "vacation motors"];
    const without = json([...args, "--no-expand"]);
    const broken = run([...args, "--json"], { env: { VAULT_RAG_WORDNET: missing } });
    expect(JSON.parse(broken.stdout)).toEqual(nonEmpty(without));
    expect(json(args)).not.toEqual(without); // with WordNet, "holiday" brings in another note
  });

  it("stops quietly with exit 0 when the reader of its output goes away (| head), as grep does", () => {
    // the CLI's output piped into a reader that exits at once; `redirect` picks the stream piped
    const piped = (args: string[], redirect = "") =>
      spawnSync(
        "bash",
        ["-c", `"${process.execPath}" "${BIN}" "$@" ${redirect}| true; echo "exit \${PIPESTATUS[0]}"`, "x", ...args],
        { cwd: elsewhere, encoding: "utf8" },
      );
    for (const r of [
      piped(["chunks", vault, "--note", "robots/SMARS.md"]),
      piped(["search", "--vault", vault, "-k", "20", "motor"]),
      // the same when it is stderr whose reader goes away (--verbose writes there)
      piped(["search", "--vault", vault, "--verbose", "motor"], "2>&1 >/dev/null "),
    ]) {
      expect(r.stdout.trim()).toBe("exit 0");
      expect(r.stderr).toBe("");
    }
  });

  it("reports errors with their exit codes", () => {
    const where = run(["search", "--vault", vault, "--where", '{"tags": {"$in": ["pico"]}}', "x"]);
    expect(where.code).toBe(2);
    expect(where.stderr.trim()).toBe(
      'vault-rag: "$in" does not work on the list field "tags" — use {"tags": {"$contains": "pico"}}',
    );
    const ms = run(["search", "--vault", vault, "--where", '{"mtime": {"$gte": 1767225600000}}', "x"]);
    expect(ms.stderr.trim()).toBe(
      "vault-rag: mtime value 1767225600000 looks like milliseconds — mtime is in seconds; divide by 1000",
    );
    expect(run(["search", "--vault", vault, "--bogus", "x"]).code).toBe(2);
    expect(run(["search", "--vault", vault, "--where", "{not json", "x"]).code).toBe(2);
    expect(run(["search", "--vault", vault, "--since", "someday", "x"]).stderr.trim()).toBe(
      'vault-rag: cannot read the time "someday" — use a duration like 90d, 2w or 12h, a date like 2026-06-01, or an ISO time',
    );
    const model = run(["search", "--vault", vault, "--model", "ollama:nomic-embed-text", "x"]);
    expect(model.code).toBe(2);
    expect(model.stderr.trim()).toBe(
      `vault-rag: index at ${path.join(vault, ".vault-rag/index.db")} was built with use-lite (512-d) — run \`vault-rag index '${vault}' --full --model ollama:nomic-embed-text\` to rebuild`,
    );
    expect(run(["search", "--vault", vault, "--where", "{}", "motor"]).code).toBe(0);
    const list = run(["search", "--vault", vault, "--where", "[]", "motor"]);
    expect(list.code).toBe(2);
    // one line, as every error is
    expect(list.stderr).toBe(
      `vault-rag: option '--where <json>' argument '[]' is invalid. --where must be a JSON object, e.g. '{"folder": "kitchen"}', got [] (run with --help for usage)\n`,
    );
    // a document filter's example is a document filter
    expect(run(["search", "--vault", vault, "--where-document", "katex", "motor"]).stderr).toBe(
      `vault-rag: option '--where-document <json>' argument 'katex' is invalid. --where-document must be JSON, e.g. '{"$contains": "DRV8833"}', got katex (run with --help for usage)\n`,
    );
  });

  it("finds the vault from a subfolder and reports status with the absolute index path", () => {
    const st = JSON.parse(run(["status", "--json"], { cwd: path.join(vault, "robots") }).stdout);
    expect(st).toMatchObject({
      vault,
      index: path.join(vault, ".vault-rag/index.db"),
      model: "use-lite",
      dimensions: 512,
      notes: 43,
      attachments: 3,
      stale: 0,
    });
    const human = run(["status", "--vault", vault]);
    expect(human.stdout).toContain(`index:        ${path.join(vault, ".vault-rag/index.db")}`);
  });

  it("takes the vault as an argument or as --vault on every command", () => {
    expect(json(["index", "--vault", vault])).toMatchObject({ added: 0, unchanged: 43 });
    expect(JSON.parse(run(["status", vault, "--json"]).stdout)).toMatchObject({ vault, notes: 43, attachments: 3 });
    expect(JSON.parse(run(["check", vault, "--json"]).stdout)).toMatchObject({ ok: true, stale: 0 });
    expect(run(["chunks", "--vault", vault, "--note", "robots/SMARS.md"]).stdout).toContain(
      "── SMARS Robot > SMARS > Motor wiring",
    );
    const two = run(["status", vault, "--vault", elsewhere]);
    expect(two.code).toBe(2);
    expect(two.stderr.trim()).toBe(`vault-rag: two vaults given, "${vault}" and --vault "${elsewhere}" — give one`);
  });

  it("follows edits, additions, deletions and renames, embedding only what changed", () => {
    const smars = path.join(vault, "robots/SMARS.md");
    fs.appendFileSync(
      smars,
      "\n## Firmware\n\nThe firmware is written in MicroPython and drives both motors with PWM at 20 kHz to keep them quiet.\n",
    );
    fs.writeFileSync(
      path.join(vault, "robots/New bot.md"),
      "# New bot\n\nA balancing robot with a zebra-striped shell and an MPU6050.\n",
    );
    fs.rmSync(path.join(vault, "travel/Kyoto.md"));
    fs.mkdirSync(path.join(vault, "archive"));
    fs.renameSync(path.join(vault, "garden/Composting.md"), path.join(vault, "archive/Composting.md"));
    expect(JSON.parse(run(["status", "--vault", vault, "--json"]).stdout).stale).toBe(5);
    const s = json(["index", vault]);
    expect(s).toMatchObject({ added: 2, updated: 1, deleted: 2, unchanged: 40 });
    expect(s.embedded).toBeLessThanOrEqual(3); // the new section, the new note (and a neighbour whose text moved)
    expect(json(["search", "--vault", vault, "-k", "1", "zebra-striped balancing"])[0].path).toBe("robots/New bot.md");
    expect(
      nonEmpty(json(["search", "--vault", vault, "Fushimi Inari Kyoto"])).some(
        (h: { path: string }) => h.path === "travel/Kyoto.md",
      ),
    ).toBe(false);
    expect(json(["search", "--vault", vault, "--folder", "archive", "compost"])[0].path).toBe("archive/Composting.md");
  });

  it("says a mistyped flag in one line, with commander's suggestion", () => {
    const r = run(["search", "--vault", vault, "--tpo-k", "3", "motors"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("vault-rag: unknown option '--tpo-k' (Did you mean --top-k?) (run with --help for usage)\n");
    // a query word that starts with a dash is read as a flag: said how to search for it
    const dashed = run(["search", "--vault", vault, "tar", "-xzvf"]);
    expect(dashed.code).toBe(2);
    expect(dashed.stderr).toBe(
      "vault-rag: unknown option '-xzvf' — to search for a word that starts with a dash, put the query after the flags and --: vault-rag search [flags] -- -xzvf …\n",
    );
  });

  it("names a folder given as the index file, and exits 2 from search for it, as grep exits for an error", () => {
    const r = run(["search", "--vault", vault, "--db", elsewhere, "motors"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `vault-rag: the index path ${elsewhere} is a folder — give the index file in it (${path.join(elsewhere, "index.db")}), or leave --db out to use <vault>/.vault-rag/index.db`,
    );
  });

  it("leaves the old index usable when a rebuild with another model fails", () => {
    const before = json(["search", "--vault", vault, "-k", "1", "DRV8833"]);
    const r = run(["index", vault, "--full", "--model", "ollama:nomic-embed-text", "--quiet"], {
      env: { OLLAMA_HOST: "127.0.0.1:9" },
    });
    expect(r.code).toBe(1);
    // the error ends the output; before it, warnings of the notes read until the model was needed
    // (the vault's note of broken frontmatter, when the hash-fixed order reads it first)
    const lines = r.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(
      "vault-rag: Ollama is not reachable at http://127.0.0.1:9 — start it with `ollama serve` or choose another model",
    );
    expect(lines.slice(0, -1).filter((l) => !l.startsWith("warning: "))).toEqual([]);
    expect(fs.readdirSync(path.join(vault, ".vault-rag")).filter((f) => f.includes("rebuild"))).toEqual([]);
    expect(json(["search", "--vault", vault, "-k", "1", "DRV8833"])).toEqual(before);
    expect(JSON.parse(run(["status", "--vault", vault, "--json"]).stdout).model).toBe("use-lite");
  });

  it("moves a note's dates when only its time changed: date filters and status follow", () => {
    const bread = path.join(vault, "kitchen/Sourdough.md");
    const old = Math.floor(Date.now() / 1000) - 40 * DAY;
    fs.utimesSync(bread, old, old);
    expect(JSON.parse(run(["status", "--vault", vault, "--json"]).stdout).stale).toBe(1);
    expect(json(["index", vault])).toMatchObject({ added: 0, updated: 0, embedded: 0 });
    expect(JSON.parse(run(["status", "--vault", vault, "--json"]).stdout).stale).toBe(0);
    const paths = (flags: string[]) =>
      json(["search", "--vault", vault, ...flags, "sourdough starter bread"]).map((h: { path: string }) => h.path);
    expect(paths(["--since", "7d"])).not.toContain("kitchen/Sourdough.md");
    expect(paths(["--until", "30d"])).toContain("kitchen/Sourdough.md");
  });

  it("prints the chunks of a note given by path or by name, and names the closest note for a misspelt one", () => {
    const r = run(["chunks", vault, "--note", "robots/SMARS.md"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("── SMARS Robot > SMARS > Motor wiring  (robots/SMARS.md:");
    expect(run(["chunks", vault, "--note", "smars"]).stdout).toBe(r.stdout);
    // an absolute path inside the vault (a shell's completion) is that note; one outside is no note
    expect(run(["chunks", vault, "--note", path.join(vault, "robots/SMARS.md")]).stdout).toBe(r.stdout);
    const related = run(["related", "--vault", vault, "--json", path.join(vault, "robots/SMARS.md")]);
    expect(related.code, related.stderr).toBe(0);
    expect(JSON.parse(related.stdout).length).toBeGreaterThan(0);
    const outside = path.join(elsewhere, "SMARS.md");
    expect(run(["chunks", vault, "--note", outside]).stderr).toMatch(/^vault-rag: no note ".*SMARS\.md" in /);
    const miss = run(["chunks", vault, "--note", "sourdoug"]);
    expect(miss.code).toBe(2);
    expect(miss.stderr.trim()).toBe(`vault-rag: no note "sourdoug" in ${vault} — did you mean "kitchen/Sourdough.md"?`);
  });
});
