/**
 * "Did you mean" suggestions for names a user typed (folders, tags, notes), shared by every layer.
 */

/** Edit distance (Levenshtein), for "closest" suggestions. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The names closest to `want`, at most `n`: the name itself in another case first, then names that
 * contain it or that it contains (shorter first), then names within a small edit distance; and
 * only those about as close as the best, so a near-exact match does not bring far ones with it.
 *
 * @example
 * ```ts
 * closest("picoo", ["pico", "robots", "photo"]); // ["pico", "photo"]
 * closest("stash", ["git/stash-everything", "git/stashing-untracked-files", "vim/splits"]);
 * // ["git/stash-everything", "git/stashing-untracked-files"]
 * ```
 */
export function closest(want: string, names: string[], n = 3): string[] {
  const w = want.toLowerCase();
  if (!w) return [];
  const scored = names
    .map((name) => {
      const l = name.toLowerCase();
      const d = l === w ? 0 : l.includes(w) || w.includes(l) ? 1 : distance(w, l);
      return { name, d, gap: Math.abs(l.length - w.length) };
    })
    .filter((x) => x.d <= Math.max(2, Math.floor(w.length / 2)));
  let best = Infinity; // a loop, not Math.min(...): a spread of 200,000 names overflows the stack
  for (const x of scored) best = Math.min(best, x.d);
  return scored
    .filter((x) => x.d <= best + 2)
    .sort((a, b) => a.d - b.d || a.gap - b.gap || a.name.localeCompare(b.name))
    .slice(0, n)
    .map((x) => x.name);
}

/**
 * The notes whose name or path is closest to what was asked for (see {@link closest}), as paths.
 *
 * @example
 * ```ts
 * closestNotes("stash everything", ["git/stash-everything.md", "vim/buffers.md"]); // ["git/stash-everything.md"]
 * ```
 */
export function closestNotes(want: string, paths: readonly string[], n = 3): string[] {
  const w = want
    .trim()
    .replace(/\.md$/i, "")
    .replace(/[-_\s]+/g, " ");
  const byName = new Map<string, string>();
  for (const p of paths) {
    const stem = p.replace(/\.md$/i, "");
    const name = (w.includes("/") ? stem : stem.slice(stem.lastIndexOf("/") + 1)).replace(/[-_\s]+/g, " ");
    if (!byName.has(name)) byName.set(name, p);
  }
  return closest(w, [...byName.keys()], n).map((name) => byName.get(name)!);
}

/**
 * How to fix a note name that names no note: the closest notes, or else a path of this vault's own
 * as the example of what to give.
 *
 * @example
 * ```ts
 * noteFix("stash everythng", ["git/stash-everything.md"]); // 'did you mean "git/stash-everything.md"?'
 * ```
 */
export function noteFix(want: string, paths: readonly string[], where: "index" | "vault" = "index"): string {
  const near = closestNotes(want, paths);
  if (near.length) return `did you mean ${near.map((p) => `"${p}"`).join(" or ")}?`;
  const sorted = [...paths].sort();
  const example = sorted.find((p) => p.includes("/")) ?? sorted[0];
  return example
    ? `give a vault-relative path like "${example}" or a note's name; find notes with search`
    : where === "index"
      ? "the index has no notes yet: run `vault-rag index` first"
      : "the vault has no Markdown notes yet";
}
