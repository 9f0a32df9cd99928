import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  blobDims,
  blobFitsSql,
  blobToVector,
  fromHalf,
  toHalf,
  vectorToBlob,
} from "../../src/store/sqlite/vector-blob.js";

const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

describe("window vector blobs", () => {
  it("keeps a vector as float16 (2 bytes a dimension and a mark) within 2⁻¹¹ of each component (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }).map((n) => n * 2),
        fc.float({ min: Math.fround(0.01), max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 1e6 }),
        (dims, scale, seed) => {
          let x = seed;
          const next = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * scale;
          const v = Float32Array.from({ length: dims }, next);
          v[0] = scale; // the largest within float16's range
          const blob = vectorToBlob(v);
          expect(blob.length).toBe(dims * 2 + 2);
          expect(blob.length % 4).toBe(2);
          expect(blobDims(blob)).toBe(dims);
          const back = blobToVector(blob);
          expect(back.length).toBe(dims);
          for (let i = 0; i < dims; i++) {
            // float16's step at |x|, or its smallest normal's for the tiniest components
            const step = Math.max(Math.abs(v[i]), 2 ** -14) * 2 ** -11;
            expect(Math.abs(back[i] - v[i])).toBeLessThanOrEqual(step);
          }
          // what is read back is written back the same
          expect(vectorToBlob(back).equals(blob)).toBe(true);
        },
      ),
    );
  });

  it("rounds to the nearest float16, ties to even, and reads every float16 back", () => {
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(65504)).toBe(0x7bff);
    expect(toHalf(1e6)).toBe(0x7c00);
    expect(toHalf(2 ** -24)).toBe(1); // the smallest subnormal
    expect(toHalf(2 ** -26)).toBe(0);
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie: to even
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    // a vector's components round as toHalf rounds each: ties, and values just either side of them
    const xs: number[] = [];
    for (let h = 0x0001; h < 0x77ff; h++) {
      const tie = (fromHalf(h) + fromHalf(h + 1)) / 2;
      xs.push(tie, -tie, Math.fround(tie * (1 + 2 ** -20)), Math.fround(tie * (1 - 2 ** -20)), fromHalf(h));
    }
    if (xs.length % 2) xs.push(0);
    const v = Float32Array.from(xs);
    const blob = vectorToBlob(v);
    expect(blob.length).toBe(v.length * 2 + 2);
    for (let i = 0; i < v.length; i++) expect(blob.readUInt16LE(i * 2)).toBe(toHalf(v[i]));
    for (let h = 0; h < 0x7c00; h++) {
      expect(toHalf(fromHalf(h))).toBe(h);
      expect(toHalf(-fromHalf(h))).toBe(h === 0 ? 0x8000 : h | 0x8000);
    }
  });

  it("keeps float32 what float16 cannot carry, and reads float32 blobs of an earlier build", () => {
    const odd = Float32Array.of(0.6, 0.8, 0);
    const tiny = Float32Array.of(1e-4, -1e-4);
    const huge = Float32Array.of(1e5, 1);
    for (const v of [odd, tiny, huge, new Float32Array(0)]) {
      const blob = vectorToBlob(v);
      expect(blob.length).toBe(v.length * 4);
      expect(blobToVector(blob)).toEqual(v);
      expect(blobDims(blob)).toBe(v.length);
    }
    // an index written before float16: its 2 KB rows read as they were
    const old = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i) / 16);
    expect(blobToVector(bytes(old))).toEqual(old);
    expect(blobDims(bytes(old))).toBe(512);
  });

  it("tells SQL which lengths a window of the index's dimensions may have", () => {
    expect(blobFitsSql("vector", 512)).toBe("length(vector) IN (0, 2048, 1026)");
    expect(blobFitsSql("vector", 3)).toBe("length(vector) IN (0, 12)");
  });
});
