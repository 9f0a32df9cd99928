import fs from "node:fs";
import { VaultRagError } from "../../errors.js";
import { Int8Matrix } from "./simd-dot.js";
import { selectSmallest } from "./select-smallest.js";
import { readPartsOffThread } from "./snapshot-thread.js";
import {
  crc32,
  crcDigest,
  digest,
  openSnapshot,
  readFully,
  snapshotHeader,
  type OpenSnapshot,
} from "./snapshot-file.js";

/**
 * In-memory dense index over the store's vectors: one row per chunk (its windows pooled, see
 * `pooledVector`). Rows may share a row id; such an id is returned once, at its best distance.
 *
 * - Up to {@link EXACT_SCAN_LIMIT} candidates: an exact float32 cosine scan in JS.
 * - Above: an int8 SIMD scan (WebAssembly, see simd-dot.ts) picks the best
 *   `max(RESCORE_POOL_MIN, k × RESCORE_FACTOR)` candidates, which are rescored exactly in float32.
 *
 * Measured on this 2-core machine at 100,000 × 512-d: SQL `vec_distance_cosine` ≈ 360 ms, sqlite-vec
 * vec0 knn ≈ 120 ms, exact JS scan ≈ 55–70 ms, float32 SIMD ≈ 25 ms (memory-bound), int8 SIMD ≈ 7 ms,
 * which is why sqlite-vec is not a dependency.
 * A sign-bit (Hamming) first stage reaches only recall@10 = 0.67, so none is used; the int8
 * stage's recall is reported by `npm run bench`.
 *
 * The int8 order is close to the exact one: the 300 nearest rows of 300 queries (rows of the
 * index) were the same, in the same order, with pools of 3, 4 and 8 × k over the 325,884 rows of
 * the generated 100,000-note vault, and with 1.05 × k over SciFact's 7,285 passages (the bundled
 * model's vectors); a pool of 1.25 × k changed 33 of 100 lists at 100,000 notes. A pool of 4 × k
 * leaves room, and rescores half the rows 8 × k did (each row not in memory is read on its own):
 * 39 → 30 ms a 300-deep query at 100,000 notes, when rows were read from the snapshot file.
 */
export const EXACT_SCAN_LIMIT = 5_000;
export const RESCORE_POOL_MIN = 256;
export const RESCORE_FACTOR = 4;

export interface DenseHit {
  rowid: number;
  distance: number;
}

/**
 * Where the float32 rows of a snapshot-backed index are read from: the store itself (its windows,
 * pooled), at the generation the snapshot was made of. The snapshot keeps no float rows: each
 * vector is stored once, in the store, and the snapshot holds what is derived from it for
 * scanning (row ids, norms, the int8 copy).
 */
export interface RowSource {
  /** The float32 row of a row id, or undefined when the store holds none. */
  row(rowid: number): Float32Array | undefined;
  /** Every row, in row id order (the order a snapshot's rows are in). */
  all(): { rowids: Int32Array; matrix: Float32Array };
}

/** A snapshot-backed index's rows: their source, and the snapshot's path (removed when found damaged). */
interface RowFile {
  source: RowSource;
  file: string;
}

/** The int8 rows' place in a matrix's shared memory, as a snapshot thread takes it. */
const shared = (m: Int8Matrix) => ({ shared: m.sharedRows.buffer, offset: m.sharedRows.offset });

/** Rows scored one by one from the store up to this many; beyond, the matrix is read whole. */
const ROW_READ_LIMIT = 2_000;

/** A snapshot that does not match the store's rows: the store drops the index and builds it again from SQLite. */
export class DamagedSnapshotError extends VaultRagError {}

/**
 * Loaded vectors: row ids, a flat float32 matrix, norms, and (lazily) an int8 copy for scanning. An
 * index read from a large snapshot has no float32 rows in memory: a query scans the int8 copy and
 * reads from the store only the rows it rescores, so a cold start reads no float row.
 */
export class DenseIndex {
  readonly dims: number;
  readonly size: number;
  private readonly rowids: Int32Array;
  private matrix?: Float32Array;
  private rowFile?: RowFile;
  private readonly norms: Float32Array;
  private int8?: Int8Matrix | null;
  private scores?: Float64Array;
  private positionCache?: Map<number, number | number[]>;
  /** Rows read one by one from the store so far (see {@link DenseIndex.distance}). */
  private rowReads = 0;

