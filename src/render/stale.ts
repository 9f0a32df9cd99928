/** The words of a warning that hits come from notes changed or deleted since the last index. */
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
