import path from "node:path";
import { noteFix } from "../closest.js";
import { VaultRagError } from "../errors.js";
import { FOLDER_PAGE_NAMES, noteFolder } from "./note-path.js";

/** A name as written, for a note whose name holds a backslash: trimmed, no leading `./` or `/`. */
const asWritten = (name: string) => name.trim().replace(/^\.?\//, "");

/**
 * A link target as {@link linkTargets} compares it with note paths: trimmed, forward slashes, no
 * leading `./` or `/`, no `.md`.
 *
 * @example
 * ```ts
 * linkStem(" ./robots\\SMARS.md "); // "robots/SMARS"
 * linkStem("kitchen/../Welcome.md"); // "Welcome"
 * ```
 */
export function linkStem(target: string): string {
  let stem = target.trim().replace(/\\/g, "/");
  // `kitchen/./Sourdough` and `kitchen/../Welcome` are the paths they lead to
  if (/(?:^|\/)\.\.?(?:\/|$)/.test(stem)) stem = path.posix.normalize(stem);
  return stem.replace(/^\.?\//, "").replace(/\.md$/i, "");
}

/**
 * Resolves a wikilink target (`Sourdough`, `kitchen/Sourdough`, `sourdough.md`) to the notes it can
 * mean among vault-relative paths, the way Obsidian does: the path with or without `.md`, exactly,
 * else case-insensitively (and in either Unicode form of an accented letter), else as the end of a path (`Folder/Note`, or a file name alone). Returns
 * every note that fits (several when the name is ambiguous), or none.
 *
 * @example
 * ```ts
 * linkTargets(["kitchen/Sourdough.md", "robots/SMARS.md"], "sourdough"); // ["kitchen/Sourdough.md"]
 * linkTargets(["a/Note.md", "b/Note.md"], "Note");                       // ["a/Note.md", "b/Note.md"]
 * ```
 */
export function linkTargets(paths: readonly string[], target: string): string[] {
  return linkResolver(paths)(target);
}

/**
 * {@link linkTargets} for many links against one set of notes: the notes are read once into maps,
 * and each link then resolves in constant time (an index run resolves every link of the vault).
 *
 * @example
 * ```ts
 * const resolve = linkResolver(["kitchen/Sourdough.md", "robots/SMARS.md"]);
 * resolve("sourdough"); // ["kitchen/Sourdough.md"]
 * resolve("robots/smars"); // ["robots/SMARS.md"]
 * ```
 */
export function linkResolver(paths: readonly string[]): (target: string) => string[] {
  const exact = new Map<string, string[]>();
  const loose = new Map<string, string[]>();
  const ends = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, k: string, p: string) => {
    const list = m.get(k);
    if (list) list.push(p);
    else m.set(k, [p]);
  };
  for (const p of paths) {
    const stem = p.replace(/\.md$/i, "");
    add(exact, stem, p);
    const lower = looseKey(stem);
    add(loose, lower, p);
    // every ending after a "/": "a/b/Note" ends in "b/note" and in "note"
    for (let i = lower.indexOf("/"); i >= 0; i = lower.indexOf("/", i + 1)) add(ends, lower.slice(i + 1), p);
  }
  const find = (want: string) => {
    const lower = looseKey(want);
    return exact.get(want) ?? loose.get(lower) ?? ends.get(lower);
  };
  return (target) => {
    // a name with a backslash in it (`back\slash.md`, a legal file name outside Windows) is that
    // note when one is so named; else the backslashes are folder separators, as Windows writes them
    if (target.includes("\\")) {
      const written = find(asWritten(target).replace(/\.md$/i, ""));
      if (written) return [...written];
    }
    const want = linkStem(target);
    if (!want) return [];
    const found = find(want);
    if (found) return [...found];
    // a link to a folder's page (`guide/` is read as `guide/index.md`) finds its README.md or _index.md too
    if (/(?:^|\/)index$/i.test(want))
      for (const name of FOLDER_PAGE_NAMES.slice(1)) {
        const other = find(want.slice(0, -"index".length) + name);
        if (other) return [...other];
      }
    return [];
  };
}

/** The part of a name after its last "/" (all of it when there is none). */
const lastPart = (name: string) => name.slice(name.lastIndexOf("/") + 1);

/**
 * A note's name as {@link linkResolver} compares it, without its folders: its file name without
 * `.md`, in any case and either Unicode form. Every note a link can mean has one of the
 * {@link linkNameKeys} of that link, so a store can find them without reading every path.
 *
 * @example
 * ```ts
 * noteNameKey("kitchen/Sourdough.md"); // "sourdough"
 * ```
 */
export function noteNameKey(path: string): string {
  return stemKey(path.replace(/\.md$/i, ""));
}

/** {@link noteNameKey} of a name without its `.md`. */
const stemKey = (stem: string) => looseKey(lastPart(stem));

/**
 * The {@link noteNameKey}s of every note {@link linkResolver} can find for a link target (or
 * {@link oneNote} for a name): its name as written when it holds a backslash, its name read as
 * {@link linkStem} reads it, and a folder page's other names (`guide/index` may be `guide/README`).
 * A resolver over the notes of these names answers as one over every note.
 *
 * @example
 * ```ts
 * linkNameKeys("kitchen/Sourdough.md"); // ["sourdough"]
 * linkNameKeys("guide/index"); // ["index", "readme", "_index"]
 * ```
 */
export function linkNameKeys(target: string): string[] {
  const keys = new Set<string>();
  // as linkResolver reads it: the name as written when it holds a backslash, then linkStem's
  // reading, then a folder page's other names
  if (target.includes("\\")) keys.add(noteNameKey(asWritten(target)));
  const want = linkStem(target);
  if (want) {
    keys.add(stemKey(want));
    if (/(?:^|\/)index$/i.test(want))
      for (const name of FOLDER_PAGE_NAMES.slice(1)) keys.add(stemKey(want.slice(0, -"index".length) + name));
  }
  return [...keys];
}

/**
 * The end of a link target that can name a note, as the search's `linkedNotes` tests it: the last part of
 * its {@link linkStem}, lowered (no Unicode form is chosen). A link names a note only if this is
 * the note's file name without `.md`, lowered, or `index` (a folder's page).
 *
 * @example
 * ```ts
 * linkEnd("./robots\\SMARS.md"); // "smars"
 * ```
 */
export function linkEnd(target: string): string {
  return lastPart(linkStem(target).toLowerCase());
}

/**
 * A name as the loose rules compare it: in any case, and in either Unicode form of an accented
 * letter (a file named on macOS may spell "é" as "e" and a combining accent, which a name typed
 * elsewhere does not: the two look alike and are different strings).
 */
function looseKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

/**
 * A name reduced to its words, as a reader tells names apart: {@link looseKey}'s form, with
 * punctuation and runs of spaces as one space (`check-if-a-file-changed` is `# Check If A File
 * Changed`; `git log` names `git-log.md`).
 *
 * @example
 * ```ts
 * nameWords("Check-If A_File"); // "check if a file"
 * ```
 */
export function nameWords(name: string): string {
  return looseKey(name)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * The notes a link out of `source` can mean among `paths` (several when its name is ambiguous):
 * by {@link linkResolver}'s rules, and for a Markdown link (`markdown`) that fits no note relative
 * to its note's folder (`[x](git/undo.md)` written in `git/a.md` reads `git/git/undo.md`), the
 * same path from the vault's top, as Obsidian reads it. A wikilink never has that second reading.
 *
 * @example
 * ```ts
 * const resolve = noteLinkResolver(["git/undo.md", "kitchen/Sourdough.md"]);
 * resolve("Sourdough", "Diary.md"); // ["kitchen/Sourdough.md"]
 * resolve("git/git/undo.md", "git/a.md", true); // ["git/undo.md"]
 * ```
 */
export function noteLinkResolver(
  paths: readonly string[],
): (written: string, source: string, markdown?: boolean) => string[] {
  const all = linkResolver(paths);
  const exact = new Set(paths);
  return (written, source, markdown) => {
    const fits = all(written);
    if (fits.length || !markdown) return fits;
    const folder = noteFolder(source);
    if (!folder || !written.startsWith(folder + "/")) return [];
    const fromTop = written.slice(folder.length + 1);
    return exact.has(fromTop) ? [fromTop] : [];
  };
}

/**
 * The notes a name can mean among `paths`, as {@link oneNote} finds them (one, several when the
 * name is ambiguous, or none).
 *
 * @example
 * ```ts
 * noteMatches(["a/Note.md", "b/Note.md"], "note"); // ["a/Note.md", "b/Note.md"]
 * noteMatches(["a/Note.md", "b/Note.md"], "b/Note.md"); // ["b/Note.md"]
 * ```
 */
export function noteMatches(paths: readonly string[], name: string): string[] {
  // a path as written, with a folder and .md (`src/ch01.md`), names that file: another folder's file
  // of that name (`2018-edition/src/ch01.md`, a wikilink's end of path) is not it
  // (read as linkStem reads it: `.\src\ch01.md` and `/src/ch01.md` are that path too)
  const stem = linkStem(name);
  const asPath = stem.includes("/") && /\.md\s*$/i.test(name);
  // a note named with a backslash in it is that note (`./kitchen\\Soup.md` too)
  const written = looseKey(asWritten(name));
  return linkTargets(paths, name).filter(
    (p) => !asPath || looseKey(p) === looseKey(`${stem}.md`) || looseKey(p) === written,
  );
}

/**
 * The one note a name means among `paths`, found as {@link linkTargets} finds it (but a path
 * written with a folder and `.md` only as that path, in any case), or a `usage` error that says why not: the notes an ambiguous name fits, or the closest ones to a name that fits
 * none ({@link noteFix}). `unmatched` runs first when none fits, to refuse with a better reason.
 *
 * @example
 * ```ts
 * oneNote(["kitchen/Sourdough.md"], "sourdough", { in: "the index", kind: "index" }); // "kitchen/Sourdough.md"
 * oneNote(["kitchen/Sourdough.md"], "sourdoug", { in: "the index", kind: "index" });
 * // throws: vault-rag: no note "sourdoug" in the index — did you mean "kitchen/Sourdough.md"?
 * ```
 */
export function oneNote(
  paths: readonly string[],
  name: string,
  where: { in: string; kind: "index" | "vault" },
  unmatched?: () => void,
): string {
  const found = noteMatches(paths, name);
  if (found.length === 1) return found[0];
  if (found.length > 1)
    throw new VaultRagError(
      "usage",
      `vault-rag: "${name}" could be ${found.map((p) => `"${p}"`).join(" or ")} — give the path of the one you mean`,
    );
  unmatched?.();
  throw new VaultRagError(
    "not_found",
    `vault-rag: no note "${name}" in ${where.in} — ${noteFix(name, paths, where.kind)}`,
  );
}
