/**
 * A note's path and text as plain values: its folder, a folder page's names, its text's hash. Apart
 * from note.ts (which reads notes with the Markdown parser and the YAML library) so that the link
 * rules, the store and a search load neither.
 */
import crypto from "node:crypto";

/** The names of a folder's own page, as documentation sites and some vaults name it (in the order a link to `guide/` tries them). */
export const FOLDER_PAGE_NAMES = ["index", "README", "_index"] as const;

const oneShot = (crypto as unknown as { hash?: (alg: string, data: string, enc: string) => string }).hash;

/**
 * sha256 of a text, hex (Node's one-shot `crypto.hash` where available: much cheaper per call).
 *
 * @example
 * ```ts
 * hashText("abc").slice(0, 8); // "ba7816bf"
 * ```
 */
export function hashText(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text).digest("hex");
}

/**
 * The folder of a vault-relative note path, "" at the top: what the chunk's `folder` field holds
 * and what a Markdown link in the note is relative to.
 *
 * @example
 * ```ts
 * noteFolder("projects/robots/SMARS.md"); // "projects/robots"
 * noteFolder("Welcome.md");               // ""
 * ```
 */
export function noteFolder(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
