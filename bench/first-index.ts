/**
 * `BENCH_ONLY=first`: a new user's first `index`, with the bundled model. The vault is til
 * (../shared/bench/til/vault) when present, else examples/vault, copied to a temporary folder.
 *
 * - keyword-searchable: the time (wall and CPU) from the start of the run to the end of its
 *   keyword phase, when every note can be found by its words;
 * - a `vault-rag search` in another process during the dense phase: its hits and its notice;
 * - then the run is stopped (the dense phase of til takes minutes; `embed` and `threads` measure it).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { useLiteEmbedder } from "../dist/embed/index.js";
import { indexVault } from "../dist/indexing/index.js";

/** What {@link firstIndexBench} needs of the bench run. */
export interface FirstIndexContext {
  root: string;
  bin: string;
  work: string;
  line: (s: string) => void;
}

const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Measures how soon a first index is keyword-searchable, and searches from another process meanwhile.
 *
 * @example
 * ```ts
 * await firstIndexBench({ root, bin: "dist/cli/main.js", work: "/tmp/vr-bench", line: console.log });
 * ```
 */
export async function firstIndexBench({ root, bin, work, line }: FirstIndexContext): Promise<void> {
  const til = path.resolve(root, "../shared/bench/til/vault");
  const source = fs.existsSync(til) ? til : path.join(root, "examples/vault");
  const name = source === til ? "til" : "examples/vault";
  const vault = path.join(work, "first-index");
  fs.cpSync(source, vault, { recursive: true });
  fs.rmSync(path.join(vault, ".vault-rag"), { recursive: true, force: true });
  const db = path.join(vault, ".vault-rag/index.db");
  const stop = new AbortController();
  const load = os.loadavg()[0];
  const t0 = performance.now();
  const c0 = cpuSeconds();
  let ready: { s: number; cpu: number; notes: number } | undefined;
  let search: { hits: number; notice: string; status: number | null; stderr: string } | undefined;
  try {
    await indexVault(vault, db, useLiteEmbedder(), {
      signal: stop.signal,
      onProgress: (phase, done) => {
        if (phase === "keyword" && !ready)
          ready = { s: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0, notes: done };
        // the first batch of the dense phase is under way: search from another process, then stop
        if (phase === "embed" && ready && !search) {
          const r = spawnSync(
            process.execPath,
            [bin, "search", "--vault", vault, "--json", "how to undo a git commit"],
            {
              encoding: "utf8",
            },
          );
          // `search --json` prints the hits; the notice goes to stderr, as a line of its own
          let hits = 0;
          try {
            hits = (JSON.parse(r.stdout) as unknown[]).length;
          } catch {
            // reported below with its stderr
          }
          const notice = /^note: (.*)$/m.exec(r.stderr)?.[1] ?? "";
          search = { hits, notice, status: r.status, stderr: r.stderr.trim() };
          stop.abort();
        }
      },
    });
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  }
  if (!ready) {
    line(`first  ${name}: the keyword phase did not end`);
    return;
  }
  line(
    `first  ${name} (${ready.notes} notes), first index with the bundled model: keyword-searchable in ${ready.s.toFixed(2)} s (CPU ${ready.cpu.toFixed(2)} s), limit 10 s; load ${load.toFixed(1)}`,
  );
  if (search)
    line(
      `first  a \`vault-rag search\` in another process during the dense phase: exit ${search.status}, ${search.hits} hits; notice: ${search.notice || "(none)"}${search.status ? `; stderr: ${search.stderr}` : ""}`,
    );
  else line(`first  the dense phase ended before a search could be asked`);
}
