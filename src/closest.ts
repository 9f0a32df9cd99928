/**
 * "Did you mean" suggestions for names a user typed (folders, tags, notes), shared by every layer.
 */

/**
 * Edit distance between two strings: insertions, deletions, substitutions and swaps of two
 * neighbours ("cuont" → "count"), one edit each (optimal string alignment). Past `limit` it stops
 * and says `limit + 1`.
 *
 * @example
 * ```ts
 * editDistance("cuont", "count"); // 1
 * editDistance("aproximate", "approximate"); // 1
 * ```
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  // the lengths' difference is a floor of the distance: names far longer or shorter cost nothing
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let prevLeast = 0;
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      cur[j] = d;
      least = Math.min(least, d);
    }
    // a cell reads the two rows above it: when both are past the limit, every later one is
    if (least > limit && prevLeast > limit) return limit + 1;
    before = prev;
    prev = cur;
    prevLeast = least;
  }
  return Math.min(prev[b.length], limit + 1);
}

/** Longest name weighed by edit distance: a longer one is matched by case and containment only (a 1,000-character tag against 200,000 tags took 20 s). */
const MAX_EDIT_NAME = 64;

/**
 * The names closest to `want`, at most `n`: the name itself in another case first, then names that
 * contain it or that it contains (at least half of it; shorter first), then names within a small
 * edit distance; and only those about as close as the best, so a near-exact match does not bring
 * far ones with it.
 *
 * @example
 * ```ts
 * closest("picoo", ["pico", "robots", "photo"]); // ["pico", "photo"]
 * closest("stash", ["git/stash-everything", "git/stashing-untracked-files", "vim/splits"]);
 * // ["git/stash-everything", "git/stashing-untracked-files"]
 * closest("nosuchnote", ["ch", "h", "s"]); // []
 * ```
 */
export function closest(want: string, names: string[], n = 3): string[] {
  return nearest(scoreNames(want, names), n).map((x) => x.name);
}

interface Scored {
  name: string;
  /** 0 the same in another case, 1 one contains the other, else the edit distance. */
  d: number;
  /** Difference in length, the tie-break. */
  gap: number;
}

/** Every name within reach of `want` (see {@link closest}), with how close it is. */
function scoreNames(want: string, names: string[]): Scored[] {
  const w = want.toLowerCase();
  if (!w) return [];
  const limit = Math.max(2, Math.floor(w.length / 2));
  return names
    .map((name) => {
      const l = name.toLowerCase();
      // a name inside what was typed counts only when it is at least half of it: "ch" and "h"
      // are in "nosuchnote", and no suggestion for it
      const d =
        l === w
          ? 0
          : l.includes(w) || (w.includes(l) && 2 * l.length >= w.length)
            ? 1
            : w.length > MAX_EDIT_NAME
              ? limit + 1
              : editDistance(w, l, limit);
      return { name, d, gap: Math.abs(l.length - w.length) };
    })
    .filter((x) => x.d <= limit);
}

/** The `n` closest of scored names, only those about as close as the best. */
function nearest(scored: Scored[], n: number): Scored[] {
  let best = Infinity; // a loop, not Math.min(...): a spread of 200,000 names overflows the stack
  for (const x of scored) best = Math.min(best, x.d);
  return scored
    .filter((x) => x.d <= best + 2)
    .sort((a, b) => a.d - b.d || a.gap - b.gap || a.name.localeCompare(b.name))
    .slice(0, n);
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
  const byPath = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const p of paths) {
    const stem = p.replace(/\.md$/i, "");
    const name = stem.slice(stem.lastIndexOf("/") + 1).replace(/[-_\s]+/g, " ");
    if (!byName.has(name)) byName.set(name, p);
    if (w.includes("/")) byPath.set(stem.replace(/[-_\s]+/g, " "), p);
  }
  const named = scoreNames(w.slice(w.lastIndexOf("/") + 1), [...byName.keys()]).map((x) => ({
    ...x,
    name: byName.get(x.name)!,
    // a path's file name, typed in the wrong folder ("Plugins/Calouts" for "Editing/Callouts.md"),
    // is one step further than the same name in its own folder
    d: x.d + (w.includes("/") ? 1 : 0),
  }));
  const pathed = scoreNames(w, [...byPath.keys()]).map((x) => ({ ...x, name: byPath.get(x.name)! }));
  // each note once, at its closer reading
  const best = new Map<string, Scored>();
  for (const x of [...pathed, ...named]) {
    const had = best.get(x.name);
    if (!had || x.d < had.d) best.set(x.name, x);
  }
  return nearest([...best.values()], n).map((x) => x.name);
}

/**
 * The "did you mean" clause for the closest names, or "" when there are none.
 *
 * @example
 * ```ts
 * didYouMean(["status", "stage"]); // 'did you mean "status" or "stage"?'
 * ```
 */
export const didYouMean = (near: readonly string[]): string =>
  near.length ? `did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";

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
  if (near.length) return didYouMean(near);
  const sorted = [...paths].sort();
  const example = sorted.find((p) => p.includes("/")) ?? sorted[0];
  return example
    ? `give a vault-relative path like "${example}" or a note's name; find notes with search`
    : where === "index"
      ? "the index has no notes yet: run `vault-rag index` first"
      : "the vault has no Markdown notes yet";
}
