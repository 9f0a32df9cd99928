import { batchLine, embedderForIndex, watchVault } from "../../indexing/index.js";
import { err, exitWhenWritten, out, stderrLogger } from "../io.js";
import { locate } from "../open.js";
import { assertVaultFolder } from "../../vault/index.js";

/**
 * Starts watching a vault, reporting each batch to `report`; returns the watcher. Used by
 * `vault-rag watch` and `vault-rag mcp --watch` (where stdout is the protocol, so reports go to stderr).
 */
export async function startWatch(
  vaultArg: string | undefined,
  o: { db?: string; json?: boolean; verbose?: boolean },
  report: (line: string) => void,
) {
  const loc = locate({ vault: vaultArg, db: o.db });
  assertVaultFolder(loc.vault); // before watching: a missing folder is an error, not a wait
  const log = stderrLogger(!!o.verbose);
  const watcher = await watchVault(loc.vault, loc.db, await embedderForIndex(loc.db, { store: loc.store, log }), {
    log,
    store: loc.store,
    onBatch: (s, changed) =>
      report(
        o.json
          ? JSON.stringify({ time: new Date().toISOString(), changed, ...s })
          : `${new Date().toISOString()} ${batchLine(s)}`,
      ),
    onError: (e) => err((e as Error).message),
  });
  return { loc, watcher };
}

/** `vault-rag watch [vault]`: keep the index fresh until interrupted. */
export async function runWatch(
  vaultArg: string | undefined,
  o: { db?: string; json?: boolean; verbose?: boolean },
): Promise<void> {
  const { loc, watcher } = await startWatch(vaultArg, o, out);
  if (!o.json) out(`watching ${loc.vault} → ${loc.shown} (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  // a pass under way stops after the batch it is storing; the batch the model was embedding next
  // is not waited for (nothing would store it)
  await watcher.close();
  await exitWhenWritten();
}
