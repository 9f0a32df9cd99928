/**
 * The CLI answered by a resident process, for `npm run bench` (BENCH_ONLY=resident): `vault-rag
 * watch` holds a vault; `vault-rag search` runs as a new process each time, end to end (process
 * start to exit), asking it. Alternated in the same run: a bare `node -e 0` (the floor any CLI
 * pays on this machine), the same search with `--no-daemon` (the CLI alone, cold), and, when
 * QMD_BIN names a qmd install (bench/qmd-peer.ts), qmd's cold `search` beside vault-rag's cold
 * `search --mode keyword --no-daemon` (both BM25 only).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { qmdPeer } from "./qmd-peer.js";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

/** Milliseconds a command takes, from spawning it to its exit. */
function timed(args: string[], cwd: string): number {
  const t = performance.now();
  execFileSync(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  return performance.now() - t;
}

/** Starts `watch` on a vault; resolves once its endpoint file is written and its first pass is done. */
async function startResident(bin: string, vault: string) {
  const proc = spawn(process.execPath, [bin, "watch", vault], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (err += d));
  const file = path.join(vault, ".vault-rag", "index.db.endpoint");
  const named = () => {
    try {
      return JSON.parse(fs.readFileSync(file, "utf8")).pid === proc.pid;
    } catch {
      return false;
    }
  };
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (named() && /^\d{4}-\d\d-\d\dT/m.test(out)) {
        clearInterval(check);
        resolve();
      } else if (proc.exitCode !== null) {
        clearInterval(check);
        reject(new Error(`watch exited with ${proc.exitCode}: ${err}`));
      }
    }, 20);
  });
  return {
    async stop() {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * Times CLI searches answered by a resident `watch` on each vault, against a bare node start and
 * the CLI alone, alternated in one run.
 *
 * @example
 * ```ts
 * await residentBench({ bin: "dist/cli/main.js", vaults: [{ label: "examples/vault", dir, query: "SMARS motors" }], runs: 20, line: console.log, work: "/tmp/bench" });
 * ```
 */
export async function residentBench(o: {
  bin: string;
  vaults: { label: string; dir: string; query: string }[];
  runs: number;
  line: (s: string) => void;
  work: string;
}) {
  for (const v of o.vaults) {
    const qmd = qmdPeer(o.work, v.dir);
    const resident = await startResident(o.bin, v.dir);
    try {
      const search = [o.bin, "search", v.query];
      // the first request loads the model and the dense index in the resident process
      const first = timed(search, v.dir);
      const asked: number[] = [];
      const bare: number[] = [];
      const alone: number[] = [];
      const peer: number[] = [];
      const keyword: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        asked.push(timed(search, v.dir));
        bare.push(timed(["-e", "0"], v.dir));
        if (i % 4 === 0) alone.push(timed([...search, "--no-daemon"], v.dir));
        if (qmd) {
          peer.push(qmd.search(v.query));
          keyword.push(timed([...search, "--mode", "keyword", "--no-daemon"], v.dir));
        }
      }
      const ms = (x: number) => `${Math.round(x)} ms`;
      o.line(
        `resident ${v.label}: CLI search asking watch p50 ${ms(pct(asked, 0.5))}, p95 ${ms(pct(asked, 0.95))} (${asked.length} runs; first ${ms(first)}); bare \`node -e 0\` p50 ${ms(pct(bare, 0.5))}; --no-daemon p50 ${ms(pct(alone, 0.5))} (${alone.length} runs)`,
      );
      if (qmd)
        o.line(
          `resident ${v.label}: cold keyword search, alternated: vault-rag --mode keyword --no-daemon p50 ${ms(pct(keyword, 0.5))}, qmd search p50 ${ms(pct(peer, 0.5))} (×${(pct(keyword, 0.5) / pct(peer, 0.5)).toFixed(2)}); asking watch against qmd ×${(pct(asked, 0.5) / pct(peer, 0.5)).toFixed(2)} (${peer.length} runs each)`,
        );
    } finally {
      await resident.stop();
    }
  }
}
