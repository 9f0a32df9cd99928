import { packPanels, SimdMatmul } from "./simd-matmul.js";

/*
 * Faster kernels for the bundled model on TensorFlow.js's wasm backend, measured with tf.profile
 * and CPU profiles on a batch of 16 passages of 128 tokens (one thread):
 * - batched matrix products (attention: [16,4,128,64] · [16,4,128,64]ᵀ and the like) run in the
 *   backend's scalar loop at ~1.1 GFLOP/s, 35% of the model's time. They run here in a small SIMD
 *   kernel (matmul.wat) at ~30 GFLOP/s.
 * - the dense layers (2-D products and 1×1 convolutions, ~19 GFLOP per batch, then 80% of the time)
 *   run through XNNPACK at 15–23 GFLOP/s; here on a packed-panel SIMD product at ~22, each model
 *   weight packed at its first product and kept.
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

/**
 * `a · b` (or `a · bᵀ`) for float32 tensors of rank ≥ 3 with the same batch dimensions, on the SIMD
 * kernel; `undefined` for every other case (the backend's kernel handles it).
 */
function batchMatMul(simd: SimdMatmul, args: KernelArgs): TensorInfo | undefined {
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
  if ((transposeB ? b.shape[r - 1] : b.shape[r - 2]) !== k || batch < 2 || m === 0 || n === 0 || k === 0)
    return undefined;
  const np = (n + 3) & ~3; // columns padded to whole vectors
  const {
    views: [A, B, C],
    at: [aAt, bAt, cAt],
  } = simd.scratch(batch * m * k, batch * k * np, batch * m * np);
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
  for (let t = 0; t < batch; t++) simd.run(aAt + t * m * k, bAt + t * k * np, cAt + t * m * np, m, k, np);
  const out = args.backend.makeOutput([...batchShape, m, n], "float32");
  const dst = args.backend.typedArrayFromHeap(out) as Float32Array; // after makeOutput: the backend's heap may have grown
  if (np === n) dst.set(C);
  else for (let row = 0; row < batch * m; row++) dst.set(C.subarray(row * np, row * np + n), row * n);
  return out;
}

/**
 * x[m×k] · w[k×n] on the packed SIMD product, w packed once when it is a kept model weight, else
 * for this call; n must be a multiple of 16.
 */
function dense(
  simd: SimdMatmul,
  args: KernelArgs,
  x: TensorInfo,
  w: TensorInfo,
  m: number,
  k: number,
  n: number,
  outShape: Shape,
): TensorInfo {
  const kept = simd.constantWeight(w.dataId, k, n, () => args.backend.typedArrayFromHeap(w) as Float32Array);
  const {
    views: [A, C, B],
    at: [aAt, cAt, bAt],
  } = simd.scratch(m * k, m * n, kept === undefined ? k * n : 0);
  A.set(args.backend.typedArrayFromHeap(x) as Float32Array);
  if (kept === undefined) packPanels(args.backend.typedArrayFromHeap(w) as Float32Array, k, n, B);
  simd.gemm(aAt, kept ?? bAt, cAt, m, k, n);
  const out = args.backend.makeOutput(outShape, "float32");
  (args.backend.typedArrayFromHeap(out) as Float32Array).set(C);
  return out;
}

/** A 2-D product a[m×k] · b[k×n] (the model's dense layers) with n a multiple of 16; else `undefined`. */
function matMul2D(simd: SimdMatmul, args: KernelArgs): TensorInfo | undefined {
  const { a, b } = args.inputs;
  const { transposeA, transposeB } = args.attrs as { transposeA: boolean; transposeB: boolean };
  if (
    transposeA ||
    transposeB ||
    a.shape.length !== 2 ||
    b.shape.length !== 2 ||
    a.dtype !== "float32" ||
    b.dtype !== "float32"
  )
    return undefined;
  const [m, k] = a.shape;
  const n = b.shape[1];
  if (b.shape[0] !== k || n % 16 !== 0 || m === 0 || k === 0 || n === 0) return undefined;
  return dense(simd, args, a, b, m, k, n, [m, n]);
}

/** A 1×1 convolution, stride and dilation 1, NHWC (a dense layer over the last axis); else `undefined`. */
function conv1x1(simd: SimdMatmul, args: KernelArgs): TensorInfo | undefined {
  const { x, filter } = args.inputs;
  const { strides, dilations, dataFormat, pad } = args.attrs as {
    strides: number | number[];
    dilations: number | number[];
    dataFormat: string;
    pad: unknown;
  };
  const ones = (v: number | number[]) => (Array.isArray(v) ? v.every((d) => d === 1) : v === 1);
  if (x.dtype !== "float32" || filter.dtype !== "float32" || x.shape.length !== 4 || filter.shape.length !== 4)
    return undefined;
  if (
    filter.shape[0] !== 1 ||
    filter.shape[1] !== 1 ||
    !ones(strides) ||
    !ones(dilations ?? 1) ||
    (dataFormat ?? "NHWC") !== "NHWC"
  )
    return undefined;
  if (pad !== "valid" && pad !== "same" && pad !== 0) return undefined;
  const k = x.shape[3];
  const n = filter.shape[3];
  const m = x.shape[0] * x.shape[1] * x.shape[2];
  if (filter.shape[2] !== k || n % 16 !== 0 || m === 0 || k === 0) return undefined;
  return dense(simd, args, x, filter, m, k, n, [x.shape[0], x.shape[1], x.shape[2], n]);
}

/**
 * Marks a loaded model's constant weights, so each is packed once, at its first product, and kept
 * (marking reads no data: a query that uses the model once pays no packing for layers it skips).
 *
 * @example
 * ```ts
 * markModelWeights(simd, Object.values(model.weights).flat());
 * ```
 */
export function markModelWeights(simd: SimdMatmul, tensors: { dataId: object }[]): void {
  for (const t of tensors) simd.markConstant(t.dataId);
}

/** SplitV along any axis by copying contiguous runs; `undefined` for non-float32 inputs. */
function splitV(args: KernelArgs): TensorInfo[] | undefined {
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
  const outs = sizes.map((s) =>
    args.backend.makeOutput(
      x.shape.map((d, i) => (i === ax ? s : d)),
      "float32",
    ),
  );
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
function gatherV2(args: KernelArgs): TensorInfo | undefined {
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
 * Puts the faster kernels in front of the wasm backend's own BatchMatMul, Conv2D, SplitV and
 * GatherV2. Call after the backend is ready (the originals' setup has run); calling again returns
 * the same SIMD products.
 *
 * @example
 * ```ts
 * await tf.setBackend("wasm");
 * installFastKernels(tf);
 * ```
 */
export function installFastKernels(tf: KernelRegistry): SimdMatmul {
  const done = installed.get(tf);
  if (done) return done;
  const simd = new SimdMatmul();
  installed.set(tf, simd);
  const wrap = (name: string, fast: (args: KernelArgs) => TensorInfo | TensorInfo[] | undefined) => {
    const original = tf.getKernel(name, "wasm");
    if (!original) return;
    tf.unregisterKernel(name, "wasm");
    tf.registerKernel({
      kernelName: name,
      backendName: "wasm",
      kernelFunc: (args) => fast(args) ?? original.kernelFunc(args),
    });
  };
  wrap("BatchMatMul", (args) => matMul2D(simd, args) ?? batchMatMul(simd, args));
  wrap("Conv2D", (args) => conv1x1(simd, args));
  wrap("SplitV", splitV);
  wrap("GatherV2", gatherV2);
  return simd;
}

const installed = new WeakMap<object, SimdMatmul>();
