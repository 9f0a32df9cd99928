/**
 * `BENCH_ONLY=scale npm run bench`: the figures of a vault of 10,000 and 100,000 generated notes
 * (SCALE_NOTES=10000,100000; bench/gen.ts), each with the load average it was measured under.
 *
 * - keyword-searchable: an indexing process (bench/scale-index.ts) runs from nothing while this
 *   process asks a keyword search through `openVault` for the word planted in every 1,000th note,
 *   until every one of them is found, whatever order the indexer's phases run in;
 * - the whole index time and the indexing process's peak RSS;
 * - the dense phase is filled by the stand-in embedder (bench/stand-in.ts): a hashed bag of words,
 *   not the model, which would take days here; questions are embedded by the real model;
 * - warm hybrid search p50 through `openVault` (unfiltered, tag filter, folder filter), cold CLI
 *   `search`, unchanged re-index (CLI), cold CLI `related`, and `serve` to its first answer.
 *
 * Vaults are written once under SCALE_DIR (default the temp folder's vr-scale) and kept; their index
 * is removed before each run, unless SCALE_KEEP_INDEX=1 (then only the search figures are measured,
 * on the index there). SCALE_QUICK=1 repeats each figure fewer times.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateScaleVault, markerNotes, SCALE_MARKER } from "./gen.js";
import { serveOrigin } from "./serve-bench.js";

type Line = (s: string) => void;
/** One figure at one size: its value, unit, and the 1-minute load average when it was measured. */
interface Figure {
  name: string;
  value: number;
  unit: string;
  load: number;
  limit?: number;
  /** CPU time (user + system, all threads) of the same work, in the figure's unit: what a quiet machine's wall time approaches. */
  cpu?: number;
}

