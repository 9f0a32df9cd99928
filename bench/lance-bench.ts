/**
 * The LanceDB peer of the store bench (`BENCH_ONLY=store npm run bench`): the same records and
 * queries, inserted in batches of 2,000 into a local LanceDB 0.31 table (no vector index: an exact
 * scan, as LanceDB answers a table of this size without one), its folder's bytes on disk, the time
 * from a new connection to its first answer, and dense query p50s unfiltered and filtered.
 * Skipped, and said so, where `@lancedb/lancedb` is not installed (a dev dependency).
 */
import fs from "node:fs";
import path from "node:path";
import type { StoreRecord } from "../dist/store/index.js";

export interface PeerFigures {
  insertS: number;
  /** Bytes of the table's folder. */
  bytes: number;
  /** A new connection to its first dense answer, ms. */
  openMs: number;
  unf: number[];
  ten: number[];
  tag: number[];
  recall: number;
}

/** Bytes of every file under a folder. */
export function folderBytes(dir: string): number {
  let sum = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    sum += e.isDirectory() ? folderBytes(p) : fs.statSync(p).size;
  }
  return sum;
}

/**
 * The ids of the `k` records nearest a query by cosine distance, read exactly (each record's one
 * window): what recall@k is measured against.
 *
 * @example
 * ```ts
 * exactTop(records, query, 10); // ["n17", "n3", …]
 * ```
 */
export function exactTop(records: StoreRecord[], q: Float32Array, k: number): string[] {
  return records
    .map((x) => ({ id: x.id, d: 1 - x.windows[0].vector.reduce((s, v, i) => s + v * q[i], 0) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, k)
    .map((x) => x.id);
}

/**
 * Milliseconds of each query, after one untimed query that warms up what it touches.
 *
 * @example
 * ```ts
 * const ms = await timeQueries(queries, (q) => store.queryDense(q, 18));
 * ```
 */
export async function timeQueries(queries: Float32Array[], fn: (q: Float32Array) => unknown): Promise<number[]> {
  await fn(queries[0]);
  const out: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await fn(q);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Measures LanceDB on the bench's records; `undefined` when the package is not installed.
 *
 * @example
 * ```ts
 * const lance = await lanceBench(data, path.join(work, "lance-100000"));
 * ```
 */
export async function lanceBench(
  data: { notes: { records: StoreRecord[] }[]; queries: Float32Array[] },
  dir: string,
): Promise<PeerFigures | undefined> {
  let lancedb: typeof import("@lancedb/lancedb");
  try {
    lancedb = await import("@lancedb/lancedb");
  } catch {
    return undefined;
  }
  const row = (r: StoreRecord) => ({
    id: r.id,
    path: r.meta.path,
    folder: r.meta.folder,
    tag: r.meta.tags[0] ?? "",
    text: r.text,
    vector: Array.from(r.windows[0].vector),
  });
  fs.rmSync(dir, { recursive: true, force: true });
  const db = await lancedb.connect(dir);
  const t0 = performance.now();
  let table: Awaited<ReturnType<typeof db.createTable>> | undefined;
  for (let i = 0; i < data.notes.length; i += 2000) {
    const rows = data.notes.slice(i, i + 2000).map((n) => row(n.records[0]));
    if (!table) table = await db.createTable("bench", rows);
    else await table.add(rows);
  }
  const insertS = (performance.now() - t0) / 1000;
  table!.close();
  db.close();
  const bytes = folderBytes(dir);
  // a new connection, as a new process would open it, to its first answer
  const t1 = performance.now();
  const db2 = await lancedb.connect(dir);
  const t2 = await db2.openTable("bench");
  const search = (q: Float32Array, k: number, where?: string) => {
    const query = t2.vectorSearch(Array.from(q)).distanceType("cosine").limit(k);
    return (where ? query.where(where) : query).toArray();
  };
  await search(data.queries[0], 18);
  const openMs = performance.now() - t1;
  const time = (fn: (q: Float32Array) => Promise<unknown>) => timeQueries(data.queries, fn);
  const unf = await time((q) => search(q, 18));
  const ten = await time((q) => search(q, 18, "folder = 'f3'"));
  const tag = await time((q) => search(q, 18, "tag = 'pico'"));
  let recall = 0;
  const all = data.notes.map((b) => b.records[0]);
  for (const q of data.queries.slice(0, 20)) {
    const exact = exactTop(all, q, 10);
    const got = new Set(((await search(q, 10)) as { id: string }[]).map((x) => x.id));
    recall += exact.filter((id) => got.has(id)).length / 10;
  }
  t2.close();
  db2.close();
  return { insertS, bytes, openMs, unf, ten, tag, recall: recall / 20 };
}
