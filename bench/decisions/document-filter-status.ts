/**
 * How long `GET /api/status` waits while six hybrid searches with a costly `whereDocument` filter
 * (150 `$not_contains` clauses) are sent at once to `vault-rag serve`, and when each search is
 * answered. BIN=<dist/cli/main.js of the build to measure> (default: this worktree's). Serves on
 * 127.0.0.1 only. Reproduces docs/decisions/document-filter-slices.md.
 *
 * @example
 * ```sh
 * npx tsx bench/decisions/document-filter-status.ts <vault with an index>
 * ```
 */
import { spawn } from "node:child_process";
import path from "node:path";

const [vault] = process.argv.slice(2);
const bin = process.env.BIN ?? path.resolve("dist/cli/main.js");
const wd = JSON.stringify({ $and: Array.from({ length: 150 }, (_, i) => ({ $not_contains: `zq${i}` })) });
const p = spawn(process.execPath, [bin, "serve", "--port", "0", "--vault", vault], {
  env: { ...process.env, NO_COLOR: "1" },
});
let out = "";
const origin = await new Promise<string>((resolve) =>
  p.stdout.on("data", (d: Buffer) => {
    out += d;
    const m = /at (http:\/\/[^\s/]+)/.exec(out);
    if (m && /Ctrl-C/.test(out)) resolve(m[1]);
  }),
);
try {
  await (await fetch(`${origin}/api/search?q=warm`)).text(); // the model loaded
  const t0 = performance.now();
  const searches = Array.from({ length: 6 }, async (_, i) => {
    const r = await fetch(`${origin}/api/search?q=cell+${i}&where_document=${encodeURIComponent(wd)}`);
    await r.text();
    return { status: r.status, ms: Math.round(performance.now() - t0) };
  });
  await new Promise((r) => setTimeout(r, 100)); // the searches are under way
  const ts = performance.now();
  const status = (await fetch(`${origin}/api/status`)).status;
  const statusMs = Math.round(performance.now() - ts);
  console.log(JSON.stringify({ statusMs, status, searches: await Promise.all(searches) }));
} finally {
  p.kill();
}
