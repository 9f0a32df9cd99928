import type Database from "better-sqlite3";
import type { NoteLink } from "../types.js";
import { FTS_TOKENIZE } from "./fts-query.js";

/**
 * The backlink text of each note: the words other notes use where they link to it (a link's
 * display text and the sentence around it). This module owns three tables:
 *
 * - `link_texts`: one row per link out of a note, its target as written, whether it is a Markdown
 *   link, the note it resolves to (NULL while no single note fits), its sentence and its display text;
 * - `backlink_notes` and `backlink_fts`: one keyword document per linked note, every sentence that
 *   links to it, which a keyword query ranks beside the chunks' own text (see {@link backlinkMatch});
 * - `backlink_stale`: the notes whose document a write left to the next {@link relink} to rebuild.
 */
const BACKLINK_SCHEMA = `
CREATE TABLE IF NOT EXISTS link_texts (rowid INTEGER PRIMARY KEY, source TEXT NOT NULL, written TEXT NOT NULL, markdown INTEGER NOT NULL, target TEXT, text TEXT NOT NULL, display TEXT);
CREATE INDEX IF NOT EXISTS link_texts_source ON link_texts(source);
CREATE INDEX IF NOT EXISTS link_texts_target ON link_texts(target);
CREATE TABLE IF NOT EXISTS backlink_notes (rowid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS backlink_fts USING fts5(text, tokenize = '${FTS_TOKENIZE}');
CREATE TABLE IF NOT EXISTS backlink_stale (path TEXT PRIMARY KEY);
`;

/** The meta key under which the last {@link relink} records the set of notes it resolved against. */
const LINKS_KEY = "links_key";

/**
 * At most this many characters of sentences make a note's backlink document (each linking note's
 * first sentence first): a note linked from every daily note still costs a bounded re-index when
 * one of them changes.
 */
export const BACKLINK_DOC_MAX_CHARS = 100_000;

/** Creates the tables, and adds what an index written by an earlier build of them lacks. */
export function createBacklinkTables(db: Database.Database): void {
  db.exec(BACKLINK_SCHEMA);
  const columns = db.prepare("SELECT name FROM pragma_table_info('link_texts')").pluck().all() as string[];
  if (!columns.includes("markdown")) db.exec("ALTER TABLE link_texts ADD COLUMN markdown INTEGER NOT NULL DEFAULT 0");
  // an index written before display texts has none until its notes are indexed again
  if (!columns.includes("display")) db.exec("ALTER TABLE link_texts ADD COLUMN display TEXT");
}

/** Whether an index has the tables (an index written before them, opened read-only, has not). */
export function hasBacklinks(db: Database.Database): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'backlink_fts'").pluck().get();
}

/**
 * Replaces the links out of each note (none when `links` is absent) and re-files the backlink
 * text of every note they pointed or now point to; with `later`, those notes are recorded in
 * `backlink_stale` and re-filed by the next {@link relink} instead (an indexing run's keyword
 * phase: a note linked from every batch is re-filed once, not once a batch, which took 17 of the
 * 95 s of CPU of 100,000 generated notes). `resolvedBy`: the {@link relink} key the links were
 * resolved by; when every stored link was resolved by it too (or none is stored), the next relink
 * with that key resolves none again. Runs inside the caller's transaction.
 */
export function writeLinks(
  db: Database.Database,
  notes: { source: string; links?: readonly NoteLink[] }[],
  later = false,
  resolvedBy?: string,
): void {
  const keyOf = db.prepare("SELECT value FROM meta WHERE key = ?").pluck();
  const resolved =
    resolvedBy !== undefined &&
    (keyOf.get(LINKS_KEY) === resolvedBy || !db.prepare("SELECT 1 FROM link_texts LIMIT 1").get());
  const touched = new Set<string>();
  // one look-up a note: a note with no links stored (a new one) needs no delete
  const old = db.prepare("SELECT target FROM link_texts WHERE source = ?").pluck();
  const del = db.prepare("DELETE FROM link_texts WHERE source = ?");
  const ins = db.prepare(
    "INSERT INTO link_texts (source, written, markdown, target, text, display) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (const { source, links } of notes) {
    const was = old.all(source) as (string | null)[];
    for (const t of was) if (t !== null) touched.add(t);
    if (was.length) del.run(source);
    for (const l of links ?? []) {
      // a note's words about itself say nothing new about it
      const target = l.target === source ? null : (l.target ?? null);
      ins.run(source, l.written, l.markdown ? 1 : 0, target, l.text, l.display ?? null);
      if (target) touched.add(target);
    }
  }
  if (later) {
    const stale = db.prepare("INSERT OR IGNORE INTO backlink_stale (path) VALUES (?)");
    for (const t of touched) stale.run(t);
  } else refile(db, touched);
  // links were written with what their writer knew of the notes: the next relink checks them all
  // (so an interrupted run that saw other notes leaves nothing resolved against them), unless all
  // of them were resolved against the notes it is given
  if (resolved) setLinksKey(db, resolvedBy);
  else db.prepare("DELETE FROM meta WHERE key = ?").run(LINKS_KEY);
}

function setLinksKey(db: Database.Database, key: string): void {
  db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    LINKS_KEY,
    key,
  );
}

/**
 * Re-resolves every stored link against the vault's notes unless the last call had the same `key`
 * (which names the set of notes, e.g. a hash of their paths) and no links were written since: a
 * note created after the notes that link to it gets their text now. Re-files the notes it moved
 * links of, and those left in `backlink_stale`. Returns whether it re-resolved. Runs inside the
 * caller's transaction.
 */