  private constructor(
    dims: number,
    rowids: Int32Array,
    norms: Float32Array,
    matrix: Float32Array | RowFile,
    int8?: Int8Matrix | null,
  ) {
    this.dims = dims;
    this.size = rowids.length;
    this.rowids = rowids;
    this.norms = norms;
    if (matrix instanceof Float32Array) this.matrix = matrix;
    else this.rowFile = matrix;
    this.int8 = int8;
  }

  /** The whole float32 matrix, read from the store on first need: the snapshot's rows, or it is damaged. */
  private floats(): Float32Array {
    if (!this.matrix) {
      const { rowids, matrix } = this.rowFile!.source.all();
      if (matrix.length !== this.size * this.dims || rowids.some((id, i) => id !== this.rowids[i]))
        throw this.damaged();
      this.matrix = matrix;
      this.close();
    }
    return this.matrix;
  }

  /** The snapshot does not match the store's rows: the file is removed (it is a cache), and the error says so. */
  private damaged(): DamagedSnapshotError {
    const file = this.rowFile?.file ?? "";
    this.close();
    try {
      if (file) fs.rmSync(file, { force: true });
    } catch {
      // a read-only folder: the snapshot stays, and its checksums keep failing at load
    }
    return new DamagedSnapshotError(
      "index_damaged",
      `vault-rag: the vector cache ${file} did not match the index and was removed — search again; it is rebuilt from the index`,
    );
  }

  /** Lets go of the row source; an index whose rows were never read whole is then unusable. */
  close(): void {
    this.rowFile = undefined;
  }

  /** Builds the index from raw rows `[rowid, float32 blob]`, copying each blob once into one matrix. */
  static fromRows(rows: [number, Uint8Array][], dims: number): DenseIndex {
    const rowids = new Int32Array(rows.length);
    const matrix = new Float32Array(rows.length * dims);
    const bytes = new Uint8Array(matrix.buffer);
    for (let i = 0; i < rows.length; i++) {
      rowids[i] = rows[i][0];
      bytes.set(rows[i][1].subarray(0, dims * 4), i * dims * 4);
    }
    return DenseIndex.fromMatrix(rowids, matrix, dims);
  }

  /**
   * An index over a flat row-major matrix (one row of `dims` floats per row id), kept as given: no copy.
   *
   * @example
   * ```ts
   * DenseIndex.fromMatrix(Int32Array.of(7), Float32Array.of(1, 0), 2).query(Float32Array.of(1, 0), 1); // [{ rowid: 7, distance: 0 }]
   * ```
   */
  static fromMatrix(rowids: Int32Array, matrix: Float32Array, dims: number): DenseIndex {
    const norms = new Float32Array(rowids.length);
    for (let i = 0; i < rowids.length; i++) {
      let n = 0;
      for (let j = i * dims, end = j + dims; j < end; j++) n += matrix[j] * matrix[j];
      norms[i] = Math.sqrt(n);
    }
    return new DenseIndex(dims, rowids, norms, matrix);
  }

  private factors?: Float32Array;

  /** A buffer of at least `n` scores, kept for the next query (2.6 MB at 325,884 rows). */
  private scratch(n: number): Float64Array {
    if (!this.scores || this.scores.length < n) this.scores = new Float64Array(n);
    return this.scores;
  }

  /** Per-row scale ÷ norm, so that raw int8 dots rank rows by approximate cosine. */
  private cosineFactors(q8: Int8Matrix): Float32Array {
    if (!this.factors) {
      this.factors = new Float32Array(this.size);
      const s = q8.rowScales;
      for (let i = 0; i < this.size; i++) this.factors[i] = s[i] / (this.norms[i] || 1);
    }
    return this.factors;
  }

  /** The int8 scanning copy, quantized on first need (large indexes only). */
  private quantized(): Int8Matrix | null {
    if (this.int8 === undefined) this.int8 = Int8Matrix.fromFloat(this.floats(), this.size, this.dims) ?? null;
    return this.int8;
  }

  /**
   * Serialises the index for the on-disk snapshot: a JSON header line (with the caller's `key`),
   * then row ids, norms, the int8 copy's scales and the int8 copy. No float rows: they stay in the
   * store. `undefined` for an index without an int8 copy (up to {@link EXACT_SCAN_LIMIT} rows, or
   * without WebAssembly SIMD): it is built from the store when opened.
   */
  toBuffer(key: string): Buffer | undefined {
    const parts = this.toParts(key);
    return parts && Buffer.concat(parts);
  }

