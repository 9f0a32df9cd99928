import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnChild, stopChildren, until } from "../support/children.js";
import { BIN, exampleVaultCopy, addGeneratedNotes, GENERATED_WORDS } from "./helpers.js";

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };

afterEach(stopChildren);

function addNotes(vault: string, n: number, length = 70): void {
  addGeneratedNotes(vault, n, length, [
    ...GENERATED_WORDS,
    ..."valve relay timer circuit voltage current resistor sketch paint canvas novel chapter poem harbor bridge tunnel".split(
      " ",
    ),
  ]);
}

/**
 * Runs `vault-rag index` on a pseudo-terminal (util-linux `script`), types Ctrl-C once the bar says a
 * batch was saved, and returns everything the terminal showed.
 */
function interruptedIndex(vault: string): Promise<{ code: number | null; out: string; sentAt: string }> {
  return new Promise((resolve, reject) => {
    const p = spawnChild("script", ["-qfec", [process.execPath, BIN, "index", vault].map(sh).join(" "), "/dev/null"], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let sentAt = "";
    p.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const saved = [...out.matchAll(/dense (\d+)\/\d+ passages/g)].map((m) => Number(m[1]));
      if (!sentAt && saved.some((n) => n > 0)) {
        sentAt = out;
        p.stdin!.write("\x03");
      }
    });
    p.on("error", reject);
    p.on("exit", (code) => resolve({ code, out, sentAt }));
  });
}

