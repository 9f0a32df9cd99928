import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** What the thread read: the generation it read at, and one pooled row per chunk, as `pooledRows` makes them. */
export interface PooledRows {
  generation: string;
  rowids: Int32Array;
  matrix: Float32Array;
  dims: number;
}

/**
 * The thread's code: plain CommonJS over Node's own modules and better-sqlite3, so that it runs the
 * same from the built files and from the sources under test. It reads as `pooledRows`
 * (dense-query.ts) does, decodes as vector-blob.ts does and pools as `pooledVector` (windows.ts)
 * does, operation for operation, so that its rows are the same bits (a test compares them).
 */
const SOURCE = `
const { workerData: w, parentPort } = require("node:worker_threads");
try {
  const Database = require(w.sqlite);
  const db = new Database(w.file, { readonly: true, fileMustExist: true, timeout: w.timeout });
  try {
    const table = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const e = (h >>> 10) & 0x1f;
      const m = h & 0x3ff;
      table[h] = e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
    }
    const decode = (b) => {
      if (b.byteLength % 4 !== 2) {
        const out = new Float32Array(b.byteLength / 4);
        new Uint8Array(out.buffer).set(b);
        return out;
      }
      const dims = (b.byteLength - 2) / 2;
      const out = new Float32Array(dims);
      const halves = b.byteOffset % 2 === 0 ? new Uint16Array(b.buffer, b.byteOffset, dims) : new Uint16Array(new Uint8Array(b.subarray(0, dims * 2)).buffer);
      for (let i = 0; i < dims; i++) out[i] = table[halves[i]];
      return out;
    };
    const pooled = (windows) => {
      if (windows.length === 1) return windows[0];
      const out = new Float32Array(windows[0] ? windows[0].length : 0);
      for (const v of windows) for (let j = 0; j < out.length; j++) out[j] += v[j];
      let n = 0;
      for (let j = 0; j < out.length; j++) n += out[j] * out[j];
      n = Math.sqrt(n) || 1;
      for (let j = 0; j < out.length; j++) out[j] /= n;
      return out;
    };
    db.exec("BEGIN");
    const generation = (db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? "0").toString();
    const count = db.prepare("SELECT count(DISTINCT chunk) AS n FROM windows WHERE length(vector) > 0").get().n;
    if (count > w.limit) {
      db.exec("COMMIT");
      parentPort.postMessage({ tooLarge: true });
    } else {
      const manifest = db.prepare("SELECT value FROM meta WHERE key = 'manifest'").pluck().get();
      let dims = (manifest && JSON.parse(manifest).embedder && JSON.parse(manifest).embedder.dimensions) || 0;
      let rowids = new Int32Array(count);
      let matrix = new Float32Array(0);
      let size = 0;
      let chunk = -1;
      let group = [];
      const flush = () => {
        if (!group.length) return;
        rowids[size] = chunk;
        matrix.set(pooled(group).subarray(0, dims), size * dims);
        size++;
        group = [];
      };
      for (const [c, blob] of db.prepare("SELECT chunk, vector FROM windows WHERE length(vector) > 0 ORDER BY chunk, rowid").raw().iterate()) {
        if (c !== chunk) flush();
        const vector = decode(blob);
        if (!size && !group.length) {
          dims = vector.length;
          matrix = new Float32Array(count * dims);
        }
        chunk = c;
        group.push(vector);
      }
      flush();
      db.exec("COMMIT");
      if (size < count) [rowids, matrix] = [rowids.slice(0, size), matrix.slice(0, size * dims)];
      parentPort.postMessage({ generation, rowids, matrix, dims }, [rowids.buffer, matrix.buffer]);
    }
  } finally {
    db.close();
  }
} catch (err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}
`;

/** better-sqlite3's entry, as the thread requires it. */
let sqlitePath: string | undefined;

/**
 * Pools a small index's windows into its dense rows on a thread of its own, with a read-only
 * connection of its own, while the caller's thread goes on: an index of up to `limit` passages has
 * no snapshot, and pooling til's 6,331 windows took about a quarter of a second on a loaded
 * machine. Resolves `undefined` when the index holds more than `limit` passages, no thread could
 * start, or the file could not be read there (the caller builds the rows itself). The caller
 * checks the generation the rows were read at.
 *
 * @example
 * ```ts
 * const rows = await poolOffThread("/v/.vault-rag/index.db", 5000, 10_000);
 * ```
 */
export function poolOffThread(file: string, limit: number, timeout: number): Promise<PooledRows | undefined> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      sqlitePath ??= createRequire(import.meta.url).resolve("better-sqlite3");
      worker = new Worker(SOURCE, { eval: true, workerData: { file, limit, timeout, sqlite: sqlitePath } });
    } catch {
      return resolve(undefined);
    }
    // resolved once the thread has ended, its connection closed: the caller's connection, closed
    // after, is then the file's last and checkpoints the WAL into it, as it does without a thread
    // (the thread keeps the process alive until then: it ends when its rows are read)
    let got: PooledRows | undefined;
    worker.once("message", (m: Partial<PooledRows> & { error?: string; tooLarge?: boolean }) => {
      if (m.generation !== undefined && m.rowids && m.matrix && m.dims !== undefined)
        got = { generation: m.generation, rowids: m.rowids, matrix: m.matrix, dims: m.dims };
    });
    worker.once("error", () => resolve(undefined));
    worker.once("exit", () => resolve(got));
  });
}