  /** The parts of {@link toBuffer}, in order, as views of the index's arrays: written one by one, no copy is made. */
  toParts(key: string): Uint8Array[] | undefined {
    const q = this.size > EXACT_SCAN_LIMIT ? this.quantized() : null;
    if (!q) return undefined;
    const view = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    // a checksum, so that a snapshot damaged in place (same length) is never read as vectors
    const sum = digest([this.rowids, this.norms, q.rowScales, q.bytes]);
    const header = Buffer.from(JSON.stringify({ key, dims: this.dims, size: this.size, int8: true, sum }) + "\n");
    const pad = Buffer.alloc((4 - (header.length % 4)) % 4, 32);
    return [
      header.subarray(0, header.length - 1),
      pad,
      Buffer.from("\n"),
      view(this.rowids),
      view(this.norms),
      view(q.rowScales),
      view(q.bytes),
    ];
  }

  /**
   * {@link fromFile}, with the row ids, norms and int8 copy read on a thread of their own
   * (snapshot-thread.ts) while the caller's thread goes on: a cold search reads them beside its
   * keyword query. Read on the caller's thread where no thread can start, without zlib's CRC-32,
   * or where WebAssembly SIMD is unavailable.
   *
   * @example
   * ```ts
   * const index = await DenseIndex.fromFileOffThread("/v/.vault-rag/index.db.vectors", key, source);
   * ```
   */
  static async fromFileOffThread(file: string, key: string, source: RowSource): Promise<DenseIndex | undefined> {
    const opened = openSnapshot(file, key);
    const int8 = crc32 && opened ? Int8Matrix.empty(opened.header.size, opened.header.dims) : undefined;
    if (!opened || !int8) return opened && DenseIndex.fromOpened(opened, file, source);
    const { fd, header } = opened;
    const { dims, size, floatBytes, body: at } = header;
    const got = await readPartsOffThread({ fd, at, size, dims, floatBytes, ...shared(int8) });
    // no thread: read here, from the file already open
    if (!got) return DenseIndex.fromOpened(opened, file, source);
    fs.closeSync(fd);
    if (crcDigest(got.crc) !== header.sum) return undefined;
    int8.rowScales.set(got.scales);
    return new DenseIndex(dims, got.rowids, got.norms, { source, file }, int8);
  }

  /**
   * Opens a snapshot file written from {@link toBuffer}: row ids, norms and the int8 copy are read;
   * the float32 rows are read from `source` when rescored. `undefined` unless its key matches and
   * it is whole.
   *
   * @example
   * ```ts
   * const index = DenseIndex.fromFile("/v/.vault-rag/index.db.vectors", key, source);
   * ```
   */
  static fromFile(file: string, key: string, source: RowSource): DenseIndex | undefined {
    const opened = openSnapshot(file, key);
    return opened && DenseIndex.fromOpened(opened, file, source);
  }

