import { MATMUL_WASM } from "./matmul-wasm.js";

/*
 * Faster kernels for two operations of the bundled model on TensorFlow.js's wasm backend, measured
 * with tf.profile on a batch of 16 passages of 128 tokens (one thread):
 * - batched matrix products (attention: [16,4,128,64] · [16,4,128,64]ᵀ and the like) run in the
 *   backend's scalar loop at ~1.1 GFLOP/s, 35% of the model's time, while its 2-D products reach
 *   ~18 GFLOP/s through XNNPACK. They run here in a small SIMD kernel (matmul.wat).
 * - SplitV (the query/key/value split) copies element by element through a generic strided slice,
 *   and GatherV2 (the token-embedding lookup) element by element: here they copy contiguous runs
 *   (8.9 ms → 4.5 ms and 39 ms → under 1 ms per batch).
 * Every other case goes to the backend's own kernel. Results equal the originals up to float
 * rounding (a test compares the model's vectors with and without these kernels).
 */

type Shape = number[];
interface TensorInfo {
  dataId: object;
  shape: Shape;
  dtype: string;
}
interface WasmBackend {
  makeOutput(shape: Shape, dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array | Int32Array | Uint8Array;
}
interface KernelArgs {
  inputs: Record<string, TensorInfo>;
  backend: WasmBackend;
  attrs: Record<string, unknown>;
}
type KernelFunc = (args: KernelArgs) => TensorInfo | TensorInfo[];
interface KernelConfig {
  kernelName: string;
  backendName: string;
  kernelFunc: KernelFunc;
  setupFunc?: unknown;
}
/** The parts of @tensorflow/tfjs-core used here. */
export interface KernelRegistry {
  getKernel(name: string, backend: string): KernelConfig | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel(config: KernelConfig): void;
}

const size = (s: Shape) => s.reduce((a, b) => a * b, 1);

/** The SIMD matrix product, with its own memory that grows to the largest call. */
export class SimdMatmul {
  private readonly memory: WebAssembly.Memory;
  private readonly fn: (a: number, b: number, c: number, m: number, k: number, n: number) => void;
  constructor() {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MATMUL_WASM));
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.fn = instance.exports.matmul as SimdMatmul["fn"];
  }

  /** Float32 views of three regions (A, B, C) of `a`, `b` and `c` floats. */
  regions(a: number, b: number, c: number): [Float32Array, Float32Array, Float32Array] {
    const bytes = 4 * (a + b + c);
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / 65536));
    const buf = this.memory.buffer;
    return [new Float32Array(buf, 0, a), new Float32Array(buf, 4 * a, b), new Float32Array(buf, 4 * (a + b), c)];
  }

  /** C = A·B for one matrix of each region, at the given float offsets. */
  run(aAt: number, bAt: number, cAt: number, m: number, k: number, n: number): void {
    this.fn(4 * aAt, 4 * bAt, 4 * cAt, m, k, n);
  }
}

/**
 * `a · b` (or `a · bᵀ`) for float32 tensors of rank ≥ 3 with the same batch dimensions, on the SIMD
 * kernel; `undefined` for every other case (the backend's kernel handles it).
 */
export function batchMatMul(simd: SimdMatmul, args: KernelArgs): TensorInfo | undefined {
  const { a, b } = args.inputs;
  const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
  const r = a.shape.length;
  if (transposeA || a.dtype !== "float32" || b.dtype !== "float32" || r < 3 || b.shape.length !== r) return undefined;
  const batchShape = a.shape.slice(0, -2);
  if (batchShape.some((d, i) => d !== b.shape[i])) return undefined;
  const batch = size(batchShape);
  const m = a.shape[r - 2];
  const k = a.shape[r - 1];
  const n = transposeB ? b.shape[r - 2] : b.shape[r - 1];
  if ((transposeB ? b.shape[r - 1] : b.shape[r - 2]) !== k || batch < 2 || m === 0 || n === 0 || k === 0) return undefined;
  const np = (n + 3) & ~3; // columns padded to whole vectors
  const [A, B, C] = simd.regions(batch * m * k, batch * k * np, batch * m * np);
  A.set(args.backend.typedArrayFromHeap(a) as Float32Array);
  const src = args.backend.typedArrayFromHeap(b) as Float32Array;
  if (!transposeB && np === n) B.set(src);
  else {
    B.fill(0);
    for (let t = 0; t < batch; t++) {
      const s = t * k * n;
      const d = t * k * np;
      if (transposeB) {
        for (let j = 0; j < n; j++) for (let kk = 0; kk < k; kk++) B[d + kk * np + j] = src[s + j * k + kk];
      } else {
        for (let kk = 0; kk < k; kk++) B.set(src.subarray(s + kk * n, s + kk * n + n), d + kk * np);
      }
    }
  }
  for (let t = 0; t < batch; t++) simd.run(t * m * k, batch * m * k + t * k * np, batch * m * k + batch * k * np + t * m * np, m, k, np);
  const out = args.backend.makeOutput([...batchShape, m, n], "float32");
  const dst = args.backend.typedArrayFromHeap(out) as Float32Array; // after makeOutput: the backend's heap may have grown
  if (np === n) dst.set(C);
  else for (let row = 0; row < batch * m; row++) dst.set(C.subarray(row * np, row * np + n), row * n);
  return out;
}

