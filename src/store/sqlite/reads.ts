import type Database from "better-sqlite3";
import type { Props } from "../../props.js";
import type { NoteEntry, NoteProperties, StoreRecord } from "../types.js";
import { decodeList } from "./compile.js";
import { WINDOW_HASH_CHARS, WINDOW_HASH_PREFIX } from "./ddl.js";
import { linkNamesCurrent, linksAbout } from "./link-names.js";
import { readManifest } from "./meta.js";
import { readProps } from "../../props.js";
import { blobToVector, COLUMNS, rowMeta, type Row } from "./rows.js";

/**
 * Every note the index holds, by path; with `paths`, only those of them it holds.
 *
 * @example
 * ```ts
 * readNotes(db).get("notes/pico.md")?.hash;
 * readNotes(db, ["notes/pico.md"]).size; // 1
 * ```
 */
export function readNotes(db: Database.Database, paths?: readonly string[]): Map<string, NoteEntry> {
  const out = new Map<string, NoteEntry>();
  if (paths) {
    const one = db.prepare("SELECT path, hash, mtime, size FROM notes WHERE path = ?");
    for (const p of paths) {
      const r = one.get(p) as NoteEntry | undefined;
      if (r) out.set(r.path, r);
    }
    return out;
  }
  for (const r of db.prepare("SELECT path, hash, mtime, size FROM notes").all() as NoteEntry[]) out.set(r.path, r);
  return out;
}

/**
 * The records with these ids, of one note (in order), or all of them; with their window vectors
 * when asked and the store keeps them for queries (not `windowCache`).
 *
 * @example
 * ```ts
 * getRecords(db, false, { path: "notes/pico.md" }); // the note's chunks, in order
 * ```
 */
export function getRecords(
  db: Database.Database,
  windowCache: boolean,
  query: { ids?: string[]; path?: string; includeVectors?: boolean },
): StoreRecord[] {
  const cols = `c.rowid AS rid, ${COLUMNS}`;
  let rows: (Row & { rid: number })[];
  if (query.ids) {
    const stmt = db.prepare(`SELECT ${cols} FROM chunks c WHERE c.id = ?`);
    rows = query.ids
      .map((id) => stmt.get(id) as (Row & { rid: number }) | undefined)
      .filter((r): r is Row & { rid: number } => !!r);
  } else if (query.path !== undefined) {
    rows = db.prepare(`SELECT ${cols} FROM chunks c WHERE c.path = ? ORDER BY c.ordinal`).all(query.path) as (Row & {
      rid: number;
    })[];
  } else {
    rows = db.prepare(`SELECT ${cols} FROM chunks c ORDER BY c.path, c.ordinal`).all() as (Row & {
      rid: number;
    })[];
  }
  const windows =
    query.includeVectors && !windowCache
      ? db.prepare("SELECT hash, vector FROM windows WHERE chunk = ? ORDER BY rowid")
      : undefined;
  return rows.map((r) => ({
    id: r.id,
    text: r.text,
    meta: rowMeta(r),
    windows: windows
      ? (windows.all(r.rid) as { hash: string; vector: Buffer }[]).map((w) => ({
          hash: w.hash,
          vector: blobToVector(w.vector),
        }))
      : [],
  }));
}

/**
 * Every tag with the number of notes that carry it, most used first.
 *
 * @example
 * ```ts
 * listTags(db); // [{ tag: "pico", notes: 12 }, …]
 * ```
 */
export function listTags(db: Database.Database): { tag: string; notes: number }[] {
  const counts = new Map<string, Set<string>>();
  for (const r of db.prepare("SELECT DISTINCT path, tags FROM chunks WHERE tags != ''").all() as {
    path: string;
    tags: string;
  }[]) {
    for (const t of decodeList(r.tags)) {
      let s = counts.get(t);
      if (!s) counts.set(t, (s = new Set()));
      s.add(r.path);
    }
  }
  return [...counts]
    .map(([tag, s]) => ({ tag, notes: s.size }))
    .sort((a, b) => b.notes - a.notes || a.tag.localeCompare(b.tag));
}

/**
 * Each note's properties and the source of its date, in path order.
 *
 * @example
 * ```ts
 * noteProperties(db); // [{ path: "a.md", date: 1773446400, dateSource: "updated", props: { status: "draft" } }]
 * ```
 */
