/**
 * Time of a hybrid search with a `whereDocument` filter, in this build's dist/ against a peer
 * build's (PEER=<another worktree's dist/>, built), alternating, the question's vector computed
 * first in each, medians. COLD=1 gives each search a filter of its own (nothing kept from an
 * earlier search); without it the same filters repeat, as a person refining a search does.
 * Reproduces docs/decisions/document-filter-slices.md.
 *
 * @example
 * ```sh
 * COLD=1 PEER=/tmp/peer/dist npx tsx bench/decisions/document-filter-time.ts <vault with an index>
 * ```
 */
import type { VaultHandle } from "../../dist/advanced.js";

type Lib = { openVault(dir: string): Promise<VaultHandle> };
const [vaultDir] = process.argv.slice(2);
const peerDist = process.env.PEER;
if (!vaultDir || !peerDist) {
  console.error("usage: PEER=<another build's dist/> document-filter-time.ts <vault with an index>");
  process.exit(2);
}
const builds: Record<string, Lib> = {
  new: (await import("../../dist/advanced.js")) as Lib,
  peer: (await import(`${peerDist}/index.js`)) as Lib,
};
const vaults: Record<string, VaultHandle> = {};
for (const [k, m] of Object.entries(builds)) vaults[k] = await m.openVault(vaultDir);
const qs = ["cell death", "protein expression", "vitamin D", "mortality risk", "gene regulation", "immune response"];
const filters: Record<string, Record<string, unknown> | undefined> = {
  none: undefined,
  contains: { $contains: "the" },
  rare: { $contains: "insulin" },
  regex: { $regex: "\\b[0-9]{3}\\b" },
};
const t: Record<string, Record<string, number[]>> = {};
for (let rep = 0; rep < 6; rep++)
  for (const q of qs) {
    for (const v of Object.values(vaults)) await v.search(`${q} ${rep}`, {}); // its vector, in each build
    for (const [name, wd] of Object.entries(filters))
      for (const k of rep % 2 ? ["peer", "new"] : ["new", "peer"]) {
        const own = wd && { $and: [wd, { $not_contains: `zzq${rep}${q}${k}` }] };
        const s = performance.now();
        await vaults[k].search(`${q} ${rep}`, wd ? { whereDocument: process.env.COLD ? own : wd } : {});
        ((t[name] ??= {})[k] ??= []).push(performance.now() - s);
      }
  }
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
for (const [f, r] of Object.entries(t))
  console.log(
    f.padEnd(9),
    `new ${med(r.new).toFixed(1)} ms, peer ${med(r.peer).toFixed(1)} ms, ×${(med(r.new) / med(r.peer)).toFixed(2)}`,
  );
for (const v of Object.values(vaults)) await v.close();
