/**
 * A tiny WebAssembly kernel, assembled here byte by byte, for the hot loop of dense search: the dot
 * product of one int8-quantized query with every row of an int8 matrix, using 128-bit SIMD
 * (i16x8 widening + i32x4.dot_i16x8_s). Dense search is bound by memory bandwidth: at 100,000 ×
 * 512-d a float32 scan reads 205 MB per query (≈25 ms here even with SIMD), an int8 scan 51 MB.
 * The int8 scores only pick candidates; they are rescored exactly in float32 (see DenseIndex).
 *
 * Exports `dots(query: ptr to i16[dims], matrix: ptr to i8[rows × dims], rows, dims, out: ptr to
 * i32[rows])`; `dims` must be a multiple of 16. Memory is imported as `env.memory`, shared: a thread
 * can read a snapshot's rows into it while the main thread works (see snapshot-thread.ts).
 */
import { wasmSimd } from "../../wasm-simd.js";

// prettier-ignore
const HEAD = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x12, 0x02, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, 0x60, 0x06, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, // types: (i32 ×5) -> (), (i32 ×6) -> ()
  0x02, 0x12, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x03, 0x01, 0x80, 0x80, 0x04, // import env.memory, shared, 1 to 65,536 pages
  0x03, 0x03, 0x02, 0x00, 0x01, // two functions, of types 0 and 1
  0x07, 0x12, 0x02, 0x04, 0x64, 0x6f, 0x74, 0x73, 0x00, 0x00, 0x07, 0x64, 0x6f, 0x74, 0x73, 0x49, 0x64, 0x78, 0x00, 0x01, // export "dots", "dotsIdx"
];

// params: 0 query, 1 matrix, 2 rows, 3 dims, 4 out; locals: 5 i, 6 j, 7 row, 8 acc (v128), 9 v (v128)
/* prettier-ignore */
const BODY = [
  0x02, 0x03, 0x7f, 0x02, 0x7b,                         // locals: 3 × i32, 2 × v128
  0x20, 0x01, 0x21, 0x07,                               // row = matrix
  0x41, 0x00, 0x21, 0x05,                               // i = 0
  0x02, 0x40, 0x03, 0x40,                               // block, loop
  0x20, 0x05, 0x20, 0x02, 0x4f, 0x0d, 0x01,             //   if i >= rows: break
  0xfd, 0x0c, ...new Array(16).fill(0), 0x21, 0x08,     //   acc = 0
  0x41, 0x00, 0x21, 0x06,                               //   j = 0
  0x02, 0x40, 0x03, 0x40,                               //   block, loop
  0x20, 0x06, 0x20, 0x03, 0x4f, 0x0d, 0x01,             //     if j >= dims: break
  0x20, 0x07, 0x20, 0x06, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0x21, 0x09, // v = load i8x16 row[j..j+16]
  0x20, 0x08,                                           //     acc
  0x20, 0x09, 0xfd, 0x87, 0x01,                         //     low 8 lanes widened to i16
  0x20, 0x00, 0x20, 0x06, 0x41, 0x01, 0x74, 0x6a, 0xfd, 0x00, 0x00, 0x00, // query[j..j+8] (i16)
  0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01,                   //     acc += dot_i16x8
  0x20, 0x09, 0xfd, 0x88, 0x01,                         //     high 8 lanes widened to i16
  0x20, 0x00, 0x20, 0x06, 0x41, 0x01, 0x74, 0x6a, 0xfd, 0x00, 0x00, 0x10, // query[j+8..j+16]
  0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01,                   //     acc += dot_i16x8
  0x21, 0x08,                                           //     acc = ...
  0x20, 0x06, 0x41, 0x10, 0x6a, 0x21, 0x06,             //     j += 16
  0x0c, 0x00, 0x0b, 0x0b,                               //   continue; end loop, end block
  0x20, 0x04, 0x20, 0x05, 0x41, 0x02, 0x74, 0x6a,       //   &out[i]
  0x20, 0x08, 0xfd, 0x1b, 0x00, 0x20, 0x08, 0xfd, 0x1b, 0x01, 0x6a, // lane0 + lane1
  0x20, 0x08, 0xfd, 0x1b, 0x02, 0x6a,                   //   + lane2
  0x20, 0x08, 0xfd, 0x1b, 0x03, 0x6a,                   //   + lane3
  0x36, 0x02, 0x00,                                     //   out[i] = sum
  0x20, 0x07, 0x20, 0x03, 0x6a, 0x21, 0x07,             //   row += dims
  0x20, 0x05, 0x41, 0x01, 0x6a, 0x21, 0x05,             //   i += 1
  0x0c, 0x00, 0x0b, 0x0b,                               // continue; end loop, end block
  0x0b,                                                 // end function
];

