/**
 * How long `GET /api/note` and `GET /api/status` take on a generated vault of 20,000 notes, and how
 * long `GET /api/status` and `GET /api/tags` wait while such requests run.
 *
 *   npx tsx bench/note-status.ts <dir>
 *
 * The first run writes the vault under <dir> and indexes it with random vectors (the bundled model
 * is not run: these endpoints do not embed). BIN=<dist/cli/main.js of another build> measures that
 * build (the code before a change: a copy of it, built); the default is this checkout's build.
 * Serves on 127.0.0.1 only. Prints medians, in milliseconds.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { generateVault } from "./gen.js";

const NOTES = 20_000;
const [dir] = process.argv.slice(2);
if (!dir) throw new Error("usage: npx tsx bench/note-status.ts <dir>");
const bin = process.env.BIN ?? path.resolve("dist/cli/main.js");

if (!fs.existsSync(path.join(dir, ".vault-rag/index.db"))) {
  const t = performance.now();
  generateVault(dir, NOTES);
  const { indexVault } = await import("../src/indexing/index.js");
  const { useLiteEmbedder } = await import("../src/embed/index.js");
  const real = useLiteEmbedder();
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
  await indexVault(dir, path.join(dir, ".vault-rag/index.db"), {
    ...real,
    embedDocuments: async (texts: string[]) => texts.map(() => Float32Array.from({ length: real.dimensions }, random)),
  });
  console.log(`wrote and indexed ${NOTES} notes in ${Math.round(performance.now() - t)} ms`);
}

/** The median of the requests that were answered (NaN when none was). */
const med = (xs: number[]) => {
  const ok = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return ok.length ? ok[Math.floor((ok.length - 1) / 2)] : NaN;
};
const p = spawn(process.execPath, [bin, "serve", "--port", "0", "--vault", dir], {
  env: { ...process.env, NO_COLOR: "1" },
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  let out = "";
  const origin = await new Promise<string>((resolve, reject) => {
    p.stdout!.on("data", (d: Buffer) => {
      out += d;
      const m = /at (http:\/\/[^\s/]+)/.exec(out);
      if (m && /Ctrl-C/.test(out)) resolve(m[1]);
    });
    p.on("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
  // a request the server failed (a reset connection, an error status) is said so, and not timed
  const failed: string[] = [];
  const timed = async (route: string) => {
    const t = performance.now();
    try {
      const r = await fetch(origin + route);
      await r.text();
      if (!r.ok) throw new Error(`status ${r.status}`);
    } catch (e) {
      failed.push(`${route}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
      return NaN;
    }
    return performance.now() - t;
  };
  await timed("/api/tags"); // the index opened
  const byPath = "/api/note?path=" + encodeURIComponent("f3/sub1/note 1243.md");
  const byName = "/api/note?path=" + encodeURIComponent("note 1243");
  for (const [name, route] of [
    ["note by path", byPath],
    ["note by name", byName],
    ["status", "/api/status"],
    ["tags", "/api/tags"],
  ]) {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) times.push(await timed(route));
    console.log(`${name}: ${med(times).toFixed(1)} ms`);
  }
  // a request under way, and a quick one sent 50 ms after it starts
  const during = async (slow: string[], quick: string) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const running = Promise.all(slow.map(timed));
      await new Promise((r) => setTimeout(r, 50));
      times.push(await timed(quick));
      await running;
    }
    return med(times);
  };
  for (const [name, slow, quick] of [
    ["status while a note by name is read", [byName], "/api/status"],
    ["status while a status is taken", ["/api/status"], "/api/status"],
    ["tags while 8 notes by name are read", Array(8).fill(byName), "/api/tags"],
  ] as const)
    console.log(`${name}: ${(await during([...slow], quick)).toFixed(1)} ms`);
  if (failed.length) console.log(`failed requests (${failed.length}):\n  ${[...new Set(failed)].join("\n  ")}`);
} finally {
  p.kill();
}
