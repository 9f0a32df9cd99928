/**
 * How a window's vector is kept in the `windows` table's BLOB column: as float16 (2 bytes a
 * dimension and a 2-byte mark, so that its length is never a multiple of 4), or as float32 (4 bytes
 * a dimension: what an index written before float16 holds, and a vector float16 cannot carry).
 * Both are read back as float32; an index may hold both.
 *
 * Why float16: a float32 row of 512 dimensions (2 KB) fills a 4 KB page on its own, so each window
 * took 4 KB; a float16 row takes 1 KB and three share a page. Rounding to float16 moves a unit
 * vector's components by at most 2⁻¹¹ of their size (a cosine by about 10⁻⁵): the quality figures
 * of every dev set were the same to 3 decimals (docs/decisions/lean-store.md).
 */

/** The mark a float16 blob ends with ("16" in a little-endian u16). */
const F16_MARK = 0x3631;

/** Float16 carries magnitudes from here (smaller ones lose precision as subnormals)… */
const F16_MIN = 2 ** -8;
/** …up to here (65,504 is its largest finite value). */
const F16_MAX = 2 ** 15;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float16 bits nearest a float32 (ties to even). */
export function toHalf(x: number): number {
  f32[0] = x;
  return halfBits(u32[0]);
}

/** The float16 bits nearest the float32 of these bits (ties to even). */
function halfBits(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const e = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (e === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const exp = e - 127 + 15;
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // a carry out of the mantissa moves the exponent on, as it should
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** Every float16 as float32, made on first use (256 KB). */
let halves: Float32Array | undefined;

function halfTable(): Float32Array {
  if (!halves) {
    halves = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const sign = h & 0x8000 ? -1 : 1;
      const e = (h >>> 10) & 0x1f;
      const m = h & 0x3ff;
      halves[h] =
        e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
    }
  }
  return halves;
}

/** The float32 a float16's bits stand for. */
export function fromHalf(h: number): number {
  return halfTable()[h & 0xffff];
}

/** Whether a vector is kept as float16: an even number of finite dimensions, its largest within float16's range. */
function fitsHalf(v: Float32Array): boolean {
  if (v.length === 0 || v.length % 2) return false;
  let max = 0;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]);
    if (!(a <= F16_MAX)) return false; // NaN too
    if (a > max) max = a;
  }
  return max >= F16_MIN;
}

/**
 * Encodes a vector for the `windows` BLOB column: float16 when it fits, else float32.
 *
 * @example
 * ```ts
 * insWindow.run(chunk, hash, vectorToBlob(new Float32Array([0.6, 0.8]))); // 6 bytes
 * ```
 */
export function vectorToBlob(v: Float32Array): Buffer {
  if (!fitsHalf(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  // (little-endian, as the float32 rows are: the byte order of every platform Node runs on here)
  const out = new Uint16Array(v.length + 1);
  // (as int32: a uint32 above 2³¹ is no small integer to the JIT, and the loop ran 4× slower)
  const bits = new Int32Array(v.buffer, v.byteOffset, v.length);
  for (let i = 0; i < bits.length; i++) {
    const x = bits[i];
    const e = (x >>> 23) & 0xff;
    // a float16 normal (most components), rounded here without a branch (adding 0xfff and the
    // kept mantissa's last bit rounds to nearest, ties to even; a carry moves the exponent on);
    // the rest by halfBits
    if (e > 112 && e < 143) {
      const a = x & 0x7fffffff;
      out[i] = ((x >>> 16) & 0x8000) | (((a + 0xfff + ((a >>> 13) & 1)) >>> 13) - (112 << 10));
    } else out[i] = halfBits(x);
  }
  out[v.length] = F16_MARK;
  return Buffer.from(out.buffer, 0, out.byteLength);
}

/**
 * Decodes a `windows` BLOB (float16 or float32) into a new float32 vector.
 *
 * @example
 * ```ts
 * blobToVector(vectorToBlob(new Float32Array([0.5, 0.25]))); // Float32Array [0.5, 0.25]
 * ```
 */
export function blobToVector(b: Uint8Array): Float32Array {
  if (b.byteLength % 4 !== 2) {
    const out = new Float32Array(b.byteLength / 4);
    new Uint8Array(out.buffer).set(b);
    return out;
  }
  const dims = (b.byteLength - 2) / 2;
  const table = halfTable();
  const out = new Float32Array(dims);
  // a view of the blob's halves where it is 2-byte aligned, else a copy of them
  const halves =
    b.byteOffset % 2 === 0
      ? new Uint16Array(b.buffer, b.byteOffset, dims)
      : new Uint16Array(new Uint8Array(b.subarray(0, dims * 2)).buffer);
  for (let i = 0; i < dims; i++) out[i] = table[halves[i]];
  return out;
}

/**
 * The number of dimensions a `windows` BLOB holds, without decoding it.
 *
 * @example
 * ```ts
 * blobDims(vectorToBlob(new Float32Array(512))); // 512
 * ```
 */
export function blobDims(b: Uint8Array): number {
  return b.byteLength % 4 === 2 ? (b.byteLength - 2) / 2 : b.byteLength / 4;
}

/**
 * SQL true for a window BLOB of `dims` dimensions, float16 or float32 (or the empty vector of a
 * window the model does not read), over the column `col`.
 *
 * @example
 * ```ts
 * db.prepare(`SELECT count(*) FROM windows WHERE NOT ${blobFitsSql("vector", 512)}`);
 * ```
 */
export function blobFitsSql(col: string, dims: number): string {
  const d = Math.floor(dims);
  return `length(${col}) IN (0, ${d * 4}${d % 2 === 0 ? `, ${d * 2 + 2}` : ""})`;
}
