import { collectingLogger, silentLogger, type Warning } from "../../log.js";
import { locate, openCore } from "../open.js";
import { indexBar, summaryLine } from "../progress.js";
import { err, out, stderrLogger } from "../io.js";
import { printable } from "../../shared/snippet-text.js";
import { num } from "../../render/numbers.js";
import { hintLine } from "./models-cmd.js";

export interface IndexFlags {
  full?: boolean;
  /** false with `--no-attachments`. */
  attachments?: boolean;
  /** true with `--ocr`. */
  ocr?: boolean;
  model?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  offline?: boolean;
  modelDir?: string;
}

/**
 * Warnings as printed after an indexing run: one line per code with its count and the first
 * message (a code seen once: just its message); with `verbose`, every message.
 *
 * @example
 * ```ts
 * warningLines([{ code: "note_skipped", message: 'vault-rag: skipped "a.png": binary' }, { code: "note_skipped", message: 'vault-rag: skipped "b.png": binary' }], false);
 * // ['warning: note_skipped ×2 — skipped "a.png": binary (and 1 more; --verbose lists them all)']
 * ```
 */
export function warningLines(warnings: Warning[], verbose: boolean): string[] {
  // a warning names files, which may hold a line break or an escape sequence: one safe line each
  const clean = (m: string) => printable(m.replace(/^vault-rag: /, ""));
  if (verbose) return warnings.map((w) => `warning: ${clean(w.message)}`);
  const groups = new Map<string, Warning[]>();
  for (const w of warnings) groups.set(w.code, [...(groups.get(w.code) ?? []), w]);
  return [...groups].map(([code, ws]) =>
    ws.length === 1
      ? `warning: ${clean(ws[0].message)}`
      : `warning: ${code} ×${ws.length} — ${clean(ws[0].message)} (and ${ws.length - 1} more; --verbose lists them all)`,
  );
}

/**
 * The line of an indexing run's attachments (PDFs, Canvas boards, Word documents), counted apart
 * from its notes, with its line break; empty for a vault that has none.
 *
 * @example
 * ```ts
 * attachmentsLine({ added: 3, updated: 0, deleted: 0, unchanged: 0, unreadable: 1 });
 * // "attachments: 3 added, 0 updated, 0 deleted, 0 unchanged, 1 unreadable\n"
 * ```
 */
export function attachmentsLine(a: {
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  unreadable: number;
}): string {
  if (!a.added && !a.updated && !a.deleted && !a.unchanged && !a.unreadable) return "";
  return `attachments: ${a.added} added, ${a.updated} updated, ${a.deleted} deleted, ${a.unchanged} unchanged${a.unreadable ? `, ${a.unreadable} unreadable` : ""}\n`;
}

/**
 * `vault-rag index [vault]`. Progress on stderr from the start, in notes (the keyword phase) then in
 * windows embedded (the dense phase), and one summary line at the end; warnings are
 * collected and printed once after the bar; Ctrl-C or SIGTERM (`kill`, a service manager) restores
 * the cursor and says how much was saved, then exits 130 or 143.
 */
export async function runIndex(vaultArg: string | undefined, o: IndexFlags): Promise<void> {
  const loc = locate({ vault: vaultArg, db: o.db });
  // nothing is printed while the bar runs: warnings wait for the end
  const log = collectingLogger({
    ...silentLogger,
    info: stderrLogger(!!o.verbose).info,
    debug: stderrLogger(!!o.verbose).debug,
  });
  // keep the index's own model unless asked otherwise
  const v = await openCore(loc, { vault: vaultArg }, { model: o.model, log, offline: o.offline, modelDir: o.modelDir });
  const bar = indexBar(process.stderr, !o.quiet && !o.json);
  const onInterrupt = (signal: NodeJS.Signals) => {
    bar.stop();
    const w = bar.work;
    // a script that asked for JSON gets JSON: what the stopped run saved, never an empty stdout
    if (o.json)
      out(
        JSON.stringify(
          {
            stopped: true,
            rebuild: !!o.full,
            // a stopped rebuild keeps nothing: the index is as it was
            notesRead: w.notesDone,
            notesTotal: w.notesTotal,
            keywordReady: !o.full && w.keywordReady !== undefined,
            // the index's own counts, as `status --json` gives them (phases.dense.passages and of)
            passagesWithVectors: o.full ? 0 : w.saved,
            passagesWithoutVectors: o.full ? 0 : Math.max(0, w.toSave - w.saved),
          },
          null,
          2,
        ),
      );
    err(
      o.full
        ? "stopped — the rebuild was abandoned and the index is as it was; run `vault-rag index --full` to start again"
        : !w.notesDone && w.keywordReady === undefined
          ? "stopped — nothing saved yet; run `vault-rag index` to start again"
          : w.keywordReady === undefined
            ? `stopped — ${num(w.notesDone)} of ${num(w.notesTotal)} notes saved (searchable by keyword); run \`vault-rag index\` to resume`
            : `stopped — every note is searchable by keyword; vectors stored for ${num(w.saved)} of ${num(w.toSave)} passages; run \`vault-rag index\` to resume`,
    );
    // what was committed stays; the lock goes with this process, file and all; a stopped rebuild's
    // half-built file goes too (still under the lock)
    v.abandon({ full: o.full });
    process.exit(signal === "SIGTERM" ? 143 : 130);
  };
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onInterrupt);
  try {
    const summary = await v.index({
      full: o.full,
      log,
      onProgress: bar.set,
      ...(o.attachments === false ? { attachments: false } : {}),
      ...(o.ocr ? { ocr: true } : {}),
    });
    bar.stop();
    if (summary.failed) process.exitCode = 1;
    for (const l of warningLines(log.warnings, !!o.verbose)) err(l);
    if (!o.quiet && !o.json) err(summaryLine(summary));
    // after a run that built the index: the strongest model measured here, once (a field in JSON)
    const hint = summary.built && !o.quiet ? await v.modelHint({ markShown: !o.json }) : undefined;
    if (o.json)
      return out(JSON.stringify({ ...summary, warnings: log.warnings, ...(hint ? { modelHint: hint } : {}) }, null, 2));
    if (hint && !hint.shown) err(hintLine(hint, loc.vault));
    if (o.verbose) err(`vault: ${v.vault}\nindex: ${v.db}\nmodel: ${summary.model}`);
    out(
      `indexed ${loc.vault} → ${summary.dbPath}\n` +
        `notes: ${summary.added} added, ${summary.updated} updated, ${summary.deleted} deleted, ${summary.unchanged} unchanged${summary.skipped ? `, ${summary.skipped} skipped` : ""}${summary.failed ? `, ${summary.failed} failed` : ""}\n` +
        attachmentsLine(summary.attachments) +
        `chunks: ${summary.chunks} in the index (${summary.embedded} window${summary.embedded === 1 ? "" : "s"} embedded, ${summary.cached} from cache) in ${summary.seconds.toFixed(1)} s`,
    );
  } catch (e) {
    bar.stop();
    for (const l of warningLines(log.warnings, !!o.verbose)) err(l);
    throw e;
  } finally {
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
    await v.close();
  }
}
