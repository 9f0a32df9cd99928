/**
 * The longest the event loop stalls while the library's handle reads a note by name and counts
 * changed notes (`note()`, `status()`, as MCP and `serve` call them) on the vault that
 * bench/note-status.ts writes:
 *
 *   npx tsx bench/note-status-stall.ts <dir>
 *
 * LIB=<path of another checkout's src/library.ts> measures that code (the code before a change).
 * Prints the median of five of each, in milliseconds.
 */
import path from "node:path";

const [dir] = process.argv.slice(2);
if (!dir) throw new Error("usage: npx tsx bench/note-status-stall.ts <dir>");
const lib = (await import(process.env.LIB ?? path.resolve("src/library.ts"))) as typeof import("../src/library.js");
const v = await lib.openVault(dir);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
try {
  await v.tags(); // the index opened
  for (const [name, call] of [
    ["note by name", () => v.note("note 1243")],
    ["note by path", () => v.note("f3/sub1/note 1243.md")],
    ["status", () => v.status()],
  ] as const) {
    const stalls: number[] = [];
    const walls: number[] = [];
    for (let i = 0; i < 5; i++) {
      // the longest gap between ticks of a 1 ms timer, up to a tick after the call ends
      let last = performance.now();
      let longest = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      const t = performance.now();
      await call();
      walls.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
      clearInterval(tick);
      stalls.push(longest);
    }
    console.log(`${name}: ${med(walls).toFixed(1)} ms in all, longest stall ${med(stalls).toFixed(1)} ms`);
  }
} finally {
  await v.close();
}
