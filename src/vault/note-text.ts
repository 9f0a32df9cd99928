import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { isExcalidraw } from "./excalidraw.js";
import { splitFrontmatter } from "./frontmatter.js";
import { oneNote } from "./links.js";
import { readableParts } from "./note.js";
import { readRegularFile } from "../safe-file.js";
import { decodeNote, MAX_NOTE_BYTES } from "./read.js";
import { headingText, scanBlocks } from "./markdown.js";
import { walkVault, whyNotWalked } from "./walk.js";
import { GET_NOTE_MAX_CHARS } from "./limits.js";

export { GET_NOTE_MAX_CHARS };

const refuse = (rel: string, why: string): never => {
  throw new VaultRagError(
    "usage",
    `vault-rag: refused path "${rel}": ${why} — give a vault-relative path like robots/SMARS.md`,
  );
};

/**
 * The answer for a path that names no note the vault serves: the same whether nothing is there, or
 * a file the walk leaves out (an ignored or hidden folder, a link out of the vault, a file that is
 * not Markdown), so that an answer over HTTP or MCP never tells whether such a file exists.
 */
const noNote = (rel: string): never => {
  throw new VaultRagError(
    "not_found",
    `vault-rag: no note "${rel}" in the vault — list notes with search, or check the path`,
  );
};

/**
 * Resolves a vault-relative path, refusing anything that leaves the vault: absolute paths, `..`
 * segments, and symlinks that point outside. A path that is no Markdown file inside the vault
 * is refused as one that does not exist.
 *
 * @example
 * ```ts
 * safeNotePath("/home/me/notes", "robots/SMARS.md"); // "/home/me/notes/robots/SMARS.md"
 * safeNotePath("/home/me/notes", "../.ssh/id_rsa");  // throws
 * ```
 */
export function safeNotePath(vault: string, rel: string): string {
  if (path.isAbsolute(rel) || /^[a-zA-Z]:[\\/]/.test(rel)) refuse(rel, "it is absolute");
  if (rel.split(/[\\/]/).includes("..")) refuse(rel, "it leaves the vault");
  const abs = path.resolve(vault, rel);
  if (!fs.existsSync(abs)) noNote(rel);
  const realVault = fs.realpathSync(vault);
  const real = fs.realpathSync(abs);
  if (real !== realVault && !real.startsWith(realVault + path.sep)) noNote(rel);
  if (!fs.statSync(real).isFile() || !real.toLowerCase().endsWith(".md")) noNote(rel);
  return real;
}

/**
 * Finds the note that a name means, the way a wikilink does, among the notes the vault walk would
 * index: a path with or without `.md` (`kitchen/Sourdough`), a file name alone (`Sourdough`), or the
 * end of a path (`Folder/Note`), case-insensitively (an exact match wins). A name that fits no such
 * note is refused alike whether a file of it is there or not (in `.trash/`, under
 * `.vault-ragignore`, a link out of the vault): the refusal, with the closest notes, depends on the
 * name and the notes served alone. A name that fits several notes is refused with their paths.
 * `paths`: the notes to look among, when a listing of the vault is at hand (default: a walk of the
 * vault, now).
 *
 * @example
 * ```ts
 * resolveNote("/home/me/notes", "sourdough");     // { path: "kitchen/Sourdough.md", file: "/home/me/notes/kitchen/Sourdough.md" }
 * resolveNote("/home/me/notes", ".trash/old.md"); // throws: vault-rag: no note ".trash/old.md" in the vault — …
 * ```
 */
export function resolveNote(vault: string, name: string, paths?: readonly string[]): { path: string; file: string } {
  const written = name.trim();
  if (path.isAbsolute(written) || /^[a-zA-Z]:[\\/]/.test(written)) refuse(name, "it is absolute");
  // `kitchen/../Welcome.md` is Welcome.md and `kitchen/./Sourdough.md` kitchen/Sourdough.md: only a
  // path whose ".." climbs above the vault leaves it
  const rel = path.posix.normalize(written.replace(/\\/g, "/"));
  if (rel === ".." || rel.startsWith("../")) refuse(name, "it leaves the vault");
  // the same rule as a wikilink: exact, then any case, then the end of a path
  const found = oneNote(
    paths ?? walkVault(vault).map((f) => f.path),
    // with a backslash, as written (a note may be so named; else they are Windows' separators), else
    // as the path it normalises to
    name.includes("\\") ? name : rel,
    { in: "the vault", kind: "vault" },
  );
  return { path: found, file: safeNotePath(vault, found) };
}

/**
 * What a name that names no indexed note names in the vault: `undefined` when no file of it is
 * there (or it leaves the vault); else the file, with why the walk leaves it out (a hidden folder,
 * `.vault-ragignore`, not Markdown: {@link whyNotWalked}), which is absent for a note the walk
 * reads (one the index does not hold yet). It tells whether a file exists: for the CLI, whose user
 * holds the vault, never for an answer over HTTP or MCP ({@link resolveNote} refuses alike).
 *
 * @example
 * ```ts
 * whyNoteMissing("/home/me/notes", ".trash/old.md"); // { why: 'it is in ".trash/", a folder vault-rag never indexes' }
 * whyNoteMissing("/home/me/notes", "new.md");        // {}: a note, not indexed yet
 * ```
 */
