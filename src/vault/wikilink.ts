// no "[" inside: Obsidian names cannot hold one, and a scan from each "[[" stops at the next "[",
// so a line of "[[" without "]]" is read in linear time (a quadratic scan takes 264 s for 500,000 "[[")
/** A `[[wikilink]]` or `![[embed]]`; group 1 is what stands between the brackets. */
export const WIKILINK_RE = /!?\[\[([^[\]\n]*)\]\]/g;

/**
 * A wikilink's target as written: without its `#Heading`, `^block` or `|display text`.
 *
 * @example
 * ```ts
 * wikilinkTarget("recipes/Sourdough#Levain|the levain"); // "recipes/Sourdough"
 * ```
 */
export function wikilinkTarget(inner: string): string {
  return inner.split("|")[0].split("#")[0].split("^")[0].trim();
}

/**
 * What a reader sees of a wikilink: its display text, else its target's name (no folder).
 *
 * @example
 * ```ts
 * wikilinkShown("recipes/Sourdough|the levain"); // "the levain"
 * wikilinkShown("recipes/Sourdough#Levain"); // "Sourdough"
 * ```
 */
export function wikilinkShown(inner: string): string {
  return (inner.split("|")[1] ?? "").trim() || wikilinkTarget(inner).split("/").pop()!;
}
