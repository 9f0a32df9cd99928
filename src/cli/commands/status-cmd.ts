import { ALLOW_REMOTE_ENV } from "../../core/defaults.js";
import { isVaultKnown, locate, reindexCommand } from "../open.js";
import { openReader } from "../resident.js";
import { out, stderrLogger } from "../io.js";
import { phasesLine } from "../../render/phases.js";
import { printable } from "../../shared/snippet-text.js";
import { hintLine } from "./models-cmd.js";

/** `vault-rag status`. */
export async function runStatus(o: {
  vault?: string;
  db?: string;
  json?: boolean;
  verbose?: boolean;
  daemon?: boolean;
}): Promise<void> {
  const loc = locate(o);
  const v = await openReader(loc, o, { log: stderrLogger(false) });
  try {
    // no index is refused here, as every reader refuses it (the library's status reports it instead)
    await v.ready();
    const info = await v.status();
    // another process writing (index, watch, serve --watch): the stale notes are what it has yet to store
    const writer = v.writer();
    const dates = info.dates
      ? Object.entries(info.dates.sources)
          .sort((a, b) => b[1] - a[1])
          .map(([source, n]) => `${source} ${n}`)
          .join(", ") +
        (info.dates.unreadable
          ? ` (${info.dates.unreadable} note(s) with a frontmatter date that is no ISO date, dated by the next source)`
          : "")
      : "";
    const runs = `${info.modelRuns}${info.modelRefused ? ` (not used: the index names it, but neither ${ALLOW_REMOTE_ENV} nor --model does)` : ""}`;
    // the strongest model measured here, shown once (in JSON, a field each time)
    const hint = await v.modelHint({ markShown: !o.json });
    if (o.json)
      out(
        JSON.stringify(
          { ...info, ...(writer ? { indexing: { pid: writer } } : {}), ...(hint ? { modelHint: hint } : {}) },
          null,
          2,
        ),
      );
    else
      out(
        `index:        ${info.index}\nvault:        ${info.vault}\nmodel:        ${info.model} (${info.dimensions}-d)${info.model === "use-lite" ? " — stronger models: `vault-rag models`" : ""}\nruns:         ${runs}\nnotes:        ${info.notes}\n${info.attachments ? `attachments:  ${info.attachments}\n` : ""}chunks:       ${info.chunks}\n${info.phases ? `phases:       ${phasesLine(info.phases, reindexCommand(v, o, loc))}\n` : ""}last indexed: ${info.lastIndexed}\ndates from:   ${dates || "no notes"}\nstale:        ${info.stale} note(s) new, edited or deleted since the last index${
          writer
            ? `\nindexing:     in progress (pid ${writer}) — the stale notes are those it has not stored yet`
            : info.stale
              ? ` — run \`${reindexCommand(v, o, loc)}\``
              : ""
        }${hint && !hint.shown ? `\n${hintLine(hint, isVaultKnown(o, loc) ? v.vault : undefined)}` : ""}${warningsText(info.warnings ?? [], !!o.verbose)}`,
      );
  } finally {
    await v.close();
  }
}

/**
 * The warnings indexing kept, as `status` shows them: their count by code, or with `verbose` one
 * line each.
 *
 * @example
 * ```ts
 * warningsText([{ code: "note_skipped", path: "a.md", message: 'vault-rag: skipped "a.md": binary' }], false);
 * // "\nwarnings:     1 (note_skipped 1) — `vault-rag status --verbose` lists them"
 * ```
 */
export function warningsText(warnings: { code: string; message: string }[], verbose: boolean): string {
  if (!warnings.length) return "";
  if (verbose) return warnings.map((w) => `\nwarning: ${printable(w.message.replace(/^vault-rag: /, ""))}`).join("");
  const byCode = new Map<string, number>();
  for (const w of warnings) byCode.set(w.code, (byCode.get(w.code) ?? 0) + 1);
  const codes = [...byCode].map(([c, n]) => `${c} ${n}`).join(", ");
  return `\nwarnings:     ${warnings.length} (${codes}) — \`vault-rag status --verbose\` lists them`;
}
