import { embedderForIndex, indexVault } from "../../index/index.js";
import { collectingLogger } from "../../log.js";
import { locate } from "../open.js";
import { progressReporter } from "../progress.js";
import { err, out, stderrLogger } from "../io.js";

export interface IndexFlags {
  full?: boolean;
  model?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  offline?: boolean;
  modelDir?: string;
}

/** `vault-rag index [vault]`. */
export async function runIndex(vaultArg: string | undefined, o: IndexFlags): Promise<void> {
  const loc = locate({ vault: vaultArg, db: o.db });
  const log = collectingLogger(stderrLogger(!!o.verbose));
  // keep the index's own model unless asked otherwise
  const embedder = await embedderForIndex(loc.db, { model: o.model, store: loc.store, log, offline: o.offline, modelDir: o.modelDir });
  if (o.verbose) err(`vault: ${loc.vault}\nindex: ${loc.shown}\nmodel: ${embedder.id}`);
  const progress = progressReporter(process.stderr, !o.quiet && !o.json);
  const summary = await indexVault(loc.vault, loc.db, embedder, {
    full: o.full,
    log,
    store: loc.store,
    onProgress: (phase, done, total) => phase === "index" && progress.update(done, total),
  });
  progress.stop();
  if (o.json) out(JSON.stringify({ ...summary, warnings: log.warnings }, null, 2));
  else {
    out(
      `indexed ${loc.vault} → ${summary.dbPath}\n` +
        `notes: ${summary.added} added, ${summary.updated} updated, ${summary.deleted} deleted, ${summary.unchanged} unchanged${summary.skipped ? `, ${summary.skipped} skipped` : ""}${summary.failed ? `, ${summary.failed} failed` : ""}\n` +
        `chunks: ${summary.chunks} in the index (${summary.embedded} embedded, ${summary.cached} from cache) in ${summary.seconds.toFixed(1)} s`,
    );
  }
  if (summary.failed) process.exitCode = 1;
}
