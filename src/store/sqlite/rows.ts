import type { RecordMetadata } from "../fields.js";
import type { QueryFilter } from "../types.js";
import { compileDocument, compileWhere, decodeList, type SqlCondition } from "./compile.js";
import { readProps } from "../../props.js";

/** The chunks columns a record is read from, over `chunks c`. */
export const COLUMNS =
  "c.id, c.path, c.title, c.section, c.folder, c.top_folder, c.mtime, c.date, c.date_source, c.word_count, c.ordinal, c.start_line, c.end_line, c.tags, c.links, c.aliases, c.props, c.hash, c.text, c.file_type, c.page";

/** A chunks row: the metadata with list fields still encoded, plus text and query extras. */
export type Row = Omit<RecordMetadata, "tags" | "links" | "aliases" | "props" | "file_type" | "page"> & {
  file_type: string;
  page: number;
  id: string;
  props: string;
  tags: string;
  links: string;
  aliases: string;
  text: string;
  d?: number;
  /** 1 when the note's backlink text matched (keyword queries). */
  b?: number;
};

export { blobToVector, vectorToBlob } from "./vector-blob.js";

/**
 * A query's filter as SQL over `chunks c`: its where and whereDocument clauses.
 *
 * @example
 * ```ts
 * const cond = filterSql({ where: normaliseWhere({ folder: "work" }) });
 * db.prepare(`SELECT c.rowid FROM chunks c WHERE ${cond.sql}`).all(...cond.params);
 * ```
 */
export function filterSql(filter: QueryFilter): SqlCondition {
  const parts: SqlCondition[] = [];
  if (filter.where) parts.push(compileWhere(filter.where));
  if (filter.whereDocument) parts.push(compileDocument(filter.whereDocument));
  return { sql: parts.map((p) => p.sql).join(" AND "), params: parts.flatMap((p) => p.params) };
}

/**
 * A row's metadata, its list fields decoded and the query extras (`d`, `b`, `rid`) left out. Each
 * field is named: copying a row with rest and spread cost 20 µs a row, 10 times as much (a search
 * reads 600 rows).
 *
 * @example
 * ```ts
 * const meta = rowMeta(db.prepare(`SELECT ${COLUMNS} FROM chunks c LIMIT 1`).get() as Row);
 * ```
 */
export function rowMeta(r: Row): RecordMetadata {
  return {
    path: r.path,
    title: r.title,
    section: r.section,
    folder: r.folder,
    top_folder: r.top_folder,
    mtime: r.mtime,
    date: r.date,
    date_source: r.date_source,
    word_count: r.word_count,
    ordinal: r.ordinal,
    start_line: r.start_line,
    end_line: r.end_line,
    tags: decodeList(r.tags),
    links: decodeList(r.links),
    aliases: decodeList(r.aliases),
    props: readProps(r.props),
    hash: r.hash,
    // a note's passage reads as it was written: no type, no page
    ...(r.file_type && r.file_type !== "note" ? { file_type: r.file_type } : {}),
    ...(r.page ? { page: r.page } : {}),
  };
}