/** SplitV along any axis by copying contiguous runs; `undefined` for non-float32 inputs. */
export function splitV(args: KernelArgs): TensorInfo[] | undefined {
  const { x } = args.inputs;
  if (x.dtype !== "float32") return undefined;
  const { numOrSizeSplits, axis } = args.attrs as { numOrSizeSplits: number | number[]; axis: number };
  const rank = x.shape.length;
  const ax = axis < 0 ? axis + rank : axis;
  const dim = x.shape[ax];
  let sizes: number[];
  if (typeof numOrSizeSplits === "number") {
    if (dim % numOrSizeSplits !== 0) return undefined;
    sizes = new Array(numOrSizeSplits).fill(dim / numOrSizeSplits);
  } else {
    sizes = [...numOrSizeSplits];
    const known = sizes.filter((s) => s !== -1).reduce((a, b) => a + b, 0);
    const free = sizes.indexOf(-1);
    if (free >= 0) sizes[free] = dim - known;
    if (sizes.reduce((a, b) => a + b, 0) !== dim || sizes.some((s) => s < 0)) return undefined;
  }
  const outer = size(x.shape.slice(0, ax));
  const inner = size(x.shape.slice(ax + 1));
  const outs = sizes.map((s) => args.backend.makeOutput(x.shape.map((d, i) => (i === ax ? s : d)), "float32"));
  // views only after every output is made: making one may grow the heap
  const src = args.backend.typedArrayFromHeap(x) as Float32Array;
  let at = 0;
  outs.forEach((out, o) => {
    const dst = args.backend.typedArrayFromHeap(out) as Float32Array;
    const run = sizes[o] * inner;
    for (let r = 0; r < outer; r++) dst.set(src.subarray(r * dim * inner + at, r * dim * inner + at + run), r * run);
    at += run;
  });
  return outs;
}

/**
 * GatherV2 with no batch dimensions (the model's token-embedding lookup, [8002,256] by 2,048 ids) by
 * copying whole rows; `undefined` for other cases or an index out of range (the backend reports it).
 */
export function gatherV2(args: KernelArgs): TensorInfo | undefined {
  const { x, indices } = args.inputs;
  const { axis, batchDims } = args.attrs as { axis: number; batchDims: number };
  if (batchDims || (x.dtype !== "float32" && x.dtype !== "int32") || indices.dtype !== "int32") return undefined;
  const ax = axis < 0 ? axis + x.shape.length : axis;
  const dim = x.shape[ax];
  const idx = args.backend.typedArrayFromHeap(indices) as Int32Array;
  for (let i = 0; i < idx.length; i++) if (idx[i] < 0 || idx[i] >= dim) return undefined;
  const outer = size(x.shape.slice(0, ax));
  const inner = size(x.shape.slice(ax + 1));
  const ids = Int32Array.from(idx); // the heap may grow when the output is made
  const out = args.backend.makeOutput([...x.shape.slice(0, ax), ...indices.shape, ...x.shape.slice(ax + 1)], x.dtype);
  const src = args.backend.typedArrayFromHeap(x);
  const dst = args.backend.typedArrayFromHeap(out);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < ids.length; i++) {
      const from = (o * dim + ids[i]) * inner;
      dst.set(src.subarray(from, from + inner), (o * ids.length + i) * inner);
    }
  }
  return out;
}

/**
 * Puts the faster kernels in front of the wasm backend's own BatchMatMul and SplitV. Call after the
 * backend is ready (the originals' setup has run); calling again does nothing.
 *
 * @example
 * ```ts
 * await tf.setBackend("wasm");
 * installFastKernels(tf);
 * ```
 */
export function installFastKernels(tf: KernelRegistry): void {
  if (installed.has(tf)) return;
  installed.add(tf);
  const simd = new SimdMatmul();
  const wrap = (name: string, fast: (args: KernelArgs) => TensorInfo | TensorInfo[] | undefined) => {
    const original = tf.getKernel(name, "wasm");
    if (!original) return;
    tf.unregisterKernel(name, "wasm");
    tf.registerKernel({ kernelName: name, backendName: "wasm", kernelFunc: (args) => fast(args) ?? original.kernelFunc(args) });
  };
  wrap("BatchMatMul", (args) => batchMatMul(simd, args));
  wrap("SplitV", splitV);
  wrap("GatherV2", gatherV2);

}

const installed = new WeakSet<object>();