  /** {@link fromFile} of a snapshot open and its header checked; its file is closed. */
  private static fromOpened(opened: OpenSnapshot, file: string, source: RowSource): DenseIndex | undefined {
    const { fd, header } = opened;
    try {
      const { dims, size, floatBytes, body: at } = header;
      const rowids = new Int32Array(size);
      const norms = new Float32Array(size);
      readFully(fd, new Uint8Array(rowids.buffer), at);
      readFully(fd, new Uint8Array(norms.buffer), at + size * 4);
      // the int8 copy and its scales are read straight into the scanning memory (no copy of
      // 166 MB at 100,000 notes), or into plain arrays where WebAssembly SIMD is unavailable
      const int8 = Int8Matrix.filled(size, dims, (bytes, scales) => {
        readFully(fd, new Uint8Array(scales.buffer, scales.byteOffset, scales.byteLength), at + floatBytes);
        readFully(fd, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), at + floatBytes + size * 4);
        return digest([rowids, norms, scales, bytes]) === header.sum;
      });
      if (!int8) return undefined;
      return new DenseIndex(dims, rowids, norms, { source, file }, int8);
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * Reads a snapshot written by {@link toBuffer}, its float rows from `source`; `undefined` unless
   * its key matches and it is whole.
   */
  static fromBuffer(buf: Buffer, key: string, source: RowSource): DenseIndex | undefined {
    const header = snapshotHeader(buf, buf.length, key);
    if (!header) return undefined;
    const { dims, size, floatBytes, body } = header;
    const copy = (from: number, bytes: number) => {
      const out = new Uint8Array(bytes);
      out.set(buf.subarray(body + from, body + from + bytes));
      return out.buffer;
    };
    const rowids = new Int32Array(copy(0, size * 4));
    const norms = new Float32Array(copy(size * 4, size * 4));
    const scales = new Float32Array(copy(floatBytes, size * 4));
    const bytes = new Int8Array(copy(floatBytes + size * 4, size * dims));
    if (digest([rowids, norms, scales, bytes]) !== header.sum) return undefined;
    return new DenseIndex(
      dims,
      rowids,
      norms,
      { source, file: "" },
      Int8Matrix.fromQuantized(bytes, scales, size, dims),
    );
  }

  /** Positions by row id: one, or a list when a passage has several windows. */
  private get position(): Map<number, number | number[]> {
    if (!this.positionCache) {
      const m = new Map<number, number | number[]>();
      for (let i = 0; i < this.size; i++) {
        const id = this.rowids[i];
        const had = m.get(id);
        if (had === undefined) m.set(id, i);
        else if (typeof had === "number") m.set(id, [had, i]);
        else had.push(i);
      }
      this.positionCache = m;
    }
    return this.positionCache;
  }

  /** The row id at a position (several positions share one when a passage has several windows). */
  rowidAt(position: number): number {
    return this.rowids[position];
  }

  /** Exact cosine distance of row `i` to the query (whose norm is `qn`). */
  private distance(i: number, query: Float32Array, qn: number): number {
    const d = this.dims;
    let m: Float32Array;
    let o: number;
    if (this.matrix) {
      m = this.matrix;
      o = i * d;
    } else if (++this.rowReads > this.size) {
      // as many rows read one by one as the matrix holds (a long-lived process: serve, chat, MCP;
      // or one search whose rescoring pool, max(256, 4k), outnumbers the rows): read it whole once,
      // and later queries score from memory (no read per rescored row). It then holds the float
      // rows, as a freshly built index does.
      m = this.floats();
      o = i * d;
    } else {
      const row = this.rowFile!.source.row(this.rowids[i]);
      if (!row || row.length !== d) throw this.damaged();
      m = row;
      o = 0;
      // a row must have the norm the snapshot's checksummed header part says: a snapshot that does
      // not match the store's rows (damaged, or written of other rows) would otherwise rank them
      let n = 0;
      for (let j = 0; j < d; j++) n += m[j] * m[j];
      if (!(Math.abs(Math.sqrt(n) - this.norms[i]) <= 1e-3 * Math.max(this.norms[i], 1e-6))) throw this.damaged();
    }
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0;
    let j = 0;
    for (; j + 3 < d; j += 4) {
      s0 += m[o + j] * query[j];
      s1 += m[o + j + 1] * query[j + 1];
      s2 += m[o + j + 2] * query[j + 2];
      s3 += m[o + j + 3] * query[j + 3];
    }
    for (; j < d; j++) s0 += m[o + j] * query[j];
    return 1 - (s0 + s1 + s2 + s3) / ((this.norms[i] || 1) * qn);
  }

  /**
   * The k nearest row ids by cosine distance, among the allowed rows when given (pre-filtering):
   * a set of row ids, or a mask over this index's positions. A row id held at several positions
   * (a passage's windows) is returned once, at its best distance.
   */
  search(query: Float32Array, k: number, allowed?: Set<number> | Uint8Array): DenseHit[] {
    if (k <= 0 || this.size === 0) return [];
    let qn = 0;
    for (let j = 0; j < this.dims; j++) qn += query[j] * query[j];
    qn = Math.sqrt(qn) || 1;
    let candidates: number[] | undefined;
    let total = this.size;
    if (allowed instanceof Uint8Array) {
      total = 0;
      for (let i = 0; i < this.size; i++) total += allowed[i];
      if (total === 0) return [];
      if (total <= EXACT_SCAN_LIMIT) {
        candidates = [];
        for (let i = 0; i < this.size; i++) if (allowed[i]) candidates.push(i);
      }
    } else if (allowed) {
      candidates = [];
      for (const rowid of allowed) {
        const p = this.position.get(rowid);
        if (typeof p === "number") candidates.push(p);
        else if (p) candidates.push(...p);
      }
      if (!candidates.length) return [];
    }
    if (candidates) total = candidates.length;
    const q8 = total > EXACT_SCAN_LIMIT ? this.quantized() : null;
    if (!q8 && total > ROW_READ_LIMIT && !this.matrix) this.floats();
    const top = new TopK(k);
    if (!q8 && !candidates && allowed instanceof Uint8Array) {
      for (let i = 0; i < this.size; i++) if (allowed[i]) top.offer(this.distance(i, query, qn), this.rowids[i]);
      return top.sorted();
    }
    if (!q8) {
      if (candidates) for (const i of candidates) top.offer(this.distance(i, query, qn), this.rowids[i]);
      else for (let i = 0; i < this.size; i++) top.offer(this.distance(i, query, qn), this.rowids[i]);
      return top.sorted();
    }
    const factor = this.cosineFactors(q8);
    // stage 1, by approximate cosine from the int8 rows: the allowed rows' positions (every row
    // when none is filtered out); a few are scanned alone, more are read out of a scan of every row
    let list: Int32Array | null = null;
    if (allowed) {
      list = new Int32Array(total);
      let c = 0;
      if (candidates) for (const i of candidates) list[c++] = i;
      else for (let i = 0; i < this.size; i++) if ((allowed as Uint8Array)[i]) list[c++] = i;
    }
    const n = list ? list.length : this.size;
    const scores = this.scratch(n);
    if (list && total < this.size / 2) {
      const { raw } = q8.rawDotsOf(query, list);
      for (let c = 0; c < n; c++) scores[c] = -raw[c] * factor[list[c]];
    } else {
      const { raw } = q8.rawDots(query);
      if (list) for (let c = 0; c < n; c++) scores[c] = -raw[list[c]] * factor[list[c]];
      else for (let i = 0; i < n; i++) scores[i] = -raw[i] * factor[i];
    }
    const picked = selectSmallest(scores, list, n, Math.max(RESCORE_POOL_MIN, k * RESCORE_FACTOR));
    // stage 2: exact rescoring
    for (const i of picked) top.offer(this.distance(i, query, qn), this.rowids[i]);
    return top.sorted();
  }
}

/**
 * Keeps the k smallest (distance, id) pairs seen, in a binary max-heap: O(log k) per kept pair,
 * which matters for the first stage's pool of hundreds of candidates.
 */
class TopK {
  private readonly d: number[] = [];
  private readonly r: number[] = [];
  /** Where each id sits in the heap: an id is kept once, at its best distance. */
  private readonly at = new Map<number, number>();
  constructor(private readonly k: number) {}

