import fs from "node:fs";
import path from "node:path";
import { whyNotWalked } from "./walk.js";

/**
 * The note a name gives the exact vault-relative path of (`robots/SMARS.md`, or `robots/SMARS`),
 * when the vault walk reads that file: found without listing the vault, which is the note a
 * wikilink of that name finds first (an exact path wins). `undefined` for any other name (a file
 * name alone, another case, a path through a link), which is looked up in the listing.
 *
 * @example
 * ```ts
 * exactNotePath("/home/me/notes", "robots/SMARS");  // "robots/SMARS.md"
 * exactNotePath("/home/me/notes", "smars");         // undefined: a name to look up
 * exactNotePath("/home/me/notes", ".trash/old.md"); // undefined: the walk leaves it out
 * ```
 */
export function exactNotePath(vault: string, name: string): string | undefined {
  if (name.includes("\\")) return undefined; // a backslash may be part of a name or a separator
  const rel = path.posix.normalize(name.trim());
  if (rel === "." || rel === ".." || rel.startsWith("../") || rel.startsWith("/") || rel.endsWith("/"))
    return undefined;
  const file = /\.md$/i.test(rel) ? rel : `${rel}.md`;
  try {
    const root = fs.realpathSync.native(vault);
    const abs = path.join(root, ...file.split("/"));
    // no link on the way, and each name as the disk writes it (a disk blind to case opens any case)
    if (fs.realpathSync.native(abs) !== abs || !fs.statSync(abs).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return whyNotWalked(vault, file) === undefined ? file : undefined;
}
