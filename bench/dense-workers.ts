/**
 * `BENCH_ONLY=workers`: the dense phase of a first `vault-rag index` (the built CLI, the bundled
 * model) at 0 (the main thread embeds), 1 and 2 embedding threads, alternated round by round on the
 * same copy of a vault, each into a new index. It gives the median seconds of the dense phase and
 * its windows per second, which is what `--threads` and the default thread count decide. The vault
 * is examples/vault, or `WORKERS_VAULT`; the load average is printed beside, as this machine is shared.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** What {@link denseWorkersBench} needs of the bench run. */
export interface DenseWorkersContext {
  root: string;
  bin: string;
  work: string;
  line: (s: string) => void;
  quick: boolean;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Times the dense phase by thread count and prints one line per count.
 *
 * @example
 * ```ts
 * await denseWorkersBench({ root, bin: "dist/cli/main.js", work: "/tmp/vr-bench", line: console.log, quick: false });
 * ```
 */
export async function denseWorkersBench({ root, bin, work, line, quick }: DenseWorkersContext): Promise<void> {
  const source = process.env.WORKERS_VAULT ?? path.join(root, "examples/vault");
  const vault = path.join(work, "dense-workers");
  fs.cpSync(source, vault, { recursive: true });
  fs.rmSync(path.join(vault, ".vault-rag"), { recursive: true, force: true });
  const counts = [0, 1, 2];
  const runs = new Map<number, { seconds: number; windows: number }[]>(counts.map((n) => [n, []]));
  const rounds = quick ? 1 : 3;
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++)
    for (const n of counts) {
      const db = path.join(work, `dense-workers-${n}-${round}.db`);
      loads.push(os.loadavg()[0]);
      const r = spawnSync(process.execPath, [bin, "index", vault, "--db", db, "--json", "--threads", String(n)], {
        encoding: "utf8",
        env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "1" },
      });
      if (r.status !== 0) throw new Error(`index --threads ${n} failed:\n${r.stderr}`);
      const s = JSON.parse(r.stdout) as { denseSeconds: number; embedded: number };
      runs.get(n)!.push({ seconds: s.denseSeconds, windows: s.embedded });
      fs.rmSync(db, { force: true });
      fs.rmSync(`${db}.vectors`, { force: true });
    }
  const base = median(runs.get(1)!.map((r) => r.seconds));
  for (const n of counts) {
    const rs = runs.get(n)!;
    const s = median(rs.map((r) => r.seconds));
    const w = rs[0].windows;
    line(
      `dense phase, ${path.basename(source)}, ${n ? `${n} embedding thread${n > 1 ? "s" : ""}` : "main thread"}: median ${s.toFixed(1)} s for ${w} windows (${(w / s).toFixed(1)} windows/s, ×${(base / s).toFixed(2)} against 1 thread) over ${rs.length} run(s)`,
    );
  }
  line(
    `  load average during the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} on ${os.cpus().length} cores`,
  );
}
