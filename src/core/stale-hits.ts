// Kept apart from indexing/stale.ts, which reads the vault: a search imports only this, and starts
// without the Markdown parser that the vault reader brings.
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
