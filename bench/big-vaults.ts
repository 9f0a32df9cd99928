/**
 * `BENCH_ONLY=bigvaults`: indexing a vault with a huge note, and Ctrl-C in both phases, with the
 * bundled model.
 *
 * - first saved vector: examples/vault with a 20 MB note of prose paragraphs added, indexed from
 *   nothing in process (`indexVault`, as the CLI runs it); the seconds from the end of the keyword
 *   phase to the first passages stored with vectors, and the keyword phase's own time;
 * - Ctrl-C latency: the built CLI indexes off a terminal; once its progress line shows the phase
 *   (`reading notes N/M` with N > 0 in the keyword phase: 20,000 generated notes; `keyword ready ·
 *   dense` in the dense phase: the vault with the 20 MB note), SIGINT is sent, and the time to the
 *   process's exit is measured, three times each.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { useLiteEmbedder } from "../dist/embed/index.js";
import { indexVault } from "../dist/indexing/index.js";
import { generateVault } from "./gen.js";

/** What {@link bigVaultsBench} needs of the bench run. */
export interface BigVaultsContext {
  root: string;
  bin: string;
  work: string;
  line: (s: string) => void;
}

/** Writes a note of about `mb` megabytes of distinct paragraphs, a heading every 100. */
export function writeHugeNote(file: string, mb: number): void {
  const words = "motor battery sensor garden bread river mountain cable solder yeast compost seed tomato pump".split(
    " ",
  );
  const parts = ["# Huge\n\n"];
  let size = 0;
  for (let k = 0; size < mb * 1e6; k++) {
    let p = k % 100 === 0 ? `## Part ${k}\n\n` : "";
    for (let w = 0; w < 80; w++) p += words[(k * 7 + w * w + Math.floor(k / 13)) % words.length] + ` w${k}x${w} `;
    parts.push(p + ".\n\n");
    size += p.length + 3;
  }
  fs.writeFileSync(file, parts.join(""));
}

/** Starts `index` off a terminal, sends SIGINT once stderr matches `when`, and returns the milliseconds to exit. */
function interruptAt(bin: string, vault: string, when: RegExp): Promise<{ ms: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
    const p = spawn(process.execPath, [bin, "index", vault], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let sent = 0;
    p.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      if (!sent && when.test(stderr)) {
        sent = performance.now();
        p.kill("SIGINT");
      }
    });
    p.on("error", reject);
    p.on("exit", (code) =>
      sent ? resolve({ ms: performance.now() - sent, code }) : reject(new Error(`ended before ${when}:\n${stderr}`)),
    );
  });
}

/**
 * Measures the dense phase's first saved vector with a 20 MB note, and Ctrl-C latency in both phases.
 *
 * @example
 * ```ts
 * await bigVaultsBench({ root, bin: "dist/cli/main.js", work: "/tmp/vr-bench", line: console.log });
 * ```
 */
export async function bigVaultsBench({ root, bin, work, line }: BigVaultsContext): Promise<void> {
  const huge = path.join(work, "huge-vault");
  fs.cpSync(path.join(root, "examples/vault"), huge, {
    recursive: true,
    filter: (src) => path.basename(src) !== ".vault-rag",
  });
  writeHugeNote(path.join(huge, "Huge.md"), 20);
  const db = path.join(work, "huge.db");
  const stop = new AbortController();
  const t0 = performance.now();
  let keywordAt = 0;
  let firstSaved = 0;
  let base: number | undefined;
  await indexVault(huge, db, useLiteEmbedder(), {
    signal: stop.signal,
    onProgress(phase, done) {
      if (phase === "keyword") keywordAt = performance.now();
      if (phase !== "saved") return;
      base ??= done;
      if (done > base && !firstSaved) {
        firstSaved = performance.now();
        stop.abort();
      }
    },
  }).catch((err) => {
    if ((err as { code?: string }).code !== "stopped") throw err;
  });
  line(
    `big    20 MB note + examples/vault: keyword phase ${((keywordAt - t0) / 1000).toFixed(1)} s; first passages with vectors stored ${((firstSaved - keywordAt) / 1000).toFixed(1)} s after it`,
  );
  const many = path.join(work, "gen-20000");
  generateVault(many, 20_000);
  const kw: number[] = [];
  const dense: number[] = [];
  for (let i = 0; i < 3; i++) {
    for (const v of [many, huge]) fs.rmSync(path.join(v, ".vault-rag"), { recursive: true, force: true });
    kw.push((await interruptAt(bin, many, /^indexing: reading notes [1-9][\d,]*\//m)).ms);
    dense.push((await interruptAt(bin, huge, /keyword ready · dense /)).ms);
  }
  const ms = (xs: number[]) => xs.map((x) => Math.round(x)).join(", ");
  line(`big    Ctrl-C to exit: keyword phase (20,000 notes) ${ms(kw)} ms; dense phase (20 MB note) ${ms(dense)} ms`);
}
