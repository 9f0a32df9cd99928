/**
 * qmd (`@tobilu/qmd`), the peer whose cold `search` the CLI's targets name, run beside vault-rag in
 * the same benchmark. It is installed by hand, never a dependency of this repository: QMD_BIN
 * names its launcher, e.g. after
 * `npm install --prefix /tmp/qmd @tobilu/qmd@2.8.3 --ignore-scripts` (with better-sqlite3 12 in
 * its `node_modules`: 13 needs Node 22), `QMD_BIN=/tmp/qmd/node_modules/.bin/qmd`.
 *
 * Each vault gets a home of its own (qmd keeps its index under `$XDG_CACHE_HOME`), indexed once by
 * `qmd collection add` and `qmd update` before anything is timed.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** A qmd install ready to search one vault. */
export interface QmdPeer {
  /** Milliseconds a cold `qmd search <query>` takes, from spawning it to its exit. */
  search(query: string): number;
}

/**
 * The qmd named by QMD_BIN, with `vault` indexed as a collection in a home under `work`, or
 * `undefined` when QMD_BIN is not set.
 *
 * @example
 * ```ts
 * const qmd = qmdPeer("/tmp/bench", "/tmp/bench/example");
 * qmd?.search("SMARS motors"); // 212
 * ```
 */
export function qmdPeer(work: string, vault: string): QmdPeer | undefined {
  const bin = process.env.QMD_BIN;
  if (!bin) return undefined;
  const home = fs.mkdtempSync(path.join(work, "qmd-home-"));
  const env = { ...process.env, HOME: home, XDG_CACHE_HOME: path.join(home, ".cache"), NO_COLOR: "1" };
  const run = (args: string[]) => execFileSync(bin, args, { cwd: vault, env, stdio: ["ignore", "pipe", "pipe"] });
  run(["collection", "add", ".", "--name", "bench"]);
  run(["update"]);
  return {
    search(query) {
      const t = performance.now();
      run(["search", query]);
      return performance.now() - t;
    },
  };
}
