/** What the page's views share: the vault, whether the server watches it, the filters, the note shown. */

export const state = {
  vaultName: "",
  /** Whether the server keeps the index fresh itself (`serve --watch`), from the last status. */
  watching: false,
  /** The note open in the note panel. */
  selected: undefined as string | undefined,
};

/** The search's filters; folder: undefined for any folder; "" is the vault's root, a folder like the others. */
export const filters: { tags: Set<string>; folder: string | undefined; since: string } = {
  tags: new Set<string>(),
  folder: undefined,
  since: "",
};

/** The filters as query parameters (`tag`, `folder`, `since`), added to `p`. */
export function filterParams(p: URLSearchParams): URLSearchParams {
  for (const t of filters.tags) p.append("tag", t);
  if (filters.folder !== undefined) p.set("folder", filters.folder);
  if (filters.since) p.set("since", filters.since);
  return p;
}

/** A link that opens a note in Obsidian. */
export const obsidian = (path: string) =>
  `obsidian://open?vault=${encodeURIComponent(state.vaultName)}&file=${encodeURIComponent(path.replace(/\.md$/, ""))}`;
