import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy, addGeneratedNotes } from "./helpers.js";

const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const running: ChildProcess[] = [];
afterEach(() => {
  for (const p of running.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
});

/** Adds `n` notes of `length` words, so that a first index takes several batches. */
function addNotes(vault: string, n: number, length: number): void {
  addGeneratedNotes(vault, n, length);
}

const status = (vault: string) =>
  spawnSync(process.execPath, [BIN, "status", vault, "--json"], { env, encoding: "utf8" });

describe("index stopped by SIGTERM", () => {
  it("says how much was saved, as Ctrl-C does, keeps it, frees the lock and exits 143", async () => {
    const { vault } = exampleVaultCopy("vr-term-");
    addNotes(vault, 150, 200);
    const p = spawn(process.execPath, [BIN, "index", vault], { env, stdio: ["ignore", "pipe", "pipe"] });
    running.push(p);
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = new Promise<number | null>((r) => p.on("exit", (code) => r(code)));
    // once a batch is stored (status reads the index while the run holds its lock), stop it
    let stored = false;
    for (let i = 0; i < 400 && !stored && p.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const st = status(vault);
      stored = st.status === 0 && JSON.parse(st.stdout).chunks > 0;
    }
    expect(stored, `no batch was stored before the run ended:\n${stderr}`).toBe(true);
    p.kill("SIGTERM");
    expect(await exited, stderr).toBe(143);
    // stopped in the keyword phase (notes saved) or in the dense phase (passages given vectors)
    const m =
      /stopped — (?:([\d,]+) of [\d,]+ notes saved \(searchable by keyword\)|every note is searchable by keyword; vectors stored for ([\d,]+) of [\d,]+ passages); run `vault-rag index` to resume\n$/.exec(
        stderr,
      );
    expect(m, stderr).not.toBeNull();
    // what it said was saved is in the index, and no lock is left behind
    const st = JSON.parse(status(vault).stdout);
    // (the files read: notes and attachments, which status counts apart)
    if (m![1]) expect(st.notes + st.attachments).toBe(Number(m![1].replace(/,/g, "")));
    else expect(st.phases.dense.passages).toBe(Number(m![2].replace(/,/g, "")));
    expect(fs.existsSync(path.join(vault, ".vault-rag", "index.db.lock"))).toBe(false);
  }, 240_000);
});