// dotsIdx(query, matrix, idx: ptr to i32[count], count, dims, out): the same, for the listed rows only
// params: 0 query, 1 matrix, 2 idx, 3 count, 4 dims, 5 out; locals: 6 i, 7 j, 8 row (i32); 9 acc, 10 v (v128)
/* prettier-ignore */
const BODY_IDX = [
  0x02, 0x03, 0x7f, 0x02, 0x7b,                         // locals
  0x41, 0x00, 0x21, 0x06,                               // i = 0
  0x02, 0x40, 0x03, 0x40,                               // block, loop
  0x20, 0x06, 0x20, 0x03, 0x4f, 0x0d, 0x01,             //   if i >= count: break
  0x20, 0x01,                                           //   matrix
  0x20, 0x02, 0x20, 0x06, 0x41, 0x02, 0x74, 0x6a, 0x28, 0x02, 0x00, // idx[i]
  0x20, 0x04, 0x6c, 0x6a, 0x21, 0x08,                   //   row = matrix + idx[i] * dims
  0xfd, 0x0c, ...new Array(16).fill(0), 0x21, 0x09,     //   acc = 0
  0x41, 0x00, 0x21, 0x07,                               //   j = 0
  0x02, 0x40, 0x03, 0x40,                               //   block, loop
  0x20, 0x07, 0x20, 0x04, 0x4f, 0x0d, 0x01,             //     if j >= dims: break
  0x20, 0x08, 0x20, 0x07, 0x6a, 0xfd, 0x00, 0x00, 0x00, 0x21, 0x0a, // v = row[j..j+16]
  0x20, 0x09,
  0x20, 0x0a, 0xfd, 0x87, 0x01,
  0x20, 0x00, 0x20, 0x07, 0x41, 0x01, 0x74, 0x6a, 0xfd, 0x00, 0x00, 0x00,
  0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01,
  0x20, 0x0a, 0xfd, 0x88, 0x01,
  0x20, 0x00, 0x20, 0x07, 0x41, 0x01, 0x74, 0x6a, 0xfd, 0x00, 0x00, 0x10,
  0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01,
  0x21, 0x09,
  0x20, 0x07, 0x41, 0x10, 0x6a, 0x21, 0x07,             //     j += 16
  0x0c, 0x00, 0x0b, 0x0b,
  0x20, 0x05, 0x20, 0x06, 0x41, 0x02, 0x74, 0x6a,       //   &out[i]
  0x20, 0x09, 0xfd, 0x1b, 0x00, 0x20, 0x09, 0xfd, 0x1b, 0x01, 0x6a,
  0x20, 0x09, 0xfd, 0x1b, 0x02, 0x6a,
  0x20, 0x09, 0xfd, 0x1b, 0x03, 0x6a,
  0x36, 0x02, 0x00,
  0x20, 0x06, 0x41, 0x01, 0x6a, 0x21, 0x06,             //   i += 1
  0x0c, 0x00, 0x0b, 0x0b,
  0x0b,
];

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** The assembled module's bytes. */
export function int8DotModuleBytes(): Uint8Array<ArrayBuffer> {
  const code = [0x02, ...leb(BODY.length), ...BODY, ...leb(BODY_IDX.length), ...BODY_IDX];
  return Uint8Array.from([...HEAD, 0x0a, ...leb(code.length), ...code]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or `null` where WebAssembly SIMD is unavailable (then JS loops are used). */
export function int8DotModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    if (!wasmSimd()) return (compiled = null);
    try {
      compiled = new WebAssembly.Module(int8DotModuleBytes());
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * An int8 copy of a float32 matrix in WebAssembly memory (one scale per row), with the SIMD kernel
 * bound to it. Scores are approximate dot products, for choosing candidates to rescore exactly.
 */
export class Int8Matrix {
  private readonly memory: WebAssembly.Memory;
  private readonly dots: (q: number, m: number, n: number, d: number, out: number) => void;
  private readonly dotsIdx: (q: number, m: number, idx: number, count: number, d: number, out: number) => void;
  private readonly idxPtr: number;
  private readonly queryPtr = 0;
  private readonly outPtr: number;
  private readonly matrixPtr: number;
  private readonly scales: Float32Array;

  private constructor(
    mod: WebAssembly.Module,
    readonly rows: number,
    readonly dims: number,
  ) {
    this.outPtr = dims * 2;
    this.idxPtr = this.outPtr + rows * 4;
    this.matrixPtr = this.idxPtr + rows * 4;
    const total = this.matrixPtr + rows * dims;
    const pages = Math.max(1, Math.ceil(total / 65536));
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    const instance = new WebAssembly.Instance(mod, { env: { memory: this.memory } });
    this.dots = instance.exports.dots as Int8Matrix["dots"];
    this.dotsIdx = instance.exports.dotsIdx as Int8Matrix["dotsIdx"];
    this.scales = new Float32Array(rows);
  }

  private static allocate(rows: number, dims: number): Int8Matrix | undefined {
    const mod = int8DotModule();
    if (!mod || dims % 16 !== 0 || dims === 0 || rows === 0) return undefined;
    try {
      return new Int8Matrix(mod, rows, dims);
    } catch {
      return undefined; // memory could not be allocated
    }
  }

  /** Quantizes `matrix` (rows × dims) or returns `undefined` when SIMD or the shape is unsupported. */
  static fromFloat(matrix: Float32Array, rows: number, dims: number): Int8Matrix | undefined {
    const m = Int8Matrix.allocate(rows, dims);
    if (!m) return undefined;
    const q = new Int8Array(m.memory.buffer, m.matrixPtr, rows * dims);
    for (let i = 0; i < rows; i++) {
      const o = i * dims;
      let max = 0;
      for (let j = o; j < o + dims; j++) {
        const x = matrix[j];
        const a = x < 0 ? -x : x;
        if (a > max) max = a;
      }
      const scale = max > 0 ? 127 / max : 0;
      m.scales[i] = max > 0 ? max / 127 : 0;
      for (let j = o; j < o + dims; j++) {
        const y = matrix[j] * scale;
        q[j] = y >= 0 ? (y + 0.5) | 0 : (y - 0.5) | 0;
      }
    }
    return m;
  }

  /** Restores a matrix saved with {@link bytes} and {@link rowScales}. */
  static fromQuantized(bytes: Int8Array, scales: Float32Array, rows: number, dims: number): Int8Matrix | undefined {
    const m = Int8Matrix.allocate(rows, dims);
    if (!m) return undefined;
    new Int8Array(m.memory.buffer, m.matrixPtr, rows * dims).set(bytes);
    m.scales.set(scales);
    return m;
  }

  /**
   * A matrix whose rows and scales `fill` writes in place (a snapshot read straight into wasm
   * memory); `fill` returns whether they are whole. Where SIMD or the shape is unsupported, `fill`
   * writes plain arrays and the result is `null` when they are whole (the caller scans without an
   * int8 copy); `undefined` when `fill` says they are not.
   */
  static filled(
    rows: number,
    dims: number,
    fill: (bytes: Int8Array, scales: Float32Array) => boolean,
  ): Int8Matrix | null | undefined {
    const m = Int8Matrix.allocate(rows, dims);
    if (!m) return fill(new Int8Array(rows * dims), new Float32Array(rows)) ? null : undefined;
    return fill(m.bytes, m.scales) ? m : undefined;
  }

  /**
   * A matrix whose rows another thread writes into its shared memory (see {@link sharedRows}) and
   * whose scales the caller sets; `undefined` where SIMD or the shape is unsupported.
   */
  static empty(rows: number, dims: number): Int8Matrix | undefined {
    return Int8Matrix.allocate(rows, dims);
  }

  /** Where the quantized rows are: the shared memory and their byte offset in it. */
  get sharedRows(): { buffer: SharedArrayBuffer; offset: number } {
    return { buffer: this.memory.buffer as unknown as SharedArrayBuffer, offset: this.matrixPtr };
  }

  /** The quantized rows (a view into wasm memory). */
  get bytes(): Int8Array {
    return new Int8Array(this.memory.buffer, this.matrixPtr, this.rows * this.dims);
  }

  /** One scale per row. */
  get rowScales(): Float32Array {
    return this.scales;
  }

  /**
   * Raw int32 dot products of the quantized query with every row (a view reused by the next call);
   * multiply entry i by `rowScales[i] × queryScale` for the approximate float dot product.
   */
  rawDots(query: Float32Array): { raw: Int32Array; queryScale: number } {
    const queryScale = this.quantizeQuery(query);
    this.dots(this.queryPtr, this.matrixPtr, this.rows, this.dims, this.outPtr);
    return { raw: new Int32Array(this.memory.buffer, this.outPtr, this.rows), queryScale };
  }

  /** Writes the int16 query into wasm memory; returns the factor back to float. */
  private quantizeQuery(query: Float32Array): number {
    let max = 0;
    for (let j = 0; j < this.dims; j++) max = Math.max(max, Math.abs(query[j]));
    const scale = max > 0 ? 127 / max : 0;
    const q16 = new Int16Array(this.memory.buffer, this.queryPtr, this.dims);
    for (let j = 0; j < this.dims; j++) q16[j] = Math.round(query[j] * scale);
    return max > 0 ? max / 127 : 0;
  }

  /** Like {@link rawDots}, for the listed rows only: entry i belongs to row `rows[i]`. */
  rawDotsOf(query: Float32Array, rows: Int32Array): { raw: Int32Array; queryScale: number } {
    const queryScale = this.quantizeQuery(query);
    new Int32Array(this.memory.buffer, this.idxPtr, rows.length).set(rows);
    this.dotsIdx(this.queryPtr, this.matrixPtr, this.idxPtr, rows.length, this.dims, this.outPtr);
    return { raw: new Int32Array(this.memory.buffer, this.outPtr, rows.length), queryScale };
  }

  /** Approximate dot products of `query` with every row (a fresh array). */
  approxDots(query: Float32Array): Float32Array {
    const { raw, queryScale } = this.rawDots(query);
    return Float32Array.from(raw, (x, i) => x * this.scales[i] * queryScale);
  }
}
