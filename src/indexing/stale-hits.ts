// Kept apart from stale.ts, which reads the vault: a search imports only this, and does not load the
// vault reader, which brings the Markdown parser.
import fs from "node:fs";
import path from "node:path";

/**
 * Which of some indexed notes (a search's hits, with the modification time the index holds for
 * each) changed or went from disk since the last `index`: a stat per note, no read of the index,
 * so a search can say when a hit shows text the note no longer holds.
 *
 * @example
 * ```ts
 * staleHits("/home/me/notes", [{ path: "kitchen/Bread.md", mtime: 1767225600 }]);
 * // { changed: ["kitchen/Bread.md"], deleted: [] }
 * ```
 */
export function staleHits(
  vault: string,
  hits: readonly { path: string; mtime: number }[],
): { changed: string[]; deleted: string[] } {
  const changed: string[] = [];
  const deleted: string[] = [];
  const seen = new Set<string>();
  for (const { path: p, mtime } of hits) {
    if (seen.has(p)) continue;
    seen.add(p);
    let st: fs.Stats;
    try {
      st = fs.statSync(path.join(vault, p));
    } catch {
      deleted.push(p);
      continue;
    }
    // seconds, as the walk reads them and the index stores them
    if (Math.floor(st.mtimeMs / 1000) !== mtime) changed.push(p);
  }
  return { changed, deleted };
}

/**
 * The warning a search gives when some of its hits come from notes that changed or went from disk
 * since the last `index` ({@link staleHits}), or `undefined` when none did.
 *
 * @example
 * ```ts
 * staleHitsWarning({ changed: ["kitchen/Bread.md"], deleted: [] });
 * // 'vault-rag: a hit comes from a note changed since the last index ("kitchen/Bread.md") — run `vault-rag index` to refresh it'
 * ```
 */
export function staleHitsWarning(
  s: { changed: string[]; deleted: string[] },
  /** `mcp --watch` takes them in itself: its fix is to wait, not to run `index`. */
  o: { watching?: boolean } = {},
): string | undefined {
  const parts: string[] = [];
  const names = (ps: string[]) => ps.map((p) => `"${p}"`).join(", ");
  if (s.changed.length)
    parts.push(
      `${s.changed.length === 1 ? "a note" : `${s.changed.length} notes`} changed since the last index (${names(s.changed)})`,
    );
  if (s.deleted.length)
    parts.push(
      `${s.deleted.length === 1 ? "a note" : `${s.deleted.length} notes`} deleted since (${names(s.deleted)})`,
    );
  if (!parts.length) return undefined;
  const n = s.changed.length + s.deleted.length;
  const them = n === 1 ? "it" : "them";
  const fix = o.watching
    ? `this server is taking ${them} in (mcp --watch)`
    : `run \`vault-rag index\` to refresh ${them}`;
  return `vault-rag: ${n === 1 ? "a hit comes" : "hits come"} from ${parts.join(" and ")} — ${fix}`;
}
