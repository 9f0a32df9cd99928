import type { VaultRelatedResult } from "../../library.js";
import { lineOf } from "../../shared/place.js";
import { staleHitsWarning } from "../../render/stale.js";
import { paint, useColor } from "../color.js";
import { locate, noteArgument, reindexCommand } from "../open.js";
import { openReader } from "../resident.js";
import { printable, snippet } from "../../shared/snippet-text.js";
import { err, out, stderrLogger } from "../io.js";
import { setExitCode, stdoutTerminal } from "../context.js";

/** The flags of `vault-rag related`. */
export interface RelatedFlags {
  vault?: string;
  db?: string;
  topK: number;
  unlinked?: boolean;
  json?: boolean;
  color?: string;
  verbose?: boolean;
  daemon?: boolean;
}

/**
 * Human output of related notes: `path  score` (and `linked` when the notes already link), then the
 * best-matching pair of passages, each as `path:line  breadcrumb` and a one-line snippet.
 *
 * @example
 * ```ts
 * formatRelated(await notes.related("SMARS"));
 * // daily/2026-03-14.md  0.8123
 * //     robots/SMARS.md:12  SMARS Robot > Motors
 * //       The SMARS uses two N20 geared micro motors…
 * //     daily/2026-03-14.md:5  Build log 2026-03-14 > Motors
 * //       The SMARS motors kept cutting out on long runs…
 * ```
 */
export function formatRelated(r: VaultRelatedResult, color = false): string {
  const p = paint(color);
  return r.related
    .map((n) =>
      [
        `${p.path(printable(n.path))}  ${n.score.toFixed(4)}${n.linked ? `  ${p.dim("linked")}` : ""}`,
        `    ${p.path(printable(r.note))}:${p.line(lineOf({ path: r.note, ...n.source }))}  ${p.label(printable(n.source.section))}`,
        `      ${snippet(n.source.text, 96, { fallback: n.source.section })}`,
        `    ${p.path(printable(n.path))}:${p.line(lineOf({ path: n.path, ...n.target }))}  ${p.label(printable(n.target.section))}`,
        `      ${snippet(n.target.text, 96, { fallback: n.target.section })}`,
      ].join("\n"),
    )
    .join("\n");
}

/** `vault-rag related <note>`: the notes nearest in meaning, each explained by its best pair of passages. */
export async function runRelated(note: string, o: RelatedFlags): Promise<void> {
  const loc = locate(o);
  const v = await openReader(loc, o, { log: stderrLogger(false) });
  try {
    const name = noteArgument(loc.vault, note);
    const r = await v.related(name, { k: o.topK, unlinkedOnly: o.unlinked, explainMissing: true });
    if (r.notice) err(`note: ${printable(r.notice)}`);
    else if (o.verbose)
      err(
        r.basis === "words"
          ? `related: the model cannot read "${printable(r.note)}" (not English, or mostly CJK) — ranked by the words, tags and links the notes share; scores are not cosines`
          : `related: ranked by meaning — the cosine of each note's best pair of passages`,
      );
    if (o.json) out(JSON.stringify(r.related, null, 2));
    else if (r.related.length) out(formatRelated(r, useColor(o.color, stdoutTerminal())));
    if (r.stale?.asked)
      err(
        `vault-rag: "${printable(r.note)}" was ${r.stale.asked} since the last index — these are the notes related to it as it was indexed; run \`${reindexCommand(v, o, loc)}\` to refresh it`,
      );
    const warning = r.stale && staleHitsWarning(r.stale);
    if (warning) err(printable(warning));
    if (!r.related.length) {
      err(`no related notes: ${r.reason}`);
      setExitCode(1);
    }
  } finally {
    await v.close();
  }
}