/** CPU seconds (user + system) a live process has used so far, from /proc (clock ticks of 10 ms). */
function procCpu(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const med = (xs: number[]) => pct(xs, 0.5);
const load = () => os.loadavg()[0];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const QUESTIONS = ["battery", "robot", "garden", "motor", "sensor", "power", "kitchen", "travel", "release", "camera"];
const question = (i: number) => `${QUESTIONS[i % 10]} ${QUESTIONS[(i * 7 + 3) % 10]} for the ${i}`;

/** The generated vault of `n` notes under `dir`, written unless a complete one is there; its index removed. */
function vaultOf(dir: string, n: number, line: Line, keepIndex = false): string {
  const vault = path.join(dir, `gen-${n}`);
  const done = path.join(vault, ".generated");
  if (!fs.existsSync(done)) {
    fs.rmSync(vault, { recursive: true, force: true });
    const t = performance.now();
    generateScaleVault(vault, n);
    fs.writeFileSync(done, `${n}\n`);
    line(`scale  generated ${n} notes in ${vault} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  if (!keepIndex) fs.rmSync(path.join(vault, ".vault-rag"), { recursive: true, force: true });
  return vault;
}

/** Runs the indexing process while asking a keyword search from this one; see the module's comment. */
async function indexFromNothing(root: string, vault: string, n: number) {
  const { openVault } = await import("../dist/index.js");
  const db = path.join(vault, ".vault-rag/index.db");
  const want = markerNotes(n);
  const t0 = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/scale-index.ts"), vault, db], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  let done = false;
  void exited.then(() => (done = true));
  let ready: { s: number; load: number; cpu: number } | undefined;
  let polls = 0;
  // one handle, opened once the index opens, asked every 250 ms: each answer reads the index as it is
  // committed then. Polling costs this process little CPU beside the indexer's
  let v: Awaited<ReturnType<typeof openVault>> | undefined;
  while (!done && !ready) {
    polls++;
    try {
      v ??= await openVault(vault);
      const { hits } = await v.search(SCALE_MARKER, { mode: "keyword", topK: want + 10 });
      if (new Set(hits.map((h) => h.path)).size >= want)
        ready = { s: (performance.now() - t0) / 1000, load: load(), cpu: procCpu(child.pid!) };
    } catch {
      // no index yet, or not one that opens yet
      await v?.close().catch(() => undefined);
      v = undefined;
    }
    if (!ready) await sleep(250);
  }
  await v?.close();
  const code = await exited;
  const total = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`the indexing process exited with ${code}: ${err.slice(-2000)}`);
  const report = JSON.parse(out.trim().split("\n").pop()!) as {
    summary: { chunks: number; embedded: number; added: number };
    seconds: number;
    peakRssMb: number;
    cpuSeconds: number;
  };
  return { ready, total, totalLoad: load(), polls, ...report };
}

/** Runs the CLI to its end: its wall and CPU milliseconds (GNU time's user + system). */
function cli(bin: string, args: string[]): { wall: number; cpu: number } {
  const t = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", process.execPath, bin, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`vault-rag ${args.join(" ")} exited with ${r.status}: ${r.stderr}`);
  const m = /cpu (\S+) (\S+)\s*$/.exec(r.stderr)!;
  return { wall, cpu: (Number(m[1]) + Number(m[2])) * 1000 };
}
const cliMed = (runs: { wall: number; cpu: number }[]) => ({
  wall: med(runs.map((r) => r.wall)),
  cpu: med(runs.map((r) => r.cpu)),
});

/** Starts `serve` and times it to its first search answer; the server is stopped however this ends. */
async function serveFirstAnswer(bin: string, vault: string): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [bin, "serve", "--vault", vault, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let err = "";
  proc.stderr!.on("data", (d) => (err += d));
  try {
    const origin = await serveOrigin(proc, () => err);
    const r = await fetch(`${origin}/api/search?q=${encodeURIComponent("battery power for the robot")}`);
    if (!r.ok) throw new Error(`serve answered ${r.status}: ${await r.text()}`);
    await r.text();
    return { wall: performance.now() - t0, cpu: procCpu(proc.pid!) * 1000 };
  } finally {
    try {
      process.kill(-proc.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  }
}

/** Every figure of one vault size. */
async function figuresAt(o: { root: string; bin: string; dir: string; line: Line }, n: number): Promise<Figure[]> {
  const { line } = o;
  // SCALE_KEEP_INDEX=1: the search figures on the index a run left (no indexing figures);
  // SCALE_QUICK=1: fewer repetitions (20 searches a kind, 2 cold runs, 1 re-index, related, serve)
  const keep = !!process.env.SCALE_KEEP_INDEX && fs.existsSync(path.join(o.dir, `gen-${n}`, ".vault-rag/index.db"));
  const quick = !!process.env.SCALE_QUICK;
  const [searches, colds, once] = quick ? [20, 2, 1] : [50, 5, 3];
  const vault = vaultOf(o.dir, n, line, keep);
  const figs: Figure[] = [];
  const fig = (name: string, value: number, unit: string, o2: { load?: number; limit?: number; cpu?: number } = {}) => {
    const f: Figure = { name, value, unit, load: o2.load ?? load(), limit: o2.limit, cpu: o2.cpu };
    figs.push(f);
    const d = unit === "ms" ? 1 : unit === "MB" ? 0 : 2;
    line(
      `scale  ${n} notes: ${name} ${value.toFixed(d)} ${unit}${f.cpu !== undefined ? ` (CPU ${f.cpu.toFixed(d)} ${unit})` : ""}${f.limit ? `, limit ${f.limit} ${unit}` : ""}; load ${f.load.toFixed(1)}`,
    );
  };
  if (!keep) {
    const ix = await indexFromNothing(o.root, vault, n);
    line(
      `scale  ${n} notes: indexed ${ix.summary.added} notes → ${ix.summary.chunks} passages, ${ix.summary.embedded} windows by the stand-in embedder (hashed bag of words, not the model); keyword search asked ${ix.polls} times during the run`,
    );
    if (ix.ready)
      fig("keyword-searchable from nothing", ix.ready.s, "s", { load: ix.ready.load, limit: 60, cpu: ix.ready.cpu });
    else line(`scale  ${n} notes: keyword search never found all ${markerNotes(n)} marked notes during the run`);
    fig("whole index (stand-in dense phase)", ix.total, "s", { load: ix.totalLoad, cpu: ix.cpuSeconds });
    const denseMb = (ix.summary.chunks * 512 * 5) / 1e6; // float32 rows + their int8 copy
    fig("indexing peak RSS", ix.peakRssMb, "MB", { limit: 1500 });
    fig("indexing peak RSS less the dense index", ix.peakRssMb - denseMb, "MB");
  }

  // warm, in process: the real model embeds each question once
  const { openVault } = await import("../dist/index.js");
  const v = await openVault(vault);
  const timed = async (count: number, skip: number, fn: (i: number) => Promise<unknown>) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const c = cpuNow();
      await fn(i);
      if (i < skip) continue;
      wall.push(performance.now() - t);
      cpu.push(cpuNow() - c);
    }
    return { wall: med(wall), cpu: med(cpu) };
  };
  try {
    const top = (await v.tags()).sort((a, b) => b.notes - a.notes)[0];
    const runs = {
      unfiltered: {},
      [`tag ${top.tag} (${top.notes} notes)`]: { tags: [top.tag] },
      "top folder Journal (10%)": { topFolder: "Journal" },
    };
    for (const [label, opts] of Object.entries(runs)) {
      const t = await timed(searches + 10, 10, (i) => v.search(question(i), opts));
      fig(`warm hybrid search p50, ${label}`, t.wall, "ms", { limit: 30, cpu: t.cpu });
    }
    const again = await timed(searches, 0, (i) => v.search(question(i + 10), { topK: 10 }));
    fig("warm hybrid search p50, question vector remembered", again.wall, "ms", { cpu: again.cpu });
    const kw = await timed(searches + 10, 10, (i) => v.search(question(i), { mode: "keyword" }));
    fig("warm keyword search p50", kw.wall, "ms", { cpu: kw.cpu });
  } finally {
    await v.close();
  }

  const cold = cliMed(Array.from({ length: colds }, (_, i) => cli(o.bin, ["search", "--vault", vault, question(i)])));
  fig("cold CLI search (hybrid, real model for the question)", cold.wall, "ms", { limit: 1000, cpu: cold.cpu });
  const coldKw = cliMed(
    Array.from({ length: colds }, (_, i) => cli(o.bin, ["search", "--vault", vault, "--mode", "keyword", question(i)])),
  );
  fig("cold CLI search (keyword)", coldKw.wall, "ms", { cpu: coldKw.cpu });
  const re = cliMed(Array.from({ length: once }, () => cli(o.bin, ["index", vault, "--quiet"])));
  fig("unchanged re-index (CLI)", re.wall / 1000, "s", { limit: 10, cpu: re.cpu / 1000 });
  const daily = fs.readdirSync(path.join(vault, "Journal/2001/01"))[0];
  const rel = cliMed(
    Array.from({ length: once }, () => cli(o.bin, ["related", "--vault", vault, `Journal/2001/01/${daily}`])),
  );
  fig("cold CLI related", rel.wall / 1000, "s", { limit: 2, cpu: rel.cpu / 1000 });
  const serve: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < once; i++) serve.push(await serveFirstAnswer(o.bin, vault));
  const sv = cliMed(serve);
  fig("serve start to first search answer", sv.wall / 1000, "s", { limit: 2, cpu: sv.cpu / 1000 });
  return figs;
}

/**
 * Runs the scale benchmark at each size and prints how every figure grows per 10× notes.
 *
 * @example
 * ```ts
 * await scaleBench({ root, bin: "dist/cli/main.js", sizes: [10_000, 100_000], dir: "/tmp/vr-scale", line: console.log });
 * ```
 */
export async function scaleBench(o: { root: string; bin: string; sizes: number[]; dir: string; line: Line }) {
  const all = new Map<number, Figure[]>();
  for (const n of o.sizes) all.set(n, await figuresAt(o, n));
  const [a, b] = [o.sizes[0], o.sizes[o.sizes.length - 1]];
  if (a === b) return;
  const per10 = Math.log(b / a) / Math.log(10);
  o.line(`scale  growth from ${a} to ${b} notes (ratio per 10× notes):`);
  for (const f of all.get(a)!) {
    const g = all.get(b)!.find((x) => x.name === f.name);
    if (!g) continue;
    const ratio = (x: number, y: number) => `×${Math.pow(y / x, 1 / per10).toFixed(2)}`;
    const cell = (x: Figure) =>
      `${x.value.toFixed(1)} ${x.unit}${x.cpu !== undefined ? ` (CPU ${x.cpu.toFixed(1)})` : ""}, load ${x.load.toFixed(1)}`;
    o.line(
      `scale  | ${f.name} | ${cell(f)} | ${cell(g)} | ${ratio(f.value, g.value)}${f.cpu && g.cpu ? ` (CPU ${ratio(f.cpu, g.cpu)})` : ""} |`,
    );
  }
}
