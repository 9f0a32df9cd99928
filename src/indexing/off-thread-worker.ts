/**
 * Worker thread for src/indexing/off-thread.ts: walks a vault with the same code as the main thread,
 * then finds the notes some names mean or counts the notes changed since they were indexed, and
 * sends back the answer, or the error with its code. A walk begun after a job was sent answers it
 * too: jobs that waited while the vault was walked share the next walk.
 */
import { parentPort } from "node:worker_threads";
import { VaultRagError } from "../errors.js";
import { linkResolver, walkVault, type VaultFile } from "../vault/index.js";
import { staleNotes } from "./stale.js";
import { knownMap, type OffThreadJob } from "./off-thread.js";

/** The last walk: of which vault, begun when (ms since the epoch), what it found, and its name lookup once built. */
let last: { root: string; begun: number; files: VaultFile[]; resolve?: (name: string) => string[] } | undefined;

/** The vault's notes, walked after `since` (the time the job was sent). */
function walked(root: string, since: number) {
  if (last?.root !== root || last.begun <= since) {
    const begun = Date.now();
    last = { root, begun, files: walkVault(root) };
  }
  return last;
}

function run(job: OffThreadJob): unknown {
  if (job.kind === "stale") {
    try {
      return staleNotes(walked(job.root, job.since).files, knownMap(job.known)).length;
    } catch {
      return 0; // a vault that cannot be read counts as unchanged, as staleInVault counts it
    }
  }
  const w = walked(job.root, job.since);
  w.resolve ??= linkResolver(w.files.map((f) => f.path));
  const fits = [...new Set(job.names.flatMap((n) => w.resolve!(n)))];
  return fits.length ? { fits } : { fits, all: w.files.map((f) => f.path) };
}

parentPort!.on("message", ({ id, job }: { id: number; job: OffThreadJob }) => {
  try {
    parentPort!.postMessage({ id, result: run(job) });
  } catch (err) {
    const code = err instanceof VaultRagError ? err.code : undefined;
    parentPort!.postMessage({ id, error: { message: (err as Error).message, code } });
  }
});
