/**
 * A link target as {@link linkTargets} compares it with note paths: trimmed, forward slashes, no
 * leading `./` or `/`, no `.md`.
 *
 * @example
 * ```ts
 * linkStem(" ./robots\\SMARS.md "); // "robots/SMARS"
 * ```
 */
export function linkStem(target: string): string {
  return target
    .trim()
    .replace(/\\/g, "/")
    .replace(/^\.?\//, "")
    .replace(/\.md$/i, "");
}

/**
 * Resolves a wikilink target (`Sourdough`, `kitchen/Sourdough`, `sourdough.md`) to the notes it can
 * mean among vault-relative paths, the way Obsidian does: the path with or without `.md`, exactly,
 * else case-insensitively, else as the end of a path (`Folder/Note`, or a file name alone). Returns
 * every note that fits (several when the name is ambiguous), or none.
 *
 * @example
 * ```ts
 * linkTargets(["kitchen/Sourdough.md", "robots/SMARS.md"], "sourdough"); // ["kitchen/Sourdough.md"]
 * linkTargets(["a/Note.md", "b/Note.md"], "Note");                       // ["a/Note.md", "b/Note.md"]
 * ```
 */
export function linkTargets(paths: readonly string[], target: string): string[] {
  const stem = (p: string) => p.replace(/\.md$/i, "");
  const want = linkStem(target);
  if (!want) return [];
  const exact = paths.filter((p) => stem(p) === want);
  if (exact.length) return exact;
  const lower = want.toLowerCase();
  const loose = paths.filter((p) => stem(p).toLowerCase() === lower);
  if (loose.length) return loose;
  return paths.filter((p) =>
    stem(p)
      .toLowerCase()
      .endsWith("/" + lower),
  );
}
