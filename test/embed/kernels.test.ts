import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadUseLite } from "../../src/embed/index.js";
import { packPanels, SimdMatmul } from "../../src/embed/use-lite/simd-matmul.js";
import { MATMUL_WASM } from "../../src/embed/use-lite/matmul-wasm.js";
// @ts-expect-error a plain script, no types
import { assemble } from "../../scripts/wasm-bytes.mjs";

const require = createRequire(import.meta.url);
const tf = require("@tensorflow/tfjs-core") as typeof import("@tensorflow/tfjs-core");
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** The obviously correct product: C[i][j] = Σ A[i][kk]·B[kk][j], summed in order. */
function reference(a: Float32Array, b: Float32Array, m: number, k: number, n: number): Float32Array {
  const c = new Float32Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let kk = 0; kk < k; kk++) s = Math.fround(s + Math.fround(a[i * k + kk] * b[kk * n + j]));
      c[i * n + j] = s;
    }
  return c;
}

const floats = (len: number) =>
  fc
    .array(fc.float({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true }), { minLength: len, maxLength: len })
    .map((xs) => Float32Array.from(xs));
const close = (got: ArrayLike<number>, want: ArrayLike<number>) => {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    expect(Math.abs(got[i] - want[i])).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i])));
};

describe("SIMD matrix product", () => {
  it("is matmul.wat assembled (the bytes in matmul-wasm.ts are not edited by hand)", async () => {
    const bytes = (await assemble(path.join(root, "src/embed/use-lite/matmul.wat"))) as Uint8Array;
    expect(Buffer.from(MATMUL_WASM).equals(Buffer.from(bytes))).toBe(true);
  });

  it("equals the plain triple loop exactly for any shape (property)", () => {
    const simd = new SimdMatmul();
    const shapes = fc.record({
      m: fc.integer({ min: 1, max: 9 }),
      k: fc.integer({ min: 1, max: 40 }),
      n4: fc.integer({ min: 1, max: 12 }),
    });
    fc.assert(
      fc.property(
        shapes.chain(({ m, k, n4 }) => fc.tuple(fc.constant({ m, k, n: n4 * 4 }), floats(m * k), floats(k * n4 * 4))),
        ([{ m, k, n }, a, b]) => {
          const {
            views: [A, B, C],
            at,
          } = simd.scratch(m * k, k * n, m * n);
          A.set(a);
          B.set(b);
          C.fill(NaN);
          simd.run(at[0], at[1], at[2], m, k, n);
          // same order of additions as the reference, so the same floats
          expect(Array.from(C)).toEqual(Array.from(reference(a, b, m, k, n)));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("the packed product equals the plain triple loop exactly, for kept and per-call weights (property)", () => {
    const simd = new SimdMatmul();
    const shapes = fc.record({
      m: fc.integer({ min: 1, max: 101 }),
      k: fc.integer({ min: 1, max: 30 }),
      n16: fc.integer({ min: 1, max: 3 }),
      keep: fc.boolean(),
    });
    fc.assert(
      fc.property(
        shapes.chain(({ m, k, n16, keep }) =>
          fc.tuple(fc.constant({ m, k, n: n16 * 16, keep }), floats(m * k), floats(k * n16 * 16)),
        ),
        ([{ m, k, n, keep }, a, b]) => {
          const key = {};
          if (keep) expect(simd.keepWeight(key, b, k, n)).toBe(true);
          const {
            views: [A, B, C],
            at,
          } = simd.scratch(m * k, k * n, m * n);
          A.set(a);
          if (!keep) packPanels(b, k, n, B);
          C.fill(NaN);
          simd.gemm(at[0], keep ? simd.weight(key, k, n)! : at[1], at[2], m, k, n);
          expect(Array.from(C)).toEqual(Array.from(reference(a, b, m, k, n)));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("wasm backend kernels", () => {
  it("batched products, with and without transposing b, agree with the reference (property)", async () => {
    await loadUseLite(); // installs the kernels on the wasm backend
    expect(tf.getBackend()).toBe("wasm");
    const shapes = fc.record({
      batch: fc.integer({ min: 2, max: 5 }),
      m: fc.integer({ min: 1, max: 9 }),
      k: fc.integer({ min: 1, max: 20 }),
      n: fc.integer({ min: 1, max: 19 }),
      tb: fc.boolean(),
    });
    fc.assert(
      fc.property(
        shapes.chain((s) => fc.tuple(fc.constant(s), floats(s.batch * s.m * s.k), floats(s.batch * s.k * s.n))),
        ([{ batch, m, k, n, tb }, a, b]) => {
          // b as given to the kernel: [batch, k, n], or [batch, n, k] when transposed
          const bIn = tb
            ? Float32Array.from({ length: b.length }, (_, i) => {
                const t = Math.floor(i / (n * k));
                const r = i % (n * k);
                const j = Math.floor(r / k);
                const kk = r % k;
                return b[t * k * n + kk * n + j];
              })
            : b;
          const got = tf.tidy(() =>
            tf
              .matMul(tf.tensor3d(a, [batch, m, k]), tf.tensor3d(bIn, tb ? [batch, n, k] : [batch, k, n]), false, tb)
              .dataSync(),
          );
          const want = new Float32Array(batch * m * n);
          for (let t = 0; t < batch; t++)
            want.set(
              reference(a.subarray(t * m * k, (t + 1) * m * k), b.subarray(t * k * n, (t + 1) * k * n), m, k, n),
              t * m * n,
            );
          close(got, want);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("dense layers (2-D products, 1×1 convolutions) agree with the reference (property)", async () => {
    await loadUseLite();
    const shapes = fc.record({
      m: fc.integer({ min: 1, max: 40 }),
      k: fc.integer({ min: 1, max: 24 }),
      n: fc.constantFrom(16, 32, 48, 20),
      conv: fc.boolean(),
    });
    fc.assert(
      fc.property(
        shapes.chain((s) => fc.tuple(fc.constant(s), floats(s.m * s.k), floats(s.k * s.n))),
        ([{ m, k, n, conv }, a, b]) => {
          const got = tf.tidy(() =>
            conv
              ? tf.conv2d(tf.tensor4d(a, [1, m, 1, k]), tf.tensor4d(b, [1, 1, k, n]), 1, "same").dataSync()
              : tf.matMul(tf.tensor2d(a, [m, k]), tf.tensor2d(b, [k, n])).dataSync(),
          );
          close(got, reference(a, b, m, k, n));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("split and gather copy the right runs", async () => {
    await loadUseLite();
    const x = tf.tensor3d(
      Float32Array.from({ length: 2 * 3 * 10 }, (_, i) => i),
      [2, 3, 10],
    );
    const parts = tf.split(x, [2, -1, 5], 2);
    expect(parts.map((p) => p.shape)).toEqual([
      [2, 3, 2],
      [2, 3, 3],
      [2, 3, 5],
    ]);
    expect(Array.from(parts[1].dataSync()).slice(0, 6)).toEqual([2, 3, 4, 12, 13, 14]);
    const mid = tf.split(x, 3, 1)[1];
    expect(Array.from(mid.dataSync())).toEqual([
      10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
    ]);
    const table = tf.tensor2d(
      Float32Array.from({ length: 5 * 3 }, (_, i) => i),
      [5, 3],
    );
    expect(Array.from(tf.gather(table, tf.tensor1d([4, 0, 4], "int32")).dataSync())).toEqual([
      12, 13, 14, 0, 1, 2, 12, 13, 14,
    ]);
    expect(Array.from(tf.gather(table, tf.tensor1d([2], "int32"), 1).dataSync())).toEqual([2, 5, 8, 11, 14]);
    expect(() => tf.gather(table, tf.tensor1d([5], "int32")).dataSync()).toThrow(/not in \[0, 4\]/);
  });

  it("give the model's vectors of TensorFlow.js's own kernels", async () => {
    const texts = [
      "Sourdough\nFeed the starter with flour and water.",
      "SMARS > Motors\nTwo N20 motors drive the tracks through a small gearbox. ".repeat(6),
      "k3s",
      "",
    ];
    const built = path.join(root, "dist/embed/use-lite/model.js");
    expect(fs.existsSync(built), `${built} is missing — run \`npm run build\` (npm test does it)`).toBe(true);
    const script = `import { loadUseLite } from ${JSON.stringify(built)};
      const rt = await loadUseLite();
      const v = await rt.run(${JSON.stringify(texts)}.map((t) => rt.tokenizer.encode(t).slice(0, 128)));
      process.stdout.write(JSON.stringify(v.map((x) => Array.from(x))));`;
    const stock = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, VAULT_RAG_STOCK_KERNELS: "1" },
        encoding: "utf8",
      }),
    ) as number[][];
    const rt = await loadUseLite();
    const mine = await rt.run(texts.map((t) => rt.tokenizer.encode(t).slice(0, 128)));
    // the README quotes the largest difference measured here (2.1·10⁻⁷, under 3·10⁻⁷); the test allows 10⁻⁶
    let largest = 0;
    mine.forEach((v, i) => {
      const cos = v.reduce((s, x, j) => s + x * stock[i][j], 0);
      expect(cos).toBeGreaterThan(0.99999);
      largest = Math.max(largest, ...v.map((x, j) => Math.abs(x - stock[i][j])));
    });
    console.log(`kernels: largest difference from the stock kernels' vectors ${largest.toExponential(2)}`);
    expect(largest).toBeLessThan(1e-6);
  });

  it("fall back to TensorFlow.js's stock kernels without WebAssembly SIMD, with a warning, and give the same vectors", async () => {
    const texts = [
      "Sourdough\nFeed the starter with flour and water.",
      "SMARS > Motors\nTwo N20 motors drive the tracks through a small gearbox. ".repeat(4),
      "k3s",
    ];
    // VAULT_RAG_WASM_SIMD=0 makes the host look as one without SIMD (QEMU's default CPU, old VMs)
    const script = `import { useLiteEmbedder } from ${JSON.stringify(path.join(root, "dist/embed/index.js"))};
      import { collectingLogger } from ${JSON.stringify(path.join(root, "dist/log.js"))};
      import { createRequire } from "node:module";
      const log = collectingLogger();
      const e = useLiteEmbedder(log);
      const v = await e.embedDocuments(${JSON.stringify(texts)});
      const q = await e.embedQuery("k3s");
      const tf = createRequire(${JSON.stringify(path.join(root, "package.json"))})("@tensorflow/tfjs-core");
      process.stdout.write(JSON.stringify({ v: [...v, q].map((x) => Array.from(x)), warnings: log.warnings, simd: await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT") }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, VAULT_RAG_WASM_SIMD: "0" },
        encoding: "utf8",
      }),
    ) as {
      v: number[][];
      warnings: { code: string; message: string }[];
      simd: boolean;
    };
    expect(out.simd).toBe(false);
    expect(out.warnings).toEqual([
      {
        code: "wasm_simd_unavailable",
        message:
          "vault-rag: this CPU or VM has no WebAssembly SIMD; the bundled model runs on TensorFlow.js's stock kernels, slower but with the same vectors — give the VM the host's CPU model (e.g. QEMU -cpu host) for full speed",
      },
    ]);
    const rt = await loadUseLite();
    const mine = await rt.run([...texts, "k3s"].map((t) => rt.tokenizer.encode(t).slice(0, 128)));
    let largest = 0;
    mine.forEach((v, i) => {
      expect(v.reduce((s, x, j) => s + x * out.v[i][j], 0)).toBeGreaterThan(0.99999);
      largest = Math.max(largest, ...v.map((x, j) => Math.abs(x - out.v[i][j])));
    });
    // the README's bound covers this path too: measured 2.5·10⁻⁷, allowed 10⁻⁶
    console.log(`kernels: largest difference without SIMD ${largest.toExponential(2)}`);
    expect(largest).toBeLessThan(1e-6);
  });
});