export function relink(
  db: Database.Database,
  key: string,
  resolve: (link: NoteLink, source: string) => string | undefined,
): boolean {
  const was = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(LINKS_KEY);
  const touched = new Set(db.prepare("SELECT path FROM backlink_stale").pluck().all() as string[]);
  if (touched.size) db.prepare("DELETE FROM backlink_stale").run();
  if (was === key) {
    refile(db, touched);
    return false;
  }
  const rows = db.prepare(`SELECT rowid, ${LINK_COLUMNS} FROM link_texts`).all() as (LinkRow & { rowid: number })[];
  const set = db.prepare("UPDATE link_texts SET target = ? WHERE rowid = ?");
  for (const r of rows) {
    const found = resolve(linkOf(r), r.source);
    const next = found === undefined || found === r.source ? null : found;
    if (next === r.target) continue;
    set.run(next, r.rowid);
    if (r.target) touched.add(r.target);
    if (next) touched.add(next);
  }
  refile(db, touched);
  setLinksKey(db, key);
  return true;
}

/** Every note's links out, as {@link writeLinks} was given them (for `migrate`). */
export function readLinks(db: Database.Database): Map<string, NoteLink[]> {
  const out = new Map<string, NoteLink[]>();
  for (const r of db.prepare(`SELECT ${LINK_COLUMNS} FROM link_texts ORDER BY rowid`).all() as LinkRow[]) {
    let list = out.get(r.source);
    if (!list) out.set(r.source, (list = []));
    list.push(linkOf(r));
  }
  return out;
}

/**
 * `check --repair`: drops the links of notes the index no longer holds (the next index writes them
 * again) and rebuilds every note's backlink document from the rows that are left.
 */
export function rebuildBacklinks(db: Database.Database): void {
  db.prepare("DELETE FROM link_texts WHERE source NOT IN (SELECT path FROM notes)").run();
  db.prepare("DELETE FROM backlink_fts").run();
  db.prepare("DELETE FROM backlink_notes").run();
  db.prepare("DELETE FROM backlink_stale").run();
  refile(
    db,
    new Set(db.prepare("SELECT DISTINCT target FROM link_texts WHERE target IS NOT NULL").pluck().all() as string[]),
  );
}

/** A `link_texts` row as read. */
interface LinkRow {
  source: string;
  written: string;
  markdown: number;
  target: string | null;
  text: string;
  display: string | null;
}
const LINK_COLUMNS = "source, written, markdown, target, text, display";

function linkOf(r: LinkRow): NoteLink {
  return {
    written: r.written,
    ...(r.target ? { target: r.target } : {}),
    text: r.text,
    ...(r.display ? { display: r.display } : {}),
    ...(r.markdown ? { markdown: true as const } : {}),
  };
}

/** Most notes {@link linkNames} is asked about at once (SQLite's bound parameters). */
const LINK_NAMES_BATCH = 500;

/**
 * The display texts of the links that resolve to each of `paths` from other notes, each once per
 * note (`PCA` for a note every link names `[[Principle Component Analysis|PCA]]`); a note no link
 * names has no entry.
 */
export function linkNames(db: Database.Database, paths: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < paths.length; i += LINK_NAMES_BATCH) {
    const batch = [...new Set(paths.slice(i, i + LINK_NAMES_BATCH))];
    const rows = db
      .prepare(
        `SELECT DISTINCT target, display FROM link_texts WHERE display IS NOT NULL AND target IN (${batch.map(() => "?").join(", ")})`,
      )
      .all(...batch) as { target: string; display: string }[];
    for (const r of rows) {
      let names = out.get(r.target);
      if (!names) out.set(r.target, (names = []));
      names.push(r.display);
    }
  }
  return out;
}

/**
 * The part of a keyword query that scores backlink text: every chunk of a note whose backlink
 * document matches, at `weight` × that document's BM25 (negative, as FTS5 gives it: lower is
 * better), marked `b` = 1. Its two parameters are the weight and the FTS5 match expression.
 */
export const backlinkMatch = `SELECT c.rowid AS r, ? * bm25(backlink_fts) AS d, 1 AS b FROM backlink_fts
          JOIN backlink_notes b ON b.rowid = backlink_fts.rowid JOIN chunks c ON c.path = b.path WHERE backlink_fts MATCH ?`;

/** Rebuilds the backlink document of each note in `targets` from the link rows that resolve to it. */
function refile(db: Database.Database, targets: Set<string>): void {
  if (!targets.size) return;
  const idOf = db.prepare("SELECT rowid FROM backlink_notes WHERE path = ?").pluck();
  // each linking note's first sentence before any note's second: one note of many links to this
  // one cannot fill the document alone
  const texts = db
    .prepare(
      "SELECT text FROM link_texts WHERE target = ? ORDER BY row_number() OVER (PARTITION BY source ORDER BY rowid), rowid",
    )
    .pluck();
  const delDoc = db.prepare("DELETE FROM backlink_fts WHERE rowid = ?");
  const delNote = db.prepare("DELETE FROM backlink_notes WHERE rowid = ?");
  const insNote = db.prepare("INSERT INTO backlink_notes (path) VALUES (?)");
  const insDoc = db.prepare("INSERT INTO backlink_fts (rowid, text) VALUES (?, vr_fts(?))");
  for (const t of targets) {
    let id = idOf.get(t) as number | undefined;
    if (id !== undefined) delDoc.run(id);
    let text = "";
    for (const one of texts.iterate(t) as Iterable<string>) {
      if (text.length + one.length + 1 > BACKLINK_DOC_MAX_CHARS) break;
      text += (text ? "\n" : "") + one;
    }
    if (!text) {
      if (id !== undefined) delNote.run(id);
      continue;
    }
    if (id === undefined) id = Number(insNote.run(t).lastInsertRowid);
    insDoc.run(id, text);
  }
}
