/**
 * `vault-rag serve` figures for `npm run bench` (BENCH_ONLY=serve): the time from starting the
 * server to the first page being loaded (the page, its script and stylesheet, and the API calls
 * the page makes on load), and the warm search latency of the HTTP API on a generated vault.
 */
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";

/**
 * The origin a starting `serve` prints (`http://127.0.0.1:4321`), once it listens.
 *
 * @example
 * ```ts
 * const origin = await serveOrigin(spawn(process.execPath, [bin, "serve", "--port", "0"]), () => stderr);
 * ```
 */
export function serveOrigin(proc: ChildProcess, stderr: () => string = () => ""): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /at (http:\/\/\S+?:\d+)\//.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`serve exited with ${code}${stderr() ? `: ${stderr()}` : ""}`)));
  });
}

/**
 * Starts `serve` on a vault, loads the page as a browser would, then times searches through the API.
 *
 * @example
 * ```ts
 * await serveBench({ bin: "dist/cli/main.js", vault: "/tmp/gen-10000", notes: 10000, line: console.log });
 * ```
 */
export async function serveBench(o: { bin: string; vault: string; notes: number; line: (s: string) => void }) {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [o.bin, "serve", "--vault", o.vault, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const origin = await serveOrigin(proc);
    const listening = performance.now() - t0;
    const get = async (p: string) => {
      const r = await fetch(origin + p);
      if (!r.ok) throw new Error(`${p}: ${r.status} ${await r.text()}`);
      return r.text();
    };
    await get("/");
    await Promise.all(["/app.js", "/style.css", "/api/status"].map(get));
    await Promise.all(["/api/tags", "/api/folders"].map(get));
    const pageLoaded = performance.now() - t0;
    const first = performance.now();
    await get("/api/search?q=battery+power+for+the+robot");
    const firstSearch = performance.now() - first;
    const words = ["battery", "robot", "garden", "motor", "sourdough", "travel", "sensor", "power", "water", "notes"];
    const times: number[] = [];
    for (let i = 0; i < 60; i++) {
      const q = `${words[i % words.length]} ${words[(i * 7 + 3) % words.length]} ${i}`;
      const t = performance.now();
      await get(`/api/search?q=${encodeURIComponent(q)}`);
      if (i >= 10) times.push(performance.now() - t); // the first ten warm the caches
    }
    // the same questions again with another option, as a filter chip or a changed count sends them:
    // the server remembers recent query vectors, so the model is not run again
    const again: number[] = [];
    for (let i = 10; i < 60; i++) {
      const q = `${words[i % words.length]} ${words[(i * 7 + 3) % words.length]} ${i}`;
      const t = performance.now();
      await get(`/api/search?q=${encodeURIComponent(q)}&top_k=10`);
      again.push(performance.now() - t);
    }
    again.sort((a, b) => a - b);
    // the same queries through the library in this process: what the HTTP layer adds
    const { openVault } = await import("../dist/advanced.js");
    const v = await openVault(o.vault);
    const direct: number[] = [];
    for (let i = 0; i < 60; i++) {
      const q = `${words[i % words.length]} ${words[(i * 7 + 3) % words.length]} ${i}`;
      const t = performance.now();
      await v.search(q);
      if (i >= 10) direct.push(performance.now() - t);
    }
    // retrieval alone (the vectors are remembered now), with and without near pairs (proximity 0),
    // in turns that swap which goes first: what near pairs cost, against the peer in the same run
    // and without backlink text (backlinks 0)
    const near: number[] = [];
    const apart: number[] = [];
    const unlinked: number[] = [];
    for (let i = 10; i < 60; i++) {
      const q = `${words[i % words.length]} ${words[(i * 7 + 3) % words.length]} ${i}`;
      const runs = [
        [{}, near],
        [{ proximity: 0 }, apart],
        [{ backlinks: 0 }, unlinked],
      ] as const;
      for (const [opts, into] of i % 2 ? [...runs].reverse() : runs) {
        const t = performance.now();
        await v.search(q, opts);
        into.push(performance.now() - t);
      }
    }
    await v.close();
    for (const xs of [direct, near, apart, unlinked]) xs.sort((a, b) => a - b);
    times.sort((a, b) => a - b);
    const p = (x: number, xs = times) => xs[Math.min(xs.length - 1, Math.floor((xs.length - 1) * x))];
    o.line(
      `serve  ${path.basename(o.vault)} (${o.notes} notes): listening ${Math.round(listening)} ms after start, first page load (page, script, style, status, tags, folders) ${Math.round(pageLoaded)} ms; first search ${Math.round(firstSearch)} ms; warm API search p50 ${p(0.5).toFixed(1)} ms, p95 ${p(0.95).toFixed(1)} ms (${times.length} distinct queries); asked again with another option p50 ${p(0.5, again).toFixed(1)} ms; the same searches through the library in process p50 ${p(0.5, direct).toFixed(1)} ms; their retrieval alone p50 ${p(0.5, near).toFixed(1)} ms, without near pairs ${p(0.5, apart).toFixed(1)} ms (×${(p(0.5, near) / p(0.5, apart)).toFixed(2)}), without backlink text ${p(0.5, unlinked).toFixed(1)} ms (×${(p(0.5, near) / p(0.5, unlinked)).toFixed(2)}); load average ${os.loadavg()[0].toFixed(1)}`,
    );
  } finally {
    proc.kill("SIGTERM");
  }
}
