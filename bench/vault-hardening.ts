/**
 * Issue 37's vault reproductions, timed end to end: `node <bin> index <vault>` on generated vaults.
 *
 * - ignore: a `.vault-ragignore` line of `**` segments (`**\/a/**\/a/…/**\/c`) over a folder
 *   `a/a/…/a` 40 deep holding one note, beside `top.md`; and the same vault without the line.
 * - aliases: a note whose `tags` repeat, through 99 YAML aliases, one anchored list of 40,000
 *   (380 KB) or 160,000 (1.6 MB) tags, or of 6,000 (54 KB, under the frontmatter limit; 10 and 99
 *   aliases); and the same note without the aliases.
 * - walk: the ignore rules alone over folders 40 to 320 deep, their steps against the characters
 *   of the paths read (linear: about one step per character).
 *
 * Usage: `npx tsx bench/vault-hardening.ts [--bin dist/cli/main.js] [--runs 3] [--only ignore,aliases,walk]`.
 * Each figure is the median wall time of `--runs` runs, each on a fresh copy of the vault.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseIgnoreRules } from "../src/vault/ignore-rules.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const BIN = path.resolve(arg("bin", "dist/cli/main.js"));
const RUNS = Number(arg("runs", "3"));
const ONLY = arg("only", "ignore,aliases,walk").split(",");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "vr-bench-vault-"));
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** The median seconds `index` takes on fresh vaults that `make` writes. */
function timeIndex(label: string, make: (dir: string) => void): void {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const dir = fs.mkdtempSync(path.join(work, "v-"));
    make(dir);
    const t = performance.now();
    execFileSync(process.execPath, [BIN, "index", dir, "--quiet"], { stdio: ["ignore", "ignore", "pipe"] });
    times.push((performance.now() - t) / 1000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`${label}: ${med(times).toFixed(1)} s (runs: ${times.map((t) => t.toFixed(1)).join(", ")})`);
}

const nested = (segments: number) => `${Array(segments).fill("**/a").join("/")}/**/c`;

function deepVault(dir: string, line?: string): void {
  const deep = path.join(dir, ...Array(40).fill("a"));
  fs.mkdirSync(deep, { recursive: true });
  fs.writeFileSync(path.join(deep, "deep.md"), "# Deep\n\nA note 40 folders down.\n");
  fs.writeFileSync(path.join(dir, "top.md"), "# Top\n\nAn ordinary note.\n");
  if (line) fs.writeFileSync(path.join(dir, ".vault-ragignore"), `${line}\n`);
}

function aliasVault(dir: string, items: number, aliases: number): void {
  const list = Array.from({ length: items }, (_, i) => `tag${i}`).join(", ");
  const tags = aliases ? `[${Array(aliases).fill("*x").join(", ")}]` : "[tag0]";
  fs.writeFileSync(path.join(dir, "flood.md"), `---\nbase: &x [${list}]\ntags: ${tags}\n---\n# Flood\n\nTags.\n`);
  fs.writeFileSync(path.join(dir, "top.md"), "# Top\n\nAn ordinary note.\n");
}

console.log(`bin: ${BIN}, runs: ${RUNS}`);
if (ONLY.includes("ignore")) {
  timeIndex("index, 40 deep, no ignore line", (d) => deepVault(d));
  timeIndex("index, 40 deep, 7 ** segments", (d) => deepVault(d, nested(7)));
  timeIndex("index, 40 deep, 9 ** segments", (d) => deepVault(d, nested(9)));
}
if (ONLY.includes("aliases")) {
  // the audit's notes (over the 64 KB frontmatter limit), and one under it
  for (const [items, counts] of [
    [40_000, [0, 99]],
    [160_000, [0, 99]],
    [6_000, [0, 10, 99]],
  ] as const) {
    const kb = (Buffer.byteLength(Array.from({ length: items }, (_, i) => `tag${i}`).join(", ")) / 1024).toFixed(0);
    for (const n of counts) timeIndex(`index, a ${kb} KB list, ${n} aliases`, (d) => aliasVault(d, items, n));
  }
}
if (ONLY.includes("walk")) {
  for (const segments of [9, 20]) {
    for (const depth of [40, 80, 160, 320]) {
      const rules = parseIgnoreRules(nested(segments));
      let folder = "";
      let chars = 0;
      const t = performance.now();
      for (let d = 0; d < depth; d++) {
        folder += "a/";
        chars += folder.length;
        rules.ignores(folder);
      }
      rules.ignores(`${folder}deep.md`);
      chars += folder.length + 7;
      const ms = performance.now() - t;
      console.log(
        `rules, ${segments} ** segments, ${depth} deep: ${chars} characters read in ${rules.steps} steps (${(rules.steps / chars).toFixed(2)} per character), ${ms.toFixed(1)} ms`,
      );
    }
  }
}
fs.rmSync(work, { recursive: true, force: true });
