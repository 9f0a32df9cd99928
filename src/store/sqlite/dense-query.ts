import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type Database from "better-sqlite3";
import { writeNewFile } from "../../safe-file.js";
import type { QueryFilter, ScoredRecord } from "../types.js";
import { checkQueryVector, pooledVector } from "../windows.js";
import type { WhereNode } from "../where.js";
import { withDocumentBudget } from "../regex.js";
import { DenseIndex, EXACT_SCAN_LIMIT, type RowSource } from "./dense-index.js";
import { poolOffThread } from "./pool-thread.js";
import { MetaColumns } from "./meta-columns.js";
import { whereRows } from "./where-rows.js";
import type { DocumentRows } from "./document-rows.js";
import { readGeneration, readIndexId, readManifest } from "./meta.js";
import { blobToVector, COLUMNS, filterSql, rowMeta, type Row } from "./rows.js";

/** What a store keeps between dense queries: its in-memory index and metadata columns. */
export interface DenseCache {
  dense?: { generation: string; index: DenseIndex };
  meta?: {
    index: DenseIndex;
    columns: MetaColumns;
    toColumn: Int32Array;
    /** The last `where` filter's rows (see `whereRows`). */
    evaluated?: { key: string; rows: Uint8Array };
  };
}

/**
 * One dense query's hits, from one read transaction: the filters, the vectors and the rows come
 * from one snapshot. A `whereDocument` filter's rows come from `documentRows` when they were tested
 * at this snapshot's generation, else are tested here. Throws `DamagedSnapshotError` when the
 * snapshot held damaged rows (the caller drops `cache.dense` and asks again).
 *
 * @example
 * ```ts
 * const hits = denseRows(db, file, cache, undefined, vector, 6, {});
 * ```
 */
export function denseRows(
  db: Database.Database,
  file: string,
  cache: DenseCache,
  documentRows: DocumentRows | undefined,
  vector: Float32Array,
  k: number,
  filter: QueryFilter,
): ScoredRecord[] {
  return db
    .transaction(() => {
      const index = denseIndex(db, file, cache);
      checkQueryVector(vector, index.size ? index.dims : undefined, file);
      const { where, whereDocument } = filter;
      // rows tested ahead, when they were tested at this snapshot's generation
      const passing = whereDocument ? documentRows?.known(whereDocument) : undefined;
      let allowed: Set<number> | Uint8Array | undefined = passing;
      if (where && (!whereDocument || passing)) {
        const mask = metaMask(db, cache, index, where);
        if (passing) for (let p = 0; p < mask.length; p++) if (mask[p] && !passing.has(index.rowidAt(p))) mask[p] = 0;
        allowed = mask;
      } else if (whereDocument && !passing) {
        // the index changed since they were tested: tested here, within the read, as one statement
        const cond = filterSql(filter);
        allowed = new Set(
          withDocumentBudget(
            () =>
              db
                .prepare(`SELECT c.rowid FROM chunks c WHERE ${cond.sql}`)
                .pluck()
                .all(...cond.params) as number[],
          ),
        );
      }
      const hits = index.search(vector, Math.max(1, Math.floor(k)), allowed);
      if (!hits.length) return [];
      // one statement for all hits (json_each keeps it a single prepared query whatever k is)
      const rows = db
        .prepare(`SELECT c.rowid AS rid, ${COLUMNS} FROM chunks c WHERE c.rowid IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(hits.map((h) => h.rowid))) as (Row & { rid: number })[];
      const byRowid = new Map(rows.map((r) => [r.rid, r]));
      const out: ScoredRecord[] = [];
      for (const h of hits) {
        const r = byRowid.get(h.rowid);
        if (r) out.push({ id: r.id, text: r.text, meta: rowMeta(r), distance: h.distance });
      }
      return out;
    })
    .deferred();
}

/** Evaluates a `where` filter on in-memory metadata columns; a mask over the dense index's positions. */
function metaMask(db: Database.Database, cache: DenseCache, index: DenseIndex, where: WhereNode): Uint8Array {
  if (!cache.meta || cache.meta.index !== index) {
    const columns = new MetaColumns(db);
    // each dense position (a window) points at its chunk's row in the metadata columns
    const toColumn = new Int32Array(index.size);
    for (let p = 0; p < index.size; p++) toColumn[p] = columns.columnOf(index.rowidAt(p));
    cache.meta = { index, columns, toColumn };
  }
  const { toColumn } = cache.meta;
  const rows = whereRows(cache.meta, where);
  const mask = new Uint8Array(index.size);
  for (let p = 0; p < mask.length; p++) if (toColumn[p] >= 0 && rows[toColumn[p]]) mask[p] = 1;
  return mask;
}

/**
 * The in-memory dense index for the current write generation. The store keeps each vector once (its
 * windows, float16); what a scan needs beyond them is derived. An index of up to
 * `EXACT_SCAN_LIMIT` passages is pooled from the windows when first needed (til's 6,331 windows
 * in about 20 ms). A larger one keeps a snapshot (`<db>.vectors`) of what is derived for its int8
 * scan (row ids, norms, the int8 copy), keyed by the index's identity and generation: a cold search
 * reads it instead of every window, and reads from the store only the rows it rescores. A derived
 * cache, never the source of truth — a missing, stale or torn snapshot is ignored and rewritten.
 *
 * @example
 * ```ts
 * db.transaction(() => denseIndex(db, file, cache)).deferred(); // built and snapshotted
 * ```
 */
export function denseIndex(db: Database.Database, file: string, cache: DenseCache): DenseIndex {
  const { generation, key } = snapshotKey(db);
  if (cache.dense && cache.dense.generation === generation) return cache.dense.index;
  const snapshot = `${file}.vectors`;
  let index = DenseIndex.fromFile(snapshot, key, rowSource(db));
  if (!index) {
    const { rowids, matrix, dims } = pooledRows(db);
    index = DenseIndex.fromMatrix(rowids, matrix, dims);
    try {
      const parts = index.toParts(key);
      if (!parts) removeSnapshot(snapshot);
      else {
        // a new file of an unguessable name (a link planted at a predictable one was written through)
        const tmp = `${snapshot}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
        writeNewFile(tmp, parts);
        fs.renameSync(tmp, snapshot);
      }
    } catch {
      // read-only folder or full disk: the snapshot is only a cache
    }
  }
  cache.dense?.index.close();
  cache.dense = { generation, index };
  return index;
}

