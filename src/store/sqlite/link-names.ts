import type Database from "better-sqlite3";
// the module itself, not the vault barrel: the barrel loads markdown-it and yaml
import { linkEnd, noteNameKey } from "../../vault/links.js";
import { decodeList } from "./compile.js";
import { readGeneration } from "./meta.js";

/**
 * The links that can name a note, found without reading every passage. This module owns
 * `link_names`: one row per link out of a note as its passages hold it (`chunks.links`, each link
 * once per note), keyed by the end of its target as `linkEnd` reads it, then the note. It is one
 * B-tree: a note's rows are found by its links' ends, read from its passages before they go. It
 * is written with the chunks, in their transaction, and filled from them when an index written
 * without it is opened for writing. `meta.link_names_at` is the write generation it last matched
 * the chunks at: a write by a build that does not keep it (an older vault-rag) moves the
 * generation alone, and until the table is filled again readers scan the chunks as before.
 */
const LINK_NAMES_SCHEMA = `
CREATE TABLE IF NOT EXISTS link_names (name TEXT NOT NULL, source TEXT NOT NULL, written TEXT NOT NULL, PRIMARY KEY (name, source, written)) WITHOUT ROWID;
`;

/** The meta key of the write generation at which `link_names` last held every note's links. */
const AT_KEY = "link_names_at";

/** Whether an index has `link_names` (an index written before it, opened read-only, has not). */
function hasLinkNames(db: Database.Database): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'link_names'").pluck().get();
}

/**
 * Whether `link_names` holds every note's links: the index has it, and no write since it was last
 * kept beside the chunks left it behind.
 *
 * @example
 * ```ts
 * if (!linkNamesCurrent(db)) scanChunks();
 * ```
 */
export function linkNamesCurrent(db: Database.Database): boolean {
  if (!hasLinkNames(db)) return false;
  const at = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(AT_KEY) as string | undefined;
  return at !== undefined && String(at) === readGeneration(db);
}

/**
 * Moves `link_names`' generation to the index's when it was `before`, the generation a write
 * transaction started from: the write kept the table beside the chunks. Runs inside that
 * transaction, after it moved the generation.
 *
 * @example
 * ```ts
 * const before = readGeneration(db); write(); bump(); keptLinkNames(db, before);
 * ```
 */
export function keptLinkNames(db: Database.Database, before: string): void {
  db.prepare("UPDATE meta SET value = ? WHERE key = ? AND value = ?").run(readGeneration(db), AT_KEY, before);
}

/**
 * Creates `link_names`, filled from the chunks when the index had none or another build's write
 * left it behind (nothing indexed is read again from the vault). Runs inside the caller's
 * transaction.
 *
 * @example
 * ```ts
 * db.transaction(() => createLinkNames(db)).immediate();
 * ```
 */
export function createLinkNames(db: Database.Database): void {
  const current = linkNamesCurrent(db);
  db.exec(LINK_NAMES_SCHEMA);
  if (!current) fillLinkNames(db);
}

/**
 * Writes `link_names` again from every note's passages (`check --repair`, and an index written
 * without it). Runs inside the caller's transaction.
 *
 * @example
 * ```ts
 * db.transaction(() => fillLinkNames(db)).immediate();
 * ```
 */
export function fillLinkNames(db: Database.Database): void {
  db.prepare("DELETE FROM link_names").run();
  const rows = db.prepare("SELECT DISTINCT path, links FROM chunks WHERE links != ''").raw().all() as [
    string,
    string,
  ][];
  const write = linkNamesWriter(db);
  for (const [path, links] of rows) write.add(path, decodeList(links));
  db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    AT_KEY,
    readGeneration(db),
  );
}

/**
 * The statements that keep `link_names` beside the chunks: `add` a note's links (as `chunks.links`
 * decodes them; a link already there is kept once), `drop` all of a note's, found by the links its
 * passages hold (before they are deleted).
 *
 * @example
 * ```ts
 * const names = linkNamesWriter(db);
 * names.drop("d/Log.md");
 * names.add("d/Log.md", ["SMARS", "kitchen/Sourdough"]);
 * ```
 */