  /** True when pair i is worse than pair j (larger distance, then larger id). */
  private worse(i: number, j: number): boolean {
    return this.d[i] > this.d[j] || (this.d[i] === this.d[j] && this.r[i] > this.r[j]);
  }

  private swap(i: number, j: number): void {
    [this.d[i], this.d[j]] = [this.d[j], this.d[i]];
    [this.r[i], this.r[j]] = [this.r[j], this.r[i]];
    this.at.set(this.r[i], i);
    this.at.set(this.r[j], j);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.d.length;
    for (;;) {
      const l = 2 * i + 1;
      const rr = l + 1;
      let m = i;
      if (l < n && this.worse(l, m)) m = l;
      if (rr < n && this.worse(rr, m)) m = rr;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  /**
   * Adds a pair if it is among the k best; an id already kept keeps its better distance (several
   * windows of one passage count once). Returns the worst distance kept once full (else Infinity).
   */
  offer(distance: number, id: number): number {
    const n = this.d.length;
    const seen = this.at.get(id);
    if (seen !== undefined) {
      if (distance < this.d[seen]) {
        // better than before: it moves away from the (worst-first) root
        this.d[seen] = distance;
        this.down(seen);
      }
    } else if (n < this.k) {
      this.d.push(distance);
      this.r.push(id);
      this.at.set(id, n);
      this.up(n);
    } else {
      if (distance > this.d[0] || (distance === this.d[0] && id > this.r[0])) return this.d[0];
      this.at.delete(this.r[0]);
      this.d[0] = distance;
      this.r[0] = id;
      this.at.set(id, 0);
      this.down(0);
    }
    return this.d.length === this.k ? this.d[0] : Infinity;
  }

  sorted(): DenseHit[] {
    return this.d
      .map((distance, i) => ({ rowid: this.r[i], distance }))
      .sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
  }
}
