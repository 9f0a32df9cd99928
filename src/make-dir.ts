import fs from "node:fs";
import path from "node:path";

/**
 * Creates a folder and its missing parents, one level at a time, and stops at the first error.
 * (`fs.mkdirSync(dir, { recursive: true })` retries forever where a parent cannot hold folders, as
 * under /proc, at 100% CPU and deaf to Ctrl-C.)
 *
 * @example
 * ```ts
 * makeDir("/home/me/notes/.vault-rag"); // creates what is missing
 * makeDir("/proc/nope");                // throws ENOENT at once
 * ```
 */
export function makeDir(dir: string): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