describe("index on a terminal", () => {
  it("shows progress in notes then passages, and Ctrl-C restores the cursor, says what was saved, and keeps it", async () => {
    const { vault } = exampleVaultCopy("vr-tty-");
    addNotes(vault, 60);
    const r = await interruptedIndex(vault);
    expect(r.sentAt, `no batch was reported saved:\n${r.out}`).not.toBe("");
    expect(r.code, r.out).toBe(130);
    // the bar: hidden cursor, in place, from the first frame; notes, then windows once keyword search is ready
    expect(r.out.startsWith("\x1b[?25l\r\x1b[2Kindexing")).toBe(true);
    expect(r.out).toMatch(/keyword ready · dense \d+\/\d+ passages · \d+\.\d\/s · ETA \d+s/);
    // nothing but the bar until the interrupt: no warning (examples/vault has a note with broken frontmatter)
    const frames = r.out.slice(0, r.out.lastIndexOf("\r\x1b[2K\x1b[?25h")).split("\r\x1b[2K").slice(1);
    expect(frames.length).toBeGreaterThan(1);
    for (const f of frames) expect(f).toMatch(/^indexing[ :][^\n\r]*$/);
    expect(r.out).not.toContain("warning");
    // after the interrupt: the cursor back, then one line
    const tail = r.out.slice(r.out.lastIndexOf("\x1b[?25h") + "\x1b[?25h".length).replace(/\r\n/g, "\n");
    const m =
      /^stopped — every note is searchable by keyword; vectors stored for (\d+) of (\d+) passages; run `vault-rag index` to resume\n$/.exec(
        tail,
      );
    expect(m, tail).not.toBeNull();
    const saved = Number(m![1]);
    expect(saved).toBeGreaterThan(0);
    expect(saved).toBeLessThan(Number(m![2]));
    // the lock went with the process: no file left for the next run to clear with a warning
    expect(fs.existsSync(path.join(vault, ".vault-rag", "index.db.lock"))).toBe(false);
    // the work was saved: the index holds every note, those passages with vectors, and the next run resumes
    const st = JSON.parse(
      spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" }).stdout,
    );
    expect(st).toMatchObject({ notes: 103, attachments: 3 });
    expect(st.phases.dense).toMatchObject({ state: "stopped", passages: saved, of: Number(m![2]) });
    const resumedRun = spawnSync(process.execPath, [BIN, "index", vault, "--json"], { env, encoding: "utf8" });
    const resumed = JSON.parse(resumedRun.stdout);
    expect(resumedRun.stderr).not.toContain("stale lock");
    expect(resumed.warnings.map((w: { code: string }) => w.code)).not.toContain("lock_stale");
    expect(resumed).toMatchObject({ added: 0, unchanged: 103, pending: 0 });
    expect(resumed.attachments).toMatchObject({ added: 0, unchanged: 3 });
    expect(resumed.embedded).toBeGreaterThan(0);
  });

  it("with --json, a run stopped by Ctrl-C still prints JSON of what it saved; a stopped --full leaves no file of its own", async () => {
    const { vault } = exampleVaultCopy("vr-json-stop-");
    addNotes(vault, 150, 200);
    const p = spawnChild(process.execPath, [BIN, "index", vault, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let ended: string | undefined;
    p.stdout!.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    p.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = new Promise<number | null>((r) =>
      p.on("close", (code) => {
        ended = `the run exited with code ${code}; stderr: ${stderr.trim() || "(empty)"}`;
        r(code);
      }),
    );
    // once a batch is stored (status reads the index while the run holds its lock), stop it
    await until(
      "a stored batch",
      () => {
        const st = spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" });
        return st.status === 0 && JSON.parse(st.stdout).chunks > 0;
      },
      () => ended,
    );
    p.kill("SIGINT");
    expect(await exited, stderr).toBe(130);
    const r = JSON.parse(stdout);
    expect(r).toMatchObject({ stopped: true, rebuild: false, notesTotal: 196 });
    expect(r.notesRead).toBeGreaterThan(0);
    // stopped in the keyword phase, or in the dense phase with passages still without vectors
    if (r.keywordReady) expect(r.passagesWithoutVectors).toBeGreaterThan(0);
    else expect(r.notesRead).toBeLessThan(196);
    // a --full stopped once its new file is begun: nothing of it is left, and the index is as it was
    const before = spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" }).stdout;
    const full = spawnChild(process.execPath, [BIN, "index", vault, "--full", "--json"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let fullOut = "";
    let fullErr = "";
    let fullEnded: string | undefined;
    full.stdout!.on("data", (d: Buffer) => (fullOut += d.toString("utf8")));
    full.stderr!.on("data", (d: Buffer) => (fullErr += d.toString("utf8")));
    const fullExited = new Promise<number | null>((r) =>
      full.on("close", (code) => {
        fullEnded = `the --full run exited with code ${code}; stderr: ${fullErr.trim() || "(empty)"}`;
        r(code);
      }),
    );
    const rebuild = path.join(vault, ".vault-rag", "index.db.rebuild");
    await until(
      "the --full run's new file",
      () => fs.existsSync(rebuild),
      () => fullEnded,
    );
    full.kill("SIGINT");
    expect(await fullExited, fullErr).toBe(130);
    expect(JSON.parse(fullOut)).toMatchObject({ stopped: true, rebuild: true, passagesWithVectors: 0 });
    expect(fs.readdirSync(path.dirname(rebuild)).filter((f) => f.includes("rebuild"))).toEqual([]);
    const after = spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" }).stdout;
    expect(JSON.parse(after).chunks).toBe(JSON.parse(before).chunks);
  });

  it("off a terminal prints whole progress lines every 5 s, never silent and never mixed with warnings", () => {
    const { vault } = exampleVaultCopy("vr-piped-");
    addNotes(vault, 250, 200); // 200 words a note (two windows each): the run outlasts 10 s on an idle machine (150 took 7.8 s on a fast day)
    const r = spawnSync(process.execPath, [BIN, "index", vault], { env, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const seconds = Number(/ in (\d+\.\d) s$/m.exec(r.stdout)![1]);
    // a run too short to show a line would prove nothing: add notes or words above if the machine got faster
    expect(seconds, "the run must last over 10 s to show progress lines").toBeGreaterThan(10);
    expect(r.stderr).not.toMatch(/[\r\x1b]/); // no bar, no cursor codes, no colour
    const lines = r.stderr.trimEnd().split("\n");
    const progress = lines.filter((l) => l.startsWith("indexing: "));
    // one line per 5 s while the work moves (the last interval may end with the run)
    expect(progress.length).toBeGreaterThanOrEqual(Math.floor(seconds / 5) - 1);
    for (const l of progress)
      expect(l).toMatch(
        /^indexing: (finding notes…|reading notes 0\/[\d,]+…|reading notes [\d,]+\/[\d,]+ · \d+\/s · ETA \w+|keyword ready · dense [\d,]+\/[\d,]+ passages · \d+\.\d\/s · (ETA \w+|embedding…|loading the model…))$/,
      );
    expect(progress.some((l) => / passages · /.test(l))).toBe(true);
    // the progress lines come first, then the warning (examples/vault has a note with broken
    // frontmatter), then the summary, then (a first index) the stronger measured model
    expect(lines.slice(0, progress.length)).toEqual(progress);
    expect(lines.slice(progress.length)).toEqual([
      expect.stringMatching(/^warning: invalid frontmatter in "work\/Broken note\.md"/),
      expect.stringMatching(
        /^indexed 293 notes, 3 attachments \([\d,]+ passages\) · keyword ready in \d+\.\d s · dense [\d,]+ windows in \d+(\.\d)? s$/,
      ),
      expect.stringMatching(/^stronger model: /),
    ]);
    // stdout holds the summary alone
    expect(r.stdout).toMatch(
      /^indexed .+\nnotes: 293 added, 0 updated, 0 deleted, 0 unchanged\nattachments: 3 added, 0 updated, 0 deleted, 0 unchanged\nchunks: \d+ in the index .+\n$/,
    );
  });

  it("prints warnings once after the run, one line per code with a count; --verbose lists each", () => {
    const { vault } = exampleVaultCopy("vr-warn-");
    fs.writeFileSync(path.join(vault, "Broken two.md"), "---\ntags: [a\n---\n# Broken two\n\nText.\n");
    const r = spawnSync(process.execPath, [BIN, "index", vault], { env, encoding: "utf8" });
    expect(r.status).toBe(0);
    // off a terminal: plain progress lines every few seconds, then the warnings
    // a first index ends with the stronger measured model; the lines before it are the run's
    const hint = r.stderr.trim().split("\n");
    expect(hint[hint.length - 1]).toMatch(/^stronger model: /);
    const all = hint.slice(0, -1);
    const lines = all.filter((l) => !l.startsWith("indexing: ") && !l.startsWith("indexed "));
    expect(lines).toHaveLength(1);
    expect(all[all.length - 2]).toBe(lines[0]);
    expect(all[all.length - 1]).toMatch(/^indexed 44 notes, 3 attachments \(/);
    expect(lines[0]).toMatch(
      /^warning: frontmatter_invalid ×2 — invalid frontmatter in "(Broken two|work\/Broken note)\.md" .* \(and 1 more; --verbose lists them all\)$/,
    );
    fs.appendFileSync(path.join(vault, "Broken two.md"), "More.\n");
    fs.appendFileSync(path.join(vault, "work/Broken note.md"), "More.\n");
    const v = spawnSync(process.execPath, [BIN, "index", vault, "--verbose"], { env, encoding: "utf8" });
    const warnings = v.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toHaveLength(2);
    for (const w of warnings)
      expect(w).toMatch(/^warning: invalid frontmatter in "(Broken two|work\/Broken note)\.md" at line \d+: /);
  });
});
