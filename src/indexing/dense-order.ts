/** The order in which the dense phase gives notes their vectors: the notes people search first, first. */

/** Notes whose pending passages are read per look-up of the store. */
const PATH_PAGE = 4096;

/**
 * Every note with a passage that has no vectors, read from the store a page at a time.
 *
 * @example
 * ```ts
 * await pendingPaths(store); // ["a.md", "b/c.md"]
 * ```
 */
export async function pendingPaths(store: {
  pendingVectorPaths(limit: number, after?: string): Promise<string[]>;
}): Promise<string[]> {
  const all: string[] = [];
  for (let after: string | undefined; ;) {
    const page = await store.pendingVectorPaths(PATH_PAGE, after);
    all.push(...page);
    if (page.length < PATH_PAGE) return all;
    after = page[page.length - 1];
  }
}

/**
 * Whether a vault path lies in a folder (the folder itself or any folder under it), by the folder
 * as the `denseFirst` setting writes it (`Projects`, `Work/Clients`), compared in Unicode NFC.
 *
 * @example
 * ```ts
 * inFolder("Work/Clients/acme.md", "Work"); // true
 * inFolder("Workshop/a.md", "Work"); // false
 * ```
 */
export function inFolder(notePath: string, folder: string): boolean {
  const p = notePath.normalize("NFC");
  const f = folder.normalize("NFC");
  return p.startsWith(`${f}/`);
}

/**
 * The dense phase's order: notes in the folders `first` names come first, folder by folder in the
 * order listed (a note in two listed folders counts in the first); within each group, and among
 * the rest, the most recently changed note comes first, ties broken by path. A path with no known
 * modification time (a note gone from disk since the walk) comes last in its group.
 *
 * @example
 * ```ts
 * const mtime = new Map([["old.md", 1], ["new.md", 9], ["Inbox/a.md", 2]]);
 * denseOrder(["Inbox/a.md", "new.md", "old.md"], (p) => mtime.get(p), ["Inbox"]);
 * // ["Inbox/a.md", "new.md", "old.md"]
 * ```
 */
export function denseOrder(paths: string[], mtimeOf: (path: string) => number | undefined, first: string[]): string[] {
  const group = (p: string): number => {
    const k = first.findIndex((f) => inFolder(p, f));
    return k < 0 ? first.length : k;
  };
  const keyed = paths.map((p) => ({ p, g: group(p), t: mtimeOf(p) ?? -Infinity }));
  keyed.sort((a, b) => a.g - b.g || b.t - a.t || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return keyed.map((k) => k.p);
}