/** A small index has no snapshot: one an earlier build wrote (with its float rows) goes. */
function removeSnapshot(snapshot: string): void {
  try {
    if (fs.existsSync(snapshot)) fs.rmSync(snapshot, { force: true });
  } catch {
    // a read-only folder: it stays, and is not read (its key is an earlier build's)
  }
}

/** The write generation and the key a snapshot of it carries (the rule that made the rows is part of it). */
function snapshotKey(db: Database.Database): { generation: string; key: string } {
  const generation = readGeneration(db);
  return { generation, key: `${readIndexId(db)}:${generation}:pooled-int8` };
}

/**
 * {@link denseIndex}, with the snapshot read on a thread of its own (`DenseIndex.fromFileOffThread`)
 * while the caller's thread goes on; without a snapshot of the current generation the index is
 * built on the caller's thread (and snapshotted when large), as {@link denseIndex} does. A write
 * during the read leaves the cache at the generation read, which the next query replaces.
 *
 * @example
 * ```ts
 * const loading = loadDenseIndex(db, file, cache); // the keyword query runs meanwhile
 * await loading;
 * ```
 */
export async function loadDenseIndex(db: Database.Database, file: string, cache: DenseCache): Promise<void> {
  const { generation, key } = db.transaction(() => snapshotKey(db)).deferred();
  if (cache.dense?.generation === generation) return;
  const snapshot = `${file}.vectors`;
  let index = await DenseIndex.fromFileOffThread(snapshot, key, rowSource(db));
  if (!index) {
    // a small index (no snapshot) is pooled on a thread of its own; a large one, or rows of another
    // generation, are built here (and a large one snapshotted)
    const rows = await poolOffThread(file, EXACT_SCAN_LIMIT, db.pragma("busy_timeout", { simple: true }) as number);
    if (rows?.generation === generation) {
      index = DenseIndex.fromMatrix(rows.rowids, rows.matrix, rows.dims);
      removeSnapshot(snapshot);
    }
  }
  if (!index) {
    db.transaction(() => denseIndex(db, file, cache)).deferred();
    return;
  }
  if (cache.dense?.generation === generation) return index.close(); // another load came first
  cache.dense?.index.close();
  cache.dense = { generation, index };
}

/**
 * The float rows of a snapshot-backed index, read from the windows: a row id's windows pooled, or
 * every row as {@link pooledRows} reads them. Called inside a query's read transaction, after the
 * generation was checked against the snapshot's (see {@link denseRows}).
 */
function rowSource(db: Database.Database): RowSource {
  let one: Database.Statement | undefined;
  return {
    row(rowid) {
      one ??= db.prepare("SELECT vector FROM windows WHERE chunk = ? AND length(vector) > 0 ORDER BY rowid").pluck();
      const blobs = one.all(rowid) as Buffer[];
      return blobs.length ? pooledVector(blobs.map((b) => ({ vector: blobToVector(b) }))) : undefined;
    },
    all: () => pooledRows(db),
  };
}

/**
 * One row per chunk (its windows' vectors pooled), in chunk order, read from window rows ordered by
 * chunk straight into one matrix: memory is the matrix, whatever the number of rows.
 */
export function pooledRows(db: Database.Database): { rowids: Int32Array; matrix: Float32Array; dims: number } {
  // a passage past its note's window budget has one empty window: no row in the dense index
  const count = (
    db.prepare("SELECT count(DISTINCT chunk) AS n FROM windows WHERE length(vector) > 0").get() as { n: number }
  ).n;
  const windows = db
    .prepare("SELECT chunk, vector FROM windows WHERE length(vector) > 0 ORDER BY chunk, rowid")
    .raw()
    .iterate() as IterableIterator<[number, Buffer]>;
  let dims = readManifest(db)?.embedder.dimensions ?? 0;
  let rowids = new Int32Array(count);
  let matrix = new Float32Array(0);
  let size = 0;
  let chunk = -1;
  let group: { vector: Float32Array }[] = [];
  const flush = () => {
    if (!group.length) return;
    rowids[size] = chunk;
    matrix.set(pooledVector(group).subarray(0, dims), size * dims);
    size++;
    group = [];
  };
  for (const [c, blob] of windows) {
    if (c !== chunk) flush();
    const vector = blobToVector(blob);
    if (!size && !group.length) {
      dims = vector.length; // the vectors' own width, whatever the manifest says
      matrix = new Float32Array(count * dims);
    }
    chunk = c;
    group.push({ vector });
  }
  flush();
  if (size < count) [rowids, matrix] = [rowids.subarray(0, size), matrix.subarray(0, size * dims)];
  return { rowids, matrix, dims };
}