export function whyNoteMissing(vault: string, name: string): { why?: string } | undefined {
  const rel = path.posix.normalize(name.trim().replace(/\\/g, "/"));
  if (path.isAbsolute(rel) || rel === ".." || rel.startsWith("../")) return undefined;
  for (const candidate of [rel, `${rel}.md`]) {
    if (!fs.statSync(path.resolve(vault, candidate), { throwIfNoEntry: false })?.isFile()) continue;
    const why = whyNotWalked(vault, candidate);
    return why ? { why } : {};
  }
  return undefined;
}

/**
 * Cuts a text to at most `max` characters, at a line end where one is near, with a mark saying
 * what was left out.
 *
 * @example
 * ```ts
 * capText("a\nb\nc", 3); // "a\nb\n\n[truncated by vault-rag: showing 3 of 5 characters — ask for one section with \"heading\"]"
 * ```
 */
export function capText(text: string, max = GET_NOTE_MAX_CHARS): string {
  if (text.length <= max) return text;
  const lineEnd = text.lastIndexOf("\n", max);
  const cut = lineEnd > max * 0.8 ? lineEnd : max;
  return `${text.slice(0, cut)}\n\n[truncated by vault-rag: showing ${cut} of ${text.length} characters — ask for one section with "heading"]`;
}

/**
 * The text of a section (the heading and everything under it, to the next heading of the same or
 * higher level), found by its heading's text in any case, or `undefined` when there is no such
 * heading. A heading the note has more than once (`## Details` under two parents) gives every such
 * section, in order, a blank line between them; one inside another is given once, within it.
 *
 * @example
 * ```ts
 * sectionText("# A\nx\n## B\ny\n# C", "B"); // "## B\ny"
 * sectionText("# A\n## B\nx\n# C\n## B\ny", "B"); // "## B\nx\n\n## B\ny"
 * ```
 */
export function sectionText(body: string, heading: string): string | undefined {
  const lines = body.split("\n");
  const scan = scanBlocks(body);
  const heads = scan.starts
    .map((line, b) => ({ line, level: scan.levels[b], text: scan.texts[b] }))
    .filter((h) => h.level > 0);
  // as the heading reads (`Basic Usage`), or as it is written (`Basic Usage {#basic-usage}`)
  const key = (s: string) => s.normalize("NFC").toLowerCase();
  const want = key(headingText(heading.replace(/^#+\s*/, "")));
  const sections: string[] = [];
  let end = -1; // the line the last section given ends at: a match before it is inside it
  heads.forEach((h, i) => {
    if (key(h.text) !== want || h.line < end) return;
    const next = heads.slice(i + 1).find((n) => n.level <= h.level);
    end = next ? next.line : lines.length;
    sections.push(lines.slice(h.line, end).join("\n").trim());
  });
  return sections.length ? sections.join("\n\n") : undefined;
}

/**
 * A note's text for a reader (the MCP `get_note` tool, the library's `note()`, `GET /api/note`): the
 * note found as {@link resolveNote} finds it, without its frontmatter, or only one section of it,
 * cut with {@link capText}; the base64 of a pasted image is left out, as the index leaves it out
 * ({@link withoutDataPayloads}). `paths` as {@link resolveNote} takes them.
 *
 * @example
 * ```ts
 * readNoteText("/home/me/notes", "SMARS", "Motors"); // { path: "robots/SMARS.md", text: "## Motors\n…" }
 * ```
 */
export function readNoteText(
  vault: string,
  name: string,
  heading?: string,
  paths?: readonly string[],
): { path: string; text: string } {
  const note = resolveNote(vault, name, paths);
  // read through one descriptor, as a regular file of the vault under the size limit: the note
  // resolved above may have been swapped for a FIFO or a link since
  const read = readRegularFile(note.file, { maxBytes: MAX_NOTE_BYTES, within: vault });
  const text = "refused" in read ? { skipped: read.refused } : decodeNote(read);
  if (typeof text !== "string")
    throw new VaultRagError(
      "usage",
      `vault-rag: "${note.path}" is not served: ${text.skipped} (only notes the index can hold are served)`,
    );
  const split = splitFrontmatter(text);
  // served as it is indexed: a drawing by its words, not tens of kilobytes of its JSON
  const { body, properties: yaml } = readableParts(isExcalidraw(note.path, split.data), split.body, split.yaml);
  // a note of properties alone is served as what it holds, its frontmatter, as it is indexed
  if (!heading) return { path: note.path, text: capText(!body.trim() && yaml.trim() ? yaml : body) };
  const section = sectionText(body, heading);
  if (section === undefined)
    throw new VaultRagError("not_found", `vault-rag: no heading "${heading}" in "${note.path}"`);
  return { path: note.path, text: capText(section) };
}
