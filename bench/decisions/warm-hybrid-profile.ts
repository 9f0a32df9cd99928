/**
 * Where a warm hybrid search spends its time: opens a vault through `openVault`, asks 40 questions
 * of the scale benchmark's form once (their vectors remembered), then asks them twice more under
 * V8's sampling profiler. Prints the p50 and each function's inclusive time per search (the 25
 * largest); writes the profile to `<out>.cpuprofile` for Chrome's DevTools.
 *
 * `npm run build && npx tsx bench/decisions/warm-hybrid-profile.ts <indexed vault> <out> ['{"tags":["project"]}']`
 */
import fs from "node:fs";
import inspector from "node:inspector/promises";
import { openVault } from "../../dist/index.js";

const [vault, out, filterJson] = process.argv.slice(2);
if (!vault || !out) throw new Error("usage: warm-hybrid-profile.ts <indexed vault> <out> [filter JSON]");
const filter = filterJson ? (JSON.parse(filterJson) as Record<string, unknown>) : {};
const WORDS = ["battery", "robot", "garden", "motor", "sensor", "power", "kitchen", "travel", "release", "camera"];
const question = (i: number) => `${WORDS[i % 10]} ${WORDS[(i * 7 + 3) % 10]} for the ${i}`;

const v = await openVault(vault);
for (let i = 0; i < 40; i++) await v.search(question(i), filter);
const session = new inspector.Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 200 });
await session.post("Profiler.start");
const wall: number[] = [];
for (let round = 0; round < 2; round++)
  for (let i = 0; i < 40; i++) {
    const t = performance.now();
    await v.search(question(i), filter);
    wall.push(performance.now() - t);
  }
const { profile } = await session.post("Profiler.stop");
await v.close();
fs.writeFileSync(`${out}.cpuprofile`, JSON.stringify(profile));

// inclusive time per function (a function counted once per sample, however deep it recurses)
type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
const nodes = new Map((profile.nodes as Node[]).map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of nodes.values()) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
profile.samples!.forEach((sample, i) => {
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const f = nodes.get(id)!.callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.replace(/.*\/(dist|node_modules)\//, "$1/")}:${f.lineNumber}`;
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + (profile.timeDeltas![i] ?? 0));
  }
});
wall.sort((a, b) => a - b);
console.log(`p50 ${wall[wall.length >> 1].toFixed(1)} ms over ${wall.length} searches; ms per search:`);
for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`${(us / 1000 / wall.length).toFixed(1).padStart(8)}  ${name}`);
