import { VaultRagError } from "../../errors.js";
import { relatedNotes, type RelatedResult } from "../../search/index.js";
import { whyNoteMissing } from "../../vault/index.js";
import { paint, useColor } from "../color.js";
import { staleHits, staleHitsWarning } from "../../indexing/stale-hits.js";
import { indexCommand, isVaultKnown, locate, noteArgument, openForQuery } from "../open.js";
import { printable, snippet } from "../output.js";
import { err, out, stderrLogger } from "../io.js";

/** The flags of `vault-rag related`. */
export interface RelatedFlags {
  vault?: string;
  db?: string;
  topK: number;
  unlinked?: boolean;
  json?: boolean;
  color?: string;
}

/**
 * Human output of related notes: `path  score` (and `linked` when the notes already link), then the
 * best-matching pair of passages, each as `path:line  breadcrumb` and a one-line snippet.
 *
 * @example
 * ```ts
 * formatRelated(await relatedNotes(store, "SMARS"));
 * // daily/2026-03-14.md  0.8123
 * //     robots/SMARS.md:12  SMARS Robot > Motors
 * //       The SMARS uses two N20 geared micro motors…
 * //     daily/2026-03-14.md:5  Build log 2026-03-14 > Motors
 * //       The SMARS motors kept cutting out on long runs…
 * ```
 */
export function formatRelated(r: RelatedResult, color = false): string {
  const p = paint(color);
  return r.related
    .map((n) =>
      [
        `${p.path(printable(n.path))}  ${n.score.toFixed(4)}${n.linked ? `  ${p.dim("linked")}` : ""}`,
        `    ${p.path(printable(r.note))}:${p.line(String(n.source.start_line))}  ${p.label(printable(n.source.section))}`,
        `      ${snippet(n.source.text, 96)}`,
        `    ${p.path(printable(n.path))}:${p.line(String(n.target.start_line))}  ${p.label(printable(n.target.section))}`,
        `      ${snippet(n.target.text, 96)}`,
      ].join("\n"),
    )
    .join("\n");
}

/** `vault-rag related <note>`: the notes nearest in meaning, each explained by its best pair of passages. */
export async function runRelated(note: string, o: RelatedFlags): Promise<void> {
  const loc = locate(o);
  const { store } = await openForQuery(loc, { log: stderrLogger(false) });
  try {
    const name = noteArgument(loc.vault, note);
    // a file of the vault the index does not hold: why (left out, or not indexed yet), not the closest note
    const unmatched = () => {
      const file = whyNoteMissing(loc.vault, name);
      if (file)
        throw new VaultRagError(
          "usage",
          `vault-rag: "${name}" is not indexed: ${file.why ?? `it is not in the index yet — run \`${indexCommand(loc)}\``}`,
        );
    };
    const r = await relatedNotes(store, name, { k: o.topK, unlinkedOnly: o.unlinked, unmatched });
    if (o.json) out(JSON.stringify(r.related, null, 2));
    else if (r.related.length) out(formatRelated(r, useColor(o.color, process.stdout)));
    // the note asked about, or one found for it, edited or deleted since the last index: its
    // passages are the ones indexed, as a search says of its hits
    if (isVaultKnown(o, loc)) {
      const indexed = await store.notes();
      const mtime = (p: string) => indexed.get(p)?.mtime ?? 0;
      const asked = staleHits(loc.vault, [{ path: r.note, mtime: mtime(r.note) }]);
      if (asked.deleted.length || asked.changed.length)
        err(
          `vault-rag: "${printable(r.note)}" was ${asked.deleted.length ? "deleted" : "changed"} since the last index — these are the notes related to it as it was indexed; run \`${indexCommand(loc)}\` to refresh it`,
        );
      const warning = staleHitsWarning(
        staleHits(
          loc.vault,
          r.related.map((n) => ({ path: n.path, mtime: mtime(n.path) })),
        ),
      );
      if (warning) err(printable(warning));
    }
    if (!r.related.length) {
      err(`no related notes: ${r.reason}`);
      process.exitCode = 1;
    }
  } finally {
    await store.close();
  }
}
