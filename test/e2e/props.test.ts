import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { BIN } from "./helpers.js";

let vault = "";

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", ...env },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The paths a search finds, in order; fails with the CLI's stderr when it exits non-zero. */
function found(args: string[]): string[] {
  const r = run(["search", "--vault", vault, "--json", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path);
}

const NOTES: Record<string, string> = {
  "uni/Lecture.md":
    "---\nType: Uni Note\nstatus: draft\nrating: 4\npath: somewhere/else\nupdated: 2024-01-10\ntopics: [ml, stats]\n---\n# Lecture\n\nGradient descent minimises a loss function step by step.\n",
  "uni/Essay.md":
    "---\ntype: Essay\nstatus: final\nrating: 2\nupdated: last week\ncreated: 2023-11-02\n---\n# Essay\n\nAn essay about gradient descent and the history of optimisation.\n",
  "daily/2023-05-02.md": "# Standup\n\nTalked about gradient descent with the team.\n",
  "Recent.md": "# Recent\n\nGradient descent notes written this week.\n",
};

// every file modified now, as in a vault cloned from git: only frontmatter and file names are old
beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-props-")), "vault");
  for (const [p, text] of Object.entries(NOTES)) {
    fs.mkdirSync(path.dirname(path.join(vault, p)), { recursive: true });
    fs.writeFileSync(path.join(vault, p), text);
  }
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
});

describe("properties and note dates end to end through the CLI", () => {
  it("--where filters on a property by its name in any case", () => {
    expect(found(["--where", '{"type": "Uni Note"}', "gradient"])).toEqual(["uni/Lecture.md"]);
    expect(found(["--where", '{"rating": {"$gte": 2}}', "gradient"]).sort()).toEqual([
      "uni/Essay.md",
      "uni/Lecture.md",
    ]);
  });

  it("--prop key=value matches a value, and an item of a list property; several must all match", () => {
    expect(found(["--prop", "status=draft", "gradient"])).toEqual(["uni/Lecture.md"]);
    expect(found(["--prop", "Topics=stats", "gradient"])).toEqual(["uni/Lecture.md"]);
    expect(found(["--prop", "rating=2", "gradient"])).toEqual(["uni/Essay.md"]);
    const none = run(["search", "--vault", vault, "--prop", "status=final", "--prop", "rating=4", "gradient"]);
    expect([none.stdout, none.stderr]).toEqual(["", "no results: no chunk passes the filters\n"]);
  });

  it("a property named like a field is reached as prop.<name>; the field keeps its meaning", () => {
    expect(found(["--where", '{"prop.path": "somewhere/else"}', "gradient"])).toEqual(["uni/Lecture.md"]);
    expect(found(["--where", '{"path": "uni/Essay.md"}', "gradient"])).toEqual(["uni/Essay.md"]);
  });

  it("an unknown property is refused with the closest name", () => {
    const r = run(["search", "--vault", vault, "--where", '{"stauts": "draft"}', "gradient"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^vault-rag: unknown metadata field "stauts" — did you mean "status"/);
  });

  it("props lists names, counts and value types; props <name> lists its values", () => {
    const list = JSON.parse(run(["props", "--vault", vault, "--json"]).stdout);
    expect(list).toContainEqual({ name: "status", field: "status", notes: 2, types: { string: 2 } });
    expect(list).toContainEqual({ name: "path", field: "prop.path", notes: 1, types: { string: 1 } });
    expect(list).toContainEqual({ name: "updated", field: "updated", notes: 2, types: { date: 1, string: 1 } });
    const human = run(["props", "--vault", vault]);
    expect(human.stdout).toMatch(/^2 {2}rating {2}number$/m);
    expect(human.stdout).toMatch(/^1 {2}prop\.path {2}string$/m);
    expect(JSON.parse(run(["props", "Status", "--vault", vault, "--json"]).stdout)).toEqual([
      { value: "draft", type: "string", notes: 1 },
      { value: "final", type: "string", notes: 1 },
    ]);
  });

  it("--since uses the note's date (frontmatter, file name, else mtime); --by mtime the file's", () => {
    expect(found(["--since", "30d", "gradient"])).toEqual(["Recent.md"]);
    expect(found(["--since", "30d", "--by", "mtime", "gradient"]).sort()).toEqual(Object.keys(NOTES).sort());
    expect(found(["--until", "2023-06-01", "gradient"]).sort()).toEqual(["daily/2023-05-02.md"]);
  });

  it("search --json gives each hit its note's date and properties", () => {
    const r = run(["search", "--vault", vault, "--json", "gradient"]);
    expect(r.code, r.stderr).toBe(0);
    const hits = JSON.parse(r.stdout) as { path: string; mtime: number; date: number; props: object }[];
    const hit = (p: string) => hits.find((h) => h.path === p)!;
    const jan10 = Date.UTC(2024, 0, 10) / 1000;
    expect(hit("uni/Lecture.md").date).toBe(jan10);
    expect(hit("uni/Lecture.md").props).toEqual({
      type: "Uni Note",
      status: "draft",
      rating: 4,
      path: "somewhere/else",
      updated: { date: jan10 },
      topics: ["ml", "stats"],
    });
    expect(hit("daily/2023-05-02.md").date).toBe(Date.UTC(2023, 4, 2) / 1000);
    // a note without frontmatter: no properties, dated by its file's time
    expect(hit("Recent.md").props).toEqual({});
    expect(hit("Recent.md").date).toBe(hit("Recent.md").mtime);
  });

  it("status says where the dates came from, and counts a frontmatter date it could not read", () => {
    const status = JSON.parse(run(["status", vault, "--json"]).stdout);
    expect(status.dates).toEqual({ sources: { updated: 1, created: 1, filename: 1, mtime: 1 }, unreadable: 1 });
    expect(run(["status", vault]).stdout).toMatch(
      /^dates from: {3}\w+ 1, \w+ 1, \w+ 1, \w+ 1 \(1 note\(s\) with a frontmatter date that is no ISO date/m,
    );
  });

  it("an index written before notes had properties is upgraded in place; the next index fills them in, embedding nothing", () => {
    const copy = path.join(path.dirname(vault), "older");
    fs.cpSync(vault, copy, { recursive: true });
    // the layout of an index built before: no date, date_source or props columns, chunker version 27
    const file = path.join(copy, ".vault-rag", "index.db");
    const db = new Database(file);
    for (const c of ["date", "date_source", "props"]) db.exec(`ALTER TABLE chunks DROP COLUMN ${c}`);
    const manifest = JSON.parse(db.prepare("SELECT value FROM meta WHERE key = 'manifest'").pluck().get() as string);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'manifest'").run(
      JSON.stringify({ ...manifest, chunkerVersion: "27" }),
    );
    const chunks = db.prepare("SELECT count(*) FROM chunks").pluck().get();
    db.close();
    // searched as it is: every passage, dated by its mtime, with no properties yet
    const all = run(["search", "--vault", copy, "--json", "--since", "30d", "gradient"]);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toHaveLength(4);
    const again = run(["index", copy, "--json", "--quiet"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ updated: 4, embedded: 0, chunks });
    const draft = run(["search", "--vault", copy, "--json", "--prop", "status=draft", "gradient"]);
    expect(JSON.parse(draft.stdout).map((h: { path: string }) => h.path)).toEqual(["uni/Lecture.md"]);
  });
});
