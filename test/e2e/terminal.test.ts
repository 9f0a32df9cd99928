import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy } from "./helpers.js";

let vault = "";
let elsewhere = "";
const ESC = "\x1b[";

function run(args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: elsewhere,
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", NO_COLOR: undefined, ...env },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI with stdout (and stdin, stderr) on a pseudo-terminal, through util-linux `script`. */
function onTty(args: string[], env: Record<string, string | undefined> = {}) {
  const cmd = [process.execPath, BIN, ...args].map(sh).join(" ");
  const r = spawnSync("script", ["-qfec", cmd, "/dev/null"], {
    cwd: elsewhere,
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", NO_COLOR: undefined, ...env },
    encoding: "utf8",
    input: "",
  });
  return { code: r.status, out: r.stdout.replace(/\r\n/g, "\n") };
}

beforeAll(() => {
  ({ vault, elsewhere } = exampleVaultCopy("vr-term-"));
  expect(run(["index", vault, "--quiet"]).code).toBe(0);
});

describe("hits a terminal can use", () => {
  it("prints path:line (the chunk's first line in the note) and the breadcrumb, then a snippet", () => {
    const r = run(["search", "--vault", vault, "-k", "4", "--mode", "keyword", "DRV8833 motor wiring"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(8);
    const hits = JSON.parse(
      run(["search", "--vault", vault, "-k", "4", "--mode", "keyword", "--json", "DRV8833 motor wiring"]).stdout,
    );
    hits.forEach((h: { path: string; start_line: number; label: string; text: string }, i: number) => {
      expect(lines[2 * i]).toBe(`${h.path}:${h.start_line}  ${h.label}`);
      expect(lines[2 * i + 1]).toMatch(/^ {4}\S/);
      const noteLine = fs.readFileSync(path.join(vault, h.path), "utf8").split("\n")[h.start_line - 1];
      expect(h.text.startsWith(noteLine.trim())).toBe(true);
    });
    expect(lines[0]).toBe("robots/SMARS.md:19  SMARS Robot > SMARS > Motor wiring");
    expect(r.stdout).not.toContain("%)");
  });

  it("shows scores only under --verbose, as numbers a person can read", () => {
    const r = run(["search", "--vault", vault, "-k", "2", "--verbose", "DRV8833"]);
    expect(r.stdout.split("\n")[0]).toMatch(
      /^\S.*\.md:\d+ {2}.+ {2}score \d\.\d{3}, distance \d\.\d{3}; dense (#\d+|–), keyword (#\d+|–)$/,
    );
  });

  it("colours on a terminal and never in a pipe; NO_COLOR turns it off and --color overrides both", () => {
    const args = ["search", "--vault", vault, "-k", "1", "--mode", "keyword", "DRV8833 wiring"];
    const plain = run(args);
    expect(plain.stdout).not.toContain(ESC);
    const tty = onTty(args);
    expect(tty.code).toBe(0);
    tty.out = tty.out.replace(/\x1b\]8;;[^\x1b]*\x1b\\/g, ""); // the links, checked under "hyperlinks"
    expect(tty.out).toContain(
      `${ESC}35mrobots/SMARS.md${ESC}0m:${ESC}32m19${ESC}0m  ${ESC}1;36mSMARS Robot > SMARS > Motor wiring${ESC}0m`,
    );
    expect(tty.out).toContain(`The ${ESC}1;31mDRV8833${ESC}0m takes`);
    expect(onTty(args, { NO_COLOR: "1" }).out).not.toContain(ESC);
    expect(onTty(args, { NO_COLOR: "" }).out).toContain(ESC); // empty NO_COLOR does not count (no-color.org)
    expect(onTty([...args, "--color", "never"]).out).not.toContain(ESC);
    expect(onTty([...args, "--color", "always"], { NO_COLOR: "1" }).out).toContain(`${ESC}1;31mDRV8833${ESC}0m`);
    expect(run([...args, "--color", "always"]).stdout).toContain(`${ESC}35mrobots/SMARS.md${ESC}0m`);
    const bad = run([...args, "--color", "sometimes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "vault-rag: option '--color <when>' argument 'sometimes' is invalid. Allowed choices are auto, always, never. (run with --help for usage)\n",
    );
  });
});

describe("hyperlinks", () => {
  const OSC8 = "\x1b]8;;";
  const ST = "\x1b\\";

  it("make path:line an OSC 8 link to the note in Obsidian on a terminal with colour, and never elsewhere", () => {
    const args = ["search", "--vault", vault, "-k", "1", "--mode", "keyword", "DRV8833 wiring"];
    const url = "obsidian://open?vault=vault&file=robots%2FSMARS.md";
    expect(onTty(args).out).toContain(
      `${OSC8}${url}${ST}${ESC}35mrobots/SMARS.md${ESC}0m:${ESC}32m19${ESC}0m${OSC8}${ST}  ${ESC}1;36mSMARS Robot`,
    );
    for (const off of [
      onTty([...args, "--color", "never"]).out,
      onTty(args, { NO_COLOR: "1" }).out,
      run(args).stdout,
      run([...args, "--color", "always"]).stdout, // colour into a pipe or file, but no links
    ])
      expect(off).not.toContain(OSC8);
    expect(run([...args, "--color", "never"]).stdout.split("\n")[0]).toBe(
      "robots/SMARS.md:19  SMARS Robot > SMARS > Motor wiring",
    );
  });

  it("link to the file itself in a folder that is not an Obsidian vault, encoded", async () => {
    const { noteLinker, osc8 } = await import("../../src/cli/hyperlink.js");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-links-"));
    const plain = path.join(dir, "my notes");
    const obsidian = path.join(dir, "Café notes");
    fs.mkdirSync(plain);
    fs.mkdirSync(path.join(obsidian, ".obsidian"), { recursive: true });
    expect(noteLinker(plain)("kitchen/Crêpes.md")).toBe(`file://${dir}/my%20notes/kitchen/Cr%C3%AApes.md`);
    expect(noteLinker(obsidian)("kitchen/Crêpes.md")).toBe(
      "obsidian://open?vault=Caf%C3%A9%20notes&file=kitchen%2FCr%C3%AApes.md",
    );
    expect(osc8("file:///a.md", "a.md:3")).toBe("\x1b]8;;file:///a.md\x1b\\a.md:3\x1b]8;;\x1b\\");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("no results", () => {
  it("exits 1 with nothing on stdout, and says why on stderr", () => {
    const r = run(["search", "--vault", vault, "--where-document", '{"$contains": "no such text anywhere"}', "motors"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("no results: no chunk passes the filters\n");
    // by keyword, a chunk that passes but holds none of the words is no hit: said so, not "none passes"
    const kw = run([
      "search",
      "--vault",
      vault,
      "--mode",
      "keyword",
      "--where",
      '{"path": "kitchen/Ramen.md"}',
      "motors",
    ]);
    expect(kw.stderr).toBe("no results: no chunk that passes the filters matches the query\n");
    const j = run([
      "search",
      "--vault",
      vault,
      "--json",
      "--where-document",
      '{"$contains": "no such text anywhere"}',
      "motors",
    ]);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual([]);
  });

  it("suggests the folder when --folder or --top-folder matches one only in another case", () => {
    const r = run(["search", "--vault", vault, "--folder", "Robots", "motors"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'no results: no chunk passes the filters\nvault-rag: no folder "Robots" in the index — did you mean --folder "robots"?\n',
    );
    expect(run(["search", "--vault", vault, "--top-folder", "KITCHEN", "bread"]).stderr.split("\n")[1]).toBe(
      'vault-rag: no folder "KITCHEN" in the index — did you mean --top-folder "kitchen"?',
    );
    expect(run(["search", "--vault", vault, "--folder", "robts", "motors"]).stderr.split("\n")[1]).toBe(
      'vault-rag: no folder "robts" in the index — closest: "robots"; list them with `vault-rag folders`',
    );
  });

  it("says a --folder is left out by .vault-ragignore, with the fix", () => {
    const own = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-term-ignored-")), "notes");
    fs.mkdirSync(path.join(own, "drafts"), { recursive: true });
    fs.writeFileSync(path.join(own, "Bread.md"), "# Bread\n\nSourdough baked in a Dutch oven.\n");
    fs.writeFileSync(path.join(own, "drafts/Rye.md"), "# Rye\n\nA rye loaf, still a draft.\n");
    fs.writeFileSync(path.join(own, ".vault-ragignore"), "drafts/\n");
    expect(run(["index", own, "--quiet"]).code).toBe(0);
    const r = run(["search", "--vault", own, "--folder", "drafts", "rye"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'no results: no chunk passes the filters\nvault-rag: no folder "drafts" in the index: .vault-ragignore keeps "drafts/" out of the index — remove that rule and run `vault-rag index` to search it\n',
    );
  });

  it("says when no note has a tag, naming the closest tags", () => {
    const r = run(["search", "--vault", vault, "--tag", "picoo", "power"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'no results: no chunk passes the filters\nvault-rag: no note has the tag "picoo" — closest tags: "pico"; list them with `vault-rag tags`\n',
    );
    // a tag that exists gives no hint, even when the search finds nothing
    const none = run(["search", "--vault", vault, "--tag", "pico", "--folder", "kitchen", "power"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe("no results: no chunk passes the filters\n");
  });

  it("lists tags and folders with counts, as text and JSON", () => {
    const tags = JSON.parse(run(["tags", vault, "--json"]).stdout);
    expect(tags).toContainEqual({ tag: "pico", notes: 3 });
    expect(run(["tags", "--vault", vault]).stdout).toMatch(/^ *\d+ {2}\S/);
    const folders = JSON.parse(run(["folders", vault, "--json"]).stdout);
    expect(folders).toContainEqual({ folder: "robots", notes: 4 });
    expect(folders.reduce((n: number, f: { notes: number }) => n + f.notes, 0)).toBe(46);
    expect(run(["folders", vault]).stdout).toContain("4  robots\n");
  });
});

describe("hits from notes changed since the index", () => {
  it("says which hits come from notes edited or deleted since the last index, and nothing once it is fresh", () => {
    const own = exampleVaultCopy("vr-stale-");
    const env = { VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], {
        cwd: own.elsewhere,
        env: { ...process.env, ...env },
        encoding: "utf8",
      });
    expect(cli(["index", own.vault, "--quiet"]).status).toBe(0);
    const query = ["search", "--vault", own.vault, "-k", "3", "motor driver"];
    const fresh = cli(query);
    expect(fresh.status).toBe(0);
    expect(fresh.stderr).toBe("");
    const paths = [...fresh.stdout.matchAll(/^(\S+\.md):\d+/gm)].map((m) => m[1]);
    expect(new Set(paths).size).toBeGreaterThanOrEqual(2);
    const [edited, gone] = [...new Set(paths)];
    fs.appendFileSync(path.join(own.vault, edited), "\nA line added after the index.\n");
    fs.rmSync(path.join(own.vault, gone));
    const stale = cli(query);
    expect(stale.status).toBe(0);
    expect(stale.stderr).toBe(
      `vault-rag: hits come from a note changed since the last index ("${edited}") and a note deleted since ("${gone}") — run \`vault-rag index\` to refresh them\n`,
    );
    // from another folder, with --db alone, the vault is unknown: nothing is claimed about files there
    const db = path.join(own.vault, ".vault-rag", "index.db");
    expect(cli(["search", "--db", db, "-k", "3", "motor driver"]).stderr).toBe("");
    expect(cli(["index", own.vault, "--quiet"]).status).toBe(0);
    expect(cli(query).stderr).toBe("");
  });
});

describe("text from the notes on a terminal", () => {
  it("never reaches it as control characters: names, tags, folders, headings and note text are written as escapes by tags, folders, chunks, related, search's hints, ask --context-only and chat", () => {
    const evil = fs.mkdtempSync(path.join(os.tmpdir(), "vr-evil-"));
    const dir = path.join(evil, "dir\x1b[2J");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "evil\x1b]0;X\x07.md"),
      '---\ntags: ["\x1b[31mred"]\n---\n# Evil \x1b]0;PWNED\x07 title\n\nA note about motors \x1b[5mblink.\n',
    );
    fs.writeFileSync(path.join(evil, "other.md"), "# Other\n\nMotors and wiring, a note about motors.\n");
    expect(run(["index", evil, "--quiet"]).code).toBe(0);
    const commands = [
      ["tags", "--vault", evil],
      ["folders", "--vault", evil],
      ["chunks", evil],
      ["related", "other", "--vault", evil],
      ["search", "--vault", evil, "--tag", "\x1b[31mredx", "motors"],
      ["search", "--vault", evil, "--folder", "dir\x1b[2", "motors"],
      ["ask", "--vault", evil, "--context-only", "motors"],
    ];
    for (const args of commands) {
      const r = run(args, { NO_COLOR: "1" });
      const shown = r.stdout + r.stderr;
      expect(shown.length, args.join(" ")).toBeGreaterThan(0);
      expect(shown, args.join(" ")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    }
    // chat: its hits, and the hints of a search that finds nothing through a folder that is not there
    const chat = spawnSync(process.execPath, [BIN, "chat", "--vault", evil, "--retrieval-only"], {
      cwd: elsewhere,
      env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", NO_COLOR: "1" },
      encoding: "utf8",
      input: "motors blink\n/folder dir\x1b[2\nmotors\n/exit\n",
    });
    expect(chat.stdout).toContain('no folder "dir\\x1b[2" in the index');
    expect(chat.stdout + chat.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    // written as escapes, so the name can still be read
    expect(run(["folders", "--vault", evil]).stdout).toContain("dir\\x1b[2J");
    expect(run(["tags", "--vault", evil]).stdout).toContain("\\x1b[31mred");
    expect(run(["chunks", evil]).stdout).toContain("# Evil \\x1b]0;PWNED\\x07 title");
  });
});
