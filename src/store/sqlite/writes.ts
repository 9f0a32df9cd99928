import type Database from "better-sqlite3";
import { VaultRagError } from "../../errors.js";
import type { NoteEntry, NoteLink, StoreRecord, UpsertOptions } from "../types.js";
import { checkWindows } from "../windows.js";
import { decodeList, encodeList } from "./compile.js";
import { writeLinks } from "./backlinks.js";
import { ftsNames, ftsText, passageLanguage, recordLanguages } from "./fts-text.js";
import { KEYWORD_FIELDS, WITH_LANGUAGE } from "./ddl.js";
import { keptLinkNames, linkNamesWriter } from "./link-names.js";
import { damaged, diskFull, isCorruption, readOnly } from "./errors.js";
import { readGeneration, readManifest } from "./meta.js";
import { vectorToBlob } from "./rows.js";
import { ON_FULL_DISK } from "./read-only.js";

/** A write lock taken by {@link holdWrite}: `rollback` after `commit` does nothing. */
export interface HeldWrite {
  commit(): void;
  rollback(): void;
}

/**
 * Runs a write transaction and bumps the generation so readers reload their dense index. A full
 * disk, a read-only file and a damaged one become one-line errors naming `file`.
 *
 * @example
 * ```ts
 * writeTransaction(db, "/v/.vault-rag/index.db", () => db.prepare("DELETE FROM notes WHERE path = ?").run(p));
 * ```
 */
export function writeTransaction(db: Database.Database, file: string, fn: () => void, bumpGeneration = true): void {
  const bump = db.prepare(
    "INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
  );
  try {
    db.transaction(() => {
      const before = readGeneration(db);
      fn();
      if (!bumpGeneration) return;
      bump.run();
      // every write of this build keeps link_names beside the chunks
      keptLinkNames(db, before);
    }).immediate();
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === "SQLITE_FULL") throw diskFull(file);
    if (e.code === "SQLITE_READONLY" || e.code === "SQLITE_READONLY_DBMOVED")
      throw ON_FULL_DISK.has(db) ? diskFull(file) : readOnly(file);
    if (isCorruption(e)) throw damaged(file, e);
    throw err;
  }
}

/** Removes a note's passages: their link names, keyword rows, windows and chunks, in that order. */
function noteDropper(db: Database.Database, linkNames = linkNamesWriter(db)): (path: string) => void {
  // external-content FTS: removing a row means telling FTS5 the values it indexed
  const delFts = db.prepare(
    `INSERT INTO fts (fts, rowid, title, aliases, section, text) SELECT 'delete', rowid, ${KEYWORD_FIELDS} FROM (${WITH_LANGUAGE} WHERE path = ?)`,
  );
  const delVectors = db.prepare("DELETE FROM windows WHERE chunk IN (SELECT rowid FROM chunks WHERE path = ?)");
  const delChunks = db.prepare("DELETE FROM chunks WHERE path = ?");
  return (path) => {
    linkNames.drop(path); // found by the links its passages hold: before they go
    delFts.run(path);
    delVectors.run(path);
    delChunks.run(path);
  };
}

/**
 * Replaces each note's chunks, windows, keyword rows and links with the batch's, in one write.
 * `windowCache`: the Chroma sidecar, whose records need not carry windows of the manifest's size.
 *
 * @example
 * ```ts
 * upsertNotes(db, file, false, [{ note, records, links }], { backlinksLater: true });
 * ```
 */