export function noteProperties(db: Database.Database): NoteProperties[] {
  // every passage of a note carries the same: any one row of each path will do
  const rows = db
    .prepare("SELECT path, date, date_source, props FROM chunks GROUP BY path ORDER BY path")
    .raw()
    .all() as [string, number, string, string][];
  const read = new Map<string, Props>();
  return rows.map(([path, date, dateSource, json]) => {
    let props = read.get(json);
    if (!props) read.set(json, (props = readProps(json)));
    return { path, date, dateSource, props };
  });
}

/**
 * The links out of each note that has any, as written; with `about`, only the notes whose links could
 * name that note, and the note itself (see `Store.noteLinks`): through `link_names` where the index
 * has it, else by a read of every passage's links, narrowed by SQLite when the name is ASCII.
 *
 * @example
 * ```ts
 * noteLinks(db); // [{ path: "a.md", links: ["b", "c"] }]
 * ```
 */
export function noteLinks(
  db: Database.Database,
  about?: { path: string; name: string },
): { path: string; links: string[] }[] {
  if (about && linkNamesCurrent(db)) return linksAbout(db, about);
  // an index written without link_names (or by a build that left it behind), opened read-only
  if (about && !/^[\x20-\x7e]+$/.test(about.name)) about = undefined;
  const byNote = new Map<string, Set<string>>();
  // with `about`, the rows whose links can name it are picked before DISTINCT sorts them: SQLite's
  // lower() folds ASCII letters only, so the name is compared in ASCII case, and a link with the
  // one other letter that JavaScript lowers to ASCII (K, the Kelvin sign, to k) is kept too
  const rows = about
    ? db
        .prepare(
          "SELECT DISTINCT path, links FROM chunks WHERE links != '' AND (path = ? OR instr(lower(links), ?) > 0 OR instr(lower(links), 'index') > 0 OR instr(links, char(8490)) > 0)",
        )
        .all(
          about.path,
          about.name.replace(/[A-Z]/g, (c) => c.toLowerCase()),
        )
    : db.prepare("SELECT DISTINCT path, links FROM chunks WHERE links != ''").all();
  for (const r of rows as {
    path: string;
    links: string;
  }[]) {
    let s = byNote.get(r.path);
    if (!s) byNote.set(r.path, (s = new Set()));
    for (const l of decodeList(r.links)) s.add(l);
  }
  return [...byNote].map(([path, links]) => ({ path, links: [...links] }));
}

/**
 * Every folder with the number of notes in it.
 *
 * @example
 * ```ts
 * listFolders(db); // [{ folder: "", notes: 3 }, { folder: "work", notes: 9 }]
 * ```
 */
export function listFolders(db: Database.Database): { folder: string; notes: number }[] {
  // every note the index holds, as `status` counts them: a note with no text has no chunk but is
  // in its folder. The folder is the path up to its last "/" (rtrim drops the file name's
  // characters, which hold no "/"), as noteFolder makes a chunk's `folder`
  return db
    .prepare(
      "SELECT rtrim(rtrim(path, replace(path, '/', '')), '/') folder, count(*) notes FROM notes GROUP BY folder ORDER BY folder",
    )
    .all() as { folder: string; notes: number }[];
}

/**
 * Vectors already stored for these window-text hashes (see {@link SqliteStore.cachedVectors}).
 *
 * @example
 * ```ts
 * cachedVectors(db, false, "local:all-MiniLM-L6-v2", [hash]).get(hash);
 * ```
 */
export function cachedVectors(
  db: Database.Database,
  windowCache: boolean,
  model: string,
  hashes: string[],
): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  // a cache for another store (the Chroma sidecar) leaves the model check to its owner
  const m = readManifest(db);
  if (!windowCache && (!m || `${m.embedder.provider}:${m.embedder.model}` !== model)) return out;
  // by the hash's prefix, as windows are indexed (an index written before has the whole hash's, used too)
  const stmt = db
    .prepare(
      `SELECT vector FROM windows WHERE ${WINDOW_HASH_PREFIX} = substr(@hash, 1, ${WINDOW_HASH_CHARS}) AND hash = @hash LIMIT 1`,
    )
    .pluck();
  for (const h of hashes) {
    const blob = stmt.get({ hash: h }) as Buffer | undefined;
    if (blob) out.set(h, blobToVector(blob));
  }
  return out;
}