export function linkNamesWriter(db: Database.Database): {
  add(source: string, links: Iterable<string>): void;
  drop(source: string): void;
} {
  const ins = db.prepare("INSERT OR IGNORE INTO link_names (name, source, written) VALUES (?, ?, ?)");
  const had = linksOfNote(db);
  const del = db.prepare("DELETE FROM link_names WHERE name = ? AND source = ?");
  return {
    add(source, links) {
      for (const l of links) ins.run(linkEnd(l), source, l);
    },
    drop(source) {
      for (const end of new Set(had(source).map(linkEnd))) del.run(end, source);
    },
  };
}

/** A note's links as its passages hold them, each once. */
function linksOfNote(db: Database.Database): (path: string) => string[] {
  const stmt = db.prepare("SELECT DISTINCT links FROM chunks WHERE path = ? AND links != ''").pluck();
  return (path) => [...new Set((stmt.all(path) as string[]).flatMap(decodeList))];
}

/**
 * The links out of `about.path`, and those of other notes whose end (`linkEnd`) is
 * `about.name` or `index`, by note: the only links that can name that note (see
 * `Store.noteLinks`).
 *
 * @example
 * ```ts
 * linksAbout(db, { path: "r/SMARS.md", name: "smars" }); // [{ path: "r/SMARS.md", links: ["Motors"] }, { path: "d/Log.md", links: ["smars"] }]
 * ```
 */
export function linksAbout(
  db: Database.Database,
  about: { path: string; name: string },
): { path: string; links: string[] }[] {
  const byNote = new Map<string, string[]>();
  const add = (rows: [string, string][]) => {
    for (const [path, written] of rows) {
      const links = byNote.get(path);
      if (links) links.push(written);
      else byNote.set(path, [written]);
    }
  };
  // the note's own links, from its passages (the table is keyed by their ends)
  add(linksOfNote(db)(about.path).map((l): [string, string] => [about.path, l]));
  add(
    db
      .prepare("SELECT source, written FROM link_names WHERE name IN (?, 'index') AND source != ?")
      .raw()
      .all(about.name, about.path) as [string, string][],
  );
  return [...byNote].map(([path, links]) => ({ path, links }));
}

/**
 * The non-ASCII characters that {@link noteNameKey} reads as ASCII (its Unicode form, then lower
 * case): the Kelvin sign (K), the Greek question mark (;) and the Greek varia (`). A note whose
 * name holds one of them may have an ASCII key, which SQLite's ASCII-only case folding cannot see.
 */
export const ASCII_LOOKALIKES = ["\u212a", "\u037e", "\u1fef"] as const;

/**
 * Most names {@link notesNamed} has SQLite pick out: each costs a LIKE over every path (about 10 ms
 * at 100,000 notes), and reading every path costs about 150 ms.
 */
const NAMES_BY_LIKE = 8;

/**
 * The paths of the notes whose {@link noteNameKey} is one of `names`, sorted. For a few ASCII names,
 * SQLite picks out the notes whose path ends with one of them in any ASCII case (its LIKE), and
 * every note whose path holds one of the {@link ASCII_LOOKALIKES}; else every path is read.
 *
 * @example
 * ```ts
 * notesNamed(db, ["sourdough"]); // ["kitchen/Sourdough.md"]
 * ```
 */
export function notesNamed(db: Database.Database, names: readonly string[]): string[] {
  const want = new Set(names);
  if (!want.size) return [];
  let paths: string[];
  if (want.size <= NAMES_BY_LIKE && [...want].every((n) => /^[\x20-\x7e]+$/.test(n))) {
    const like = (n: string) => "%" + n.replace(/[\\%_]/g, (c) => "\\" + c);
    const patterns = [...want].flatMap((n) => [like(n), like(n) + ".md"]);
    const sql = `SELECT path FROM notes WHERE ${[
      ...patterns.map(() => "path LIKE ? ESCAPE '\\'"),
      ...ASCII_LOOKALIKES.map(() => "instr(path, ?) > 0"),
    ].join(" OR ")}`;
    paths = db
      .prepare(sql)
      .pluck()
      .all(...patterns, ...ASCII_LOOKALIKES) as string[];
  } else paths = db.prepare("SELECT path FROM notes").pluck().all() as string[];
  return paths.filter((p) => want.has(noteNameKey(p))).sort();
}