export function upsertNotes(
  db: Database.Database,
  file: string,
  windowCache: boolean,
  batch: { note: NoteEntry; records: StoreRecord[]; links?: NoteLink[] }[],
  options: UpsertOptions = {},
): void {
  const linkNames = linkNamesWriter(db);
  const dropNote = noteDropper(db, linkNames);
  const ins = db.prepare(
    `INSERT INTO chunks (id, path, title, section, folder, top_folder, mtime, date, date_source, word_count, ordinal, start_line, end_line, tags, links, aliases, props, hash, text, file_type, page)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insWindow = db.prepare("INSERT INTO windows (chunk, hash, vector) VALUES (?, ?, ?)");
  const dims = readManifest(db)?.embedder.dimensions;
  const known = db.prepare("SELECT 1 FROM chunks WHERE path = ? LIMIT 1").pluck();
  // the fields' indexed text (vr_fts) made here: a note's passages share its title and aliases, and
  // most of its sections, so each is made once
  const insFts = db.prepare("INSERT INTO fts (rowid, title, aliases, section, text) VALUES (?, ?, ?, ?, ?)");
  const title = lastOf(ftsText);
  const aliasesFts = lastOf(ftsNames);
  const section = lastOf(ftsText);
  const upNote = db.prepare(
    "INSERT INTO notes (path, hash, mtime, size) VALUES (?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, mtime = excluded.mtime, size = excluded.size",
  );
  writeTransaction(db, file, () => {
    for (const { note, records } of batch) {
      if (known.get(note.path)) dropNote(note.path);
      // the note's links, each once, as its passages hold them
      const links = new Set<string>();
      for (const r of records) {
        const m = r.meta;
        if (!windowCache) checkWindows(r, dims);
        const aliases = encodeList(m.aliases);
        const linksList = encodeList(m.links);
        for (const l of decodeList(linksList)) links.add(l);
        const info = ins.run(
          r.id,
          m.path,
          m.title,
          m.section,
          m.folder,
          m.top_folder,
          m.mtime,
          m.date,
          m.date_source,
          m.word_count,
          m.ordinal,
          m.start_line,
          m.end_line,
          encodeList(m.tags),
          linksList,
          aliases,
          JSON.stringify(m.props ?? {}),
          m.hash,
          r.text,
          m.file_type ?? "note",
          m.page ?? 0,
        );
        // a full store keeps its windows for dense queries, the sidecar as a cache: both keep them
        for (const w of r.windows) insWindow.run(info.lastInsertRowid, w.hash, vectorToBlob(w.vector));
        // each passage's words stemmed by its language (fts-text.ts)
        const lang = passageLanguage(m.title, m.section, r.text);
        insFts.run(
          info.lastInsertRowid,
          title(m.title, lang),
          aliasesFts(m.title, aliases, lang),
          section(m.section, lang),
          ftsText(r.text, lang),
        );
      }
      linkNames.add(note.path, links);
      upNote.run(note.path, note.hash, note.mtime, note.size);
    }
    writeLinks(
      db,
      batch.map((b) => ({ source: b.note.path, links: b.links })),
      options.backlinksLater,
      options.linksResolvedBy,
    );
    recordLanguages(db);
  });
}

/** `fn` remembering its last argument and answer: a run of equal arguments costs one call. */
function lastOf<A extends unknown[]>(fn: (...args: A) => string): (...args: A) => string {
  let last: A | undefined;
  let out = "";
  return (...args) => {
    if (!last || args.some((a, i) => a !== last![i])) [last, out] = [args, fn(...args)];
    return out;
  };
}

/**
 * Deletes the notes at `paths` with their chunks, windows, keyword rows and links, in one write.
 *
 * @example
 * ```ts
 * deleteNotes(db, file, ["old/gone.md"]);
 * ```
 */
export function deleteNotes(db: Database.Database, file: string, paths: string[]): void {
  const dropNote = noteDropper(db);
  const delNote = db.prepare("DELETE FROM notes WHERE path = ?");
  writeTransaction(db, file, () => {
    for (const p of paths) {
      dropNote(p);
      delNote.run(p);
    }
    writeLinks(
      db,
      paths.map((source) => ({ source })),
    );
  });
}

/**
 * Takes the file's write lock for asynchronous work, waiting the busy timeout for another
 * connection's; fails with `index_locked` when it stays taken (see {@link SqliteStore.holdWrite}).
 *
 * @example
 * ```ts
 * const held = holdWrite(db, file);
 * try { await work(); held.commit(); } finally { held.rollback(); }
 * ```
 */
export function holdWrite(db: Database.Database, file: string): HeldWrite {
  const held = beginHeld(db, true);
  if (!held)
    throw new VaultRagError(
      "index_locked",
      `vault-rag: ${file} stayed locked by another process for ${busyTimeout(db) / 1000} s (a rebuild of Chroma's keyword index from the server) — run again when it is done`,
    );
  return held;
}

function busyTimeout(db: Database.Database): number {
  return db.pragma("busy_timeout", { simple: true }) as number;
}

/**
 * `BEGIN IMMEDIATE`, waiting the busy timeout or not at all; `undefined` when the lock stayed taken.
 *
 * @example
 * ```ts
 * const held = beginHeld(db, false);
 * if (!held) return; // a writer is at work
 * ```
 */
export function beginHeld(db: Database.Database, wait: boolean): HeldWrite | undefined {
  const timeout = busyTimeout(db);
  if (!wait) db.pragma("busy_timeout = 0");
  try {
    db.exec("BEGIN IMMEDIATE");
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_BUSY") return undefined;
    throw err;
  } finally {
    if (!wait) db.pragma(`busy_timeout = ${timeout}`);
  }
  const end = (sql: string) => () => {
    if (db.inTransaction) db.exec(sql);
  };
  return { commit: end("COMMIT"), rollback: end("ROLLBACK") };
}
