import { batchLine } from "../../library.js";
import { err, exitWhenWritten, out, stderrLogger } from "../io.js";
import { locate, openCore } from "../open.js";
import { startResident } from "../resident.js";

/**
 * Starts watching a vault, reporting each batch to `report`; returns the watcher. Used by
 * `vault-rag watch` and `vault-rag mcp --watch` (where stdout is the protocol, so reports go to stderr).
 */
export async function startWatch(
  vaultArg: string | undefined,
  o: { db?: string; json?: boolean; verbose?: boolean; ocr?: boolean },
  report: (line: string) => void,
) {
  const loc = locate({ vault: vaultArg, db: o.db });
  const log = stderrLogger(!!o.verbose);
  // opening refuses a missing folder: an error, not a wait
  const v = await openCore(loc, { vault: vaultArg }, { log });
  const watcher = await v.watch({
    log,
    ...(o.ocr ? { ocr: true } : {}),
    onBatch: (s, changed) =>
      report(
        o.json
          ? JSON.stringify({ time: new Date().toISOString(), changed, ...s })
          : `${new Date().toISOString()} ${batchLine(s)}`,
      ),
    onError: (e) => err((e as Error).message),
  });
  return { v, watcher };
}

/** `vault-rag watch [vault]`: keep the index fresh until interrupted. */
export async function runWatch(
  vaultArg: string | undefined,
  o: { db?: string; json?: boolean; verbose?: boolean; ocr?: boolean },
): Promise<void> {
  const { v, watcher } = await startWatch(vaultArg, o, out);
  // the CLI's reading commands are answered here too, on this vault's endpoint
  const resident = await startResident(locate({ vault: vaultArg, db: o.db }), { vault: vaultArg });
  if (!o.json) out(`watching ${v.vault} → ${v.db} (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  // a pass under way stops after the batch it is storing; the batch the model was embedding next
  // is not waited for (nothing would store it)
  await resident?.close();
  await watcher.close();
  await v.close();
  await exitWhenWritten();
}
