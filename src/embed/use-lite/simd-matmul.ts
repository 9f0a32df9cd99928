import { MATMUL_WASM } from "./matmul-wasm.js";

type Product = (a: number, b: number, c: number, m: number, k: number, n: number) => void;

/** Most memory packed weights may take (the bundled model's take 20 MB). */
const MAX_WEIGHT_FLOATS = 16 * 1024 * 1024;

/**
 * The SIMD matrix products of matmul.wat with their own memory: packed weights at the start (kept),
 * then scratch space for one call (A, B, C), grown to the largest call. Offsets are in floats.
 *
 * @example
 * ```ts
 * const simd = new SimdMatmul();
 * const { views: [A, B, C], at } = simd.scratch(2 * 3, 3 * 4, 2 * 4);
 * A.set([1, 2, 3, 4, 5, 6]); B.set(new Float32Array(12).fill(1));
 * simd.run(at[0], at[1], at[2], 2, 3, 4);
 * C; // [6, 6, 6, 6, 15, 15, 15, 15]
 * ```
 */
export class SimdMatmul {
  private readonly memory: WebAssembly.Memory;
  private readonly matmul: Product;
  private readonly gemmFn: Product;
  /** Floats used by packed weights. */
  private weightsEnd = 0;
  /** Packed weights by key, then by shape ("k×n"): where each starts. */
  private readonly weights = new WeakMap<object, Map<string, number>>();
  private readonly constants = new WeakSet<object>();

  constructor() {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MATMUL_WASM));
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.matmul = instance.exports.matmul as Product;
    this.gemmFn = instance.exports.gemm as Product;
  }

  private reserve(floats: number): void {
    const have = this.memory.buffer.byteLength;
    if (4 * floats > have) this.memory.grow(Math.ceil((4 * floats - have) / 65536));
  }

  /** Scratch regions of the given sizes (floats), after the packed weights: views and offsets. */
  scratch(...sizes: number[]): { views: Float32Array[]; at: number[] } {
    const at: number[] = [];
    let end = this.weightsEnd;
    for (const s of sizes) {
      at.push(end);
      end += s + (-s & 3); // 16-byte aligned
    }
    this.reserve(end);
    return { views: sizes.map((s, i) => new Float32Array(this.memory.buffer, 4 * at[i], s)), at };
  }

  /** C = A·B: A[m×k], B[k×n], C[m×n] row-major at the given offsets; n a multiple of 4. */
  run(aAt: number, bAt: number, cAt: number, m: number, k: number, n: number): void {
    this.matmul(4 * aAt, 4 * bAt, 4 * cAt, m, k, n);
  }

  /** C = A·B with B packed by {@link packPanels} at `bAt`; n a multiple of 16. */
  gemm(aAt: number, bAt: number, cAt: number, m: number, k: number, n: number): void {
    this.gemmFn(4 * aAt, 4 * bAt, 4 * cAt, m, k, n);
  }

  /**
   * Packs a constant weight matrix B[k×n] once, under `key` (its tensor's data id), so products
   * with it skip packing; false when the weight space is full.
   */
  keepWeight(key: object, b: Float32Array, k: number, n: number): boolean {
    if (this.weightsEnd + k * n > MAX_WEIGHT_FLOATS) return false;
    const at = this.weightsEnd;
    this.reserve(at + k * n);
    packPanels(b, k, n, new Float32Array(this.memory.buffer, 4 * at, k * n));
    this.weightsEnd = at + k * n;
    const shapes = this.weights.get(key) ?? new Map<string, number>();
    shapes.set(`${k}×${n}`, at);
    this.weights.set(key, shapes);
    return true;
  }

  /** Marks `key` (a tensor's data id) as a constant weight: packed and kept at its first product. */
  markConstant(key: object): void {
    this.constants.add(key);
  }

  /**
   * Where the packed weight under `key` with this shape is: kept already, or packed now from `read()`
   * when `key` was marked constant (and there is room); `undefined` when the caller must pack it.
   */
  constantWeight(key: object, k: number, n: number, read: () => Float32Array): number | undefined {
    const at = this.weight(key, k, n);
    if (at !== undefined || !this.constants.has(key) || !this.keepWeight(key, read(), k, n)) return at;
    return this.weight(key, k, n);
  }

  /** Where the packed weight kept under `key` with this shape is, if it is. */
  weight(key: object, k: number, n: number): number | undefined {
    return this.weights.get(key)?.get(`${k}×${n}`);
  }
}

/**
 * B[k×n] (row-major) as n/16 panels of k rows of 16 floats, the layout `gemm` reads.
 *
 * @example
 * ```ts
 * packPanels(b, 512, 1536, out); // out[(p * 512 + kk) * 16 + j] = b[kk * 1536 + p * 16 + j]
 * ```
 */
export function packPanels(b: Float32Array, k: number, n: number, out: Float32Array): void {
  let o = 0;
  for (let p = 0; p < n; p += 16) {
    for (let kk = 0; kk < k; kk++) {
      const from = kk * n + p;
      for (let j = 0; j < 16; j++) out[o++] = b[from + j];
    }
  }
}
