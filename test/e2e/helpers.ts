import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";

export const BIN = path.resolve("dist/cli/main.js");
export const DAY = 86400;

/**
 * Copies a vault folder without its index (`.vault-rag/`): a test's vault starts unindexed, whatever
 * the working tree holds (the README's first command indexes examples/vault in place).
 */
export function copyVaultWithoutIndex(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true, filter: (src) => path.basename(src) !== ".vault-rag" });
}

/**
 * A test fixture's vault copied, without its index, into a new temporary folder (`tmp`, as
 * `tmp/vault`) and indexed there by the CLI; throws with the CLI's stderr when indexing fails.
 */
export function indexedFixtureCopy(fixture: string, prefix: string): { tmp: string; vault: string } {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const vault = path.join(tmp, "vault");
  copyVaultWithoutIndex(path.resolve(fixture), vault);
  const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { cwd: tmp, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`vault-rag index failed: ${r.stderr}`);
  return { tmp, vault };
}

/**
 * A temporary copy of examples/vault, without any index it holds, (in a folder named `vaultName`) and an unrelated working
 * directory. A fresh clone gives every file the same time, so times are set explicitly: every note
 * 100 days old, kitchen/Sourdough.md one day old.
 */
export function exampleVaultCopy(prefix: string, vaultName = "vault"): { vault: string; elsewhere: string } {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const vault = path.join(tmp, vaultName);
  const elsewhere = path.join(tmp, "elsewhere");
  fs.mkdirSync(elsewhere);
  copyVaultWithoutIndex(path.resolve("examples/vault"), vault);
  const now = Math.floor(Date.now() / 1000);
  const old = now - 100 * DAY;
  for (const f of fs.readdirSync(vault, { recursive: true }) as string[]) fs.utimesSync(path.join(vault, f), old, old);
  fs.utimesSync(path.join(vault, "kitchen/Sourdough.md"), now - DAY, now - DAY);
  return { vault, elsewhere };
}

/** The words of generated notes: a small vocabulary, so that every note shares words with others. */
export const GENERATED_WORDS =
  "motor battery sensor garden bread river mountain cable solder yeast compost seed tomato pump".split(" ");

/**
 * Adds `n` notes of `length` words from `words` under `gen/`, the same on every run, so that a first
 * index takes several batches.
 */
export function addGeneratedNotes(vault: string, n: number, length: number, words = GENERATED_WORDS): void {
  fs.mkdirSync(path.join(vault, "gen"));
  for (let k = 0; k < n; k++) {
    let s = `# Generated ${k}\n\n`;
    for (let w = 0; w < length; w++) s += words[(k * 7 + w * w) % words.length] + (w % 12 === 11 ? ". " : " ");
    fs.writeFileSync(path.join(vault, "gen", `note ${k}.md`), s + "\n");
  }
}

/**
 * `vault-rag search <query> --vault <vault> --json` with `args`, run from `cwd`: the hits' paths and
 * the run's stderr, after checking that it exited 0.
 */
export function searchPaths(
  vault: string,
  cwd: string,
  query: string,
  args: string[] = [],
): { paths: string[]; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, "search", query, "--vault", vault, "--json", ...args], {
    cwd,
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
  return { paths: (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path), stderr: r.stderr };
}

/**
 * Writes a module for `node --import` that marks on stderr (`[test] loaded <name>`) each module
 * whose URL ends with one of `ends`' keys, and returns its path: which modules a CLI run loaded.
 */
export function loadMarker(dir: string, ends: Record<string, string>): string {
  const hooks = path.join(dir, "mark-hooks.mjs");
  fs.writeFileSync(
    hooks,
    `const ends = ${JSON.stringify(ends)};
export async function load(url, context, next) {
  for (const [end, name] of Object.entries(ends)) if (url.endsWith(end)) process.stderr.write("[test] loaded " + name + "\\n");
  return next(url, context);
}\n`,
  );
  const marker = path.join(dir, "mark.mjs");
  fs.writeFileSync(
    marker,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return marker;
}
