import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { DenseIndex, EXACT_SCAN_LIMIT, type RowSource } from "../../src/store/sqlite/dense-index.js";
import { Int8Matrix } from "../../src/store/sqlite/simd-dot.js";
import { rng } from "../../bench/gen.js";

const blob = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

/** The store's rows as a snapshot-backed index reads them (row id i + 1 is rows[i]), counting the reads. */
function sourceOf(rows: Float32Array[]): RowSource & { rows: number; wholes: number } {
  const source = {
    rows: 0,
    wholes: 0,
    row(rowid: number) {
      source.rows++;
      return rows[rowid - 1];
    },
    all() {
      source.wholes++;
      const matrix = new Float32Array(rows.length * (rows[0]?.length ?? 0));
      rows.forEach((v, i) => matrix.set(v, i * v.length));
      return { rowids: Int32Array.from(rows, (_, i) => i + 1), matrix };
    },
  };
  return source;
}

/** The obviously correct reference: sort every row by exact cosine distance. */
function exact(rows: Float32Array[], q: Float32Array, k: number, allowed?: Set<number>): number[] {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return rows
    .map((v, i) => ({ id: i + 1, d: 1 - v.reduce((s, x, j) => s + x * q[j], 0) / (norm(v) * norm(q)) }))
    .filter((x) => !allowed || allowed.has(x.id))
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, k)
    .map((x) => x.id);
}

describe("int8 SIMD kernel", () => {
  it("computes the same dot products as a plain loop over the quantized values (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom(16, 32, 64),
        fc.integer({ min: 1, max: 1e6 }),
        (rows, dims, seed) => {
          const r = rng(seed);
          const m = Float32Array.from({ length: rows * dims }, () => r() - 0.5);
          const q = Float32Array.from({ length: dims }, () => r() - 0.5);
          const im = Int8Matrix.fromFloat(m, rows, dims)!;
          const got = im.approxDots(q);
          const qmax = Math.max(...q.map(Math.abs));
          const q16 = Array.from(q, (x) => Math.round((x * 127) / qmax));
          for (let i = 0; i < rows; i++) {
            let dot = 0;
            for (let j = 0; j < dims; j++) dot += im.bytes[i * dims + j] * q16[j];
            expect(got[i]).toBeCloseTo(dot * im.rowScales[i] * (qmax / 127), 4);
            // and the approximation is close to the float dot product
            let f = 0;
            for (let j = 0; j < dims; j++) f += m[i * dims + j] * q[j];
            expect(Math.abs(got[i] - f)).toBeLessThan(0.02 * dims ** 0.5);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("int8 kernel on listed rows", () => {
  it("equals the full scan's entries for those rows (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 1e6 }), (rows, seed) => {
        const r = rng(seed);
        const dims = 32;
        const m = Float32Array.from({ length: rows * dims }, () => r() - 0.5);
        const q = Float32Array.from({ length: dims }, () => r() - 0.5);
        const im = Int8Matrix.fromFloat(m, rows, dims)!;
        const full = Int32Array.from(im.rawDots(q).raw);
        const list = Int32Array.from({ length: Math.ceil(rows / 2) }, () => Math.floor(r() * rows));
        const part = im.rawDotsOf(q, list).raw;
        list.forEach((row, i) => expect(part[i]).toBe(full[row]));
      }),
      { numRuns: 100 },
    );
  });
});

describe("dense index", () => {
  it("returns exactly the reference's neighbours on small indexes, filtered or not (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 1, max: 10 }),
        (n, seed, k) => {
          const r = rng(seed);
          const rows = Array.from({ length: n }, () => Float32Array.from({ length: 8 }, () => r() - 0.5));
          const idx = DenseIndex.fromRows(
            rows.map((v, i) => [i + 1, blob(v)]),
            8,
          );
          const q = Float32Array.from({ length: 8 }, () => r() - 0.5);
          const allowed = new Set(rows.map((_, i) => i + 1).filter((id) => id % 3 !== 0));
          expect(idx.search(q, k).map((h) => h.rowid)).toEqual(exact(rows, q, k));
          expect(idx.search(q, k, allowed).map((h) => h.rowid)).toEqual(exact(rows, q, k, allowed));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("scores a passage by its best window and returns each passage once, filtered or not (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 1e6 }),
        fc.integer({ min: 1, max: 10 }),
        (n, seed, k) => {
          const r = rng(seed);
          // n windows over fewer passages: passage ids repeat, in no particular order
          const owner = Array.from({ length: n }, () => 1 + Math.floor(r() * Math.max(1, n / 3)));
          const rows = Array.from({ length: n }, () => Float32Array.from({ length: 8 }, () => r() - 0.5));
          const idx = DenseIndex.fromRows(
            rows.map((v, i) => [owner[i], blob(v)]),
            8,
          );
          const q = Float32Array.from({ length: 8 }, () => r() - 0.5);
          const norm = (v: Float32Array) => Math.sqrt(v.reduce((t, x) => t + x * x, 0)) || 1;
          // reference: each passage's best window distance, sorted
          const reference = (allowed?: Set<number>) => {
            const best = new Map<number, number>();
            rows.forEach((v, i) => {
              if (allowed && !allowed.has(owner[i])) return;
              const d = 1 - v.reduce((t, x, j) => t + x * q[j], 0) / (norm(v) * norm(q));
              if (!best.has(owner[i]) || d < best.get(owner[i])!) best.set(owner[i], d);
            });
            return [...best]
              .sort((a, b) => a[1] - b[1] || a[0] - b[0])
              .slice(0, k)
              .map(([id]) => id);
          };
          expect(idx.search(q, k).map((h) => h.rowid)).toEqual(reference());
          const allowed = new Set(owner.filter((id) => id % 2 === 0));
          expect(idx.search(q, k, allowed).map((h) => h.rowid)).toEqual(reference(allowed));
          const mask = Uint8Array.from(owner, (id) => (id % 2 === 0 ? 1 : 0));
          expect(idx.search(q, k, mask).map((h) => h.rowid)).toEqual(reference(allowed));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps recall@10 ≥ 0.99 and 300-deep lists exact with the int8 first stage above the exact-scan limit, and survives a snapshot", () => {
    const r = rng(11);
    const n = EXACT_SCAN_LIMIT + 5000;
    const dims = 32;
    const centres = Array.from({ length: 20 }, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    const rows = Array.from({ length: n }, () => {
      const c = centres[Math.floor(r() * centres.length)];
      return Float32Array.from(c, (x) => x + (r() - 0.5) * 0.5);
    });
    const idx = DenseIndex.fromRows(
      rows.map((v, i) => [i + 1, blob(v)]),
      dims,
    );
    const source = sourceOf(rows);
    const restored = DenseIndex.fromBuffer(idx.toBuffer("k")!, "k", source)!;
    expect(DenseIndex.fromBuffer(idx.toBuffer("k")!, "other", source)).toBeUndefined();
    // the snapshot holds no float rows: they are read from the store when rescored
    expect(idx.toBuffer("k")!.length).toBeLessThan(n * (dims + 16));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-snap-")), "index.db.vectors");
    fs.writeFileSync(file, idx.toBuffer("k")!);
    const fromFile = DenseIndex.fromFile(file, "k", source)!;
    expect(DenseIndex.fromFile(file, "other", source)).toBeUndefined();
    fs.writeFileSync(file + ".torn", idx.toBuffer("k")!.subarray(0, 1000));
    expect(DenseIndex.fromFile(file + ".torn", "k", source)).toBeUndefined();
    // a filter keeping a third of the rows goes through the listed-rows kernel
    const third = new Set(rows.map((_, i) => i + 1).filter((id) => id % 3 === 0));
    const qf = Float32Array.from(centres[0], (x) => x + (r() - 0.5) * 0.5);
    const wantF = new Set(exact(rows, qf, 10, third));
    expect(idx.search(qf, 10, third).filter((h) => wantF.has(h.rowid)).length).toBeGreaterThanOrEqual(9);
    let recall = 0;
    const Q = 20;
    for (let t = 0; t < Q; t++) {
      const q = Float32Array.from(centres[t % centres.length], (x) => x + (r() - 0.5) * 0.5);
      const want = new Set(exact(rows, q, 10));
      const got = idx.search(q, 10).map((h) => h.rowid);
      expect(restored.search(q, 10).map((h) => h.rowid)).toEqual(got);
      expect(fromFile.search(q, 10)).toEqual(idx.search(q, 10));
      recall += got.filter((id) => want.has(id)).length / 10;
    }
    expect(recall / Q).toBeGreaterThanOrEqual(0.99);
    // a hybrid search's 300-deep list: the pool of RESCORE_FACTOR × k holds all of its rows
    for (let t = 0; t < 5; t++) {
      const q = Float32Array.from(centres[t], (x) => x + (r() - 0.5) * 0.5);
      expect(idx.search(q, 300).map((h) => h.rowid)).toEqual(exact(rows, q, 300));
    }
    // a filter small enough for an exact scan reads the rows whole, with the same answer
    const few = new Set([...third].slice(0, 3000));
    expect(fromFile.search(qf, 10, few)).toEqual(idx.search(qf, 10, few));
    fromFile.close();
  });

  it("reads rows from the store one by one until it has read as many as it holds, then the whole matrix once", () => {
    const r = rng(5);
    const n = EXACT_SCAN_LIMIT + 1000;
    const dims = 16;
    const rows = Array.from({ length: n }, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    const idx = DenseIndex.fromRows(
      rows.map((v, i) => [i + 1, blob(v)]),
      dims,
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-snap-")), "index.db.vectors");
    fs.writeFileSync(file, idx.toBuffer("k")!);
    const source = sourceOf(rows);
    const fromFile = DenseIndex.fromFile(file, "k", source)!;
    const perQuery: number[] = [];
    for (let t = 0; t < 30; t++) {
      const q = Float32Array.from({ length: dims }, () => r() - 0.5);
      const before = source.rows + source.wholes;
      expect(fromFile.search(q, 10)).toEqual(idx.search(q, 10));
      perQuery.push(source.rows + source.wholes - before);
    }
    // each query rescores 256 rows: 23 queries read them one by one (5,888 ≤ 6,000), the 24th
    // passes the count and reads the matrix whole, and later ones read nothing
    expect(perQuery.slice(0, 23).every((c) => c === 256)).toBe(true);
    // the 24th: 112 rows one by one (23 × 256 + 112 = 6,000), then the matrix in one read
    expect(perQuery[23]).toBe(6000 - 23 * 256 + 1);
    expect(perQuery.slice(24)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(source.wholes).toBe(1);
  });

  it("never scores rows a snapshot does not match: the snapshot is refused and removed", () => {
    const r = rng(11);
    const n = EXACT_SCAN_LIMIT + 100;
    const dims = 16;
    const rows = Array.from({ length: n }, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    const idx = DenseIndex.fromRows(
      rows.map((v, i) => [i + 1, blob(v)]),
      dims,
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-snap-")), "index.db.vectors");
    fs.writeFileSync(file, idx.toBuffer("k")!);
    // the store's rows are not those the snapshot was made of (its norms disagree)
    const other = sourceOf(rows.map((v) => v.map((x) => x * 2)));
    const fromFile = DenseIndex.fromFile(file, "k", other)!;
    expect(fromFile).toBeDefined(); // the parts read at once are whole
    const q = Float32Array.from({ length: dims }, () => r() - 0.5);
    expect(() => fromFile.search(q, 10)).toThrow(
      `vault-rag: the vector cache ${file} did not match the index and was removed — search again; it is rebuilt from the index`,
    );
    expect(fs.existsSync(file)).toBe(false);
    // a row the store does not hold, or a whole read of other rows: refused the same way
    fs.writeFileSync(file, idx.toBuffer("k")!);
    const missing = DenseIndex.fromFile(file, "k", { row: () => undefined, all: sourceOf(rows).all })!;
    expect(() => missing.search(q, 10)).toThrow(/did not match the index/);
    fs.writeFileSync(file, idx.toBuffer("k")!);
    const shorter = DenseIndex.fromFile(file, "k", sourceOf(rows.slice(1)))!;
    expect(() => shorter.search(q, 10, new Set(rows.map((_, i) => i + 1).slice(0, 3000)))).toThrow(
      /did not match the index/,
    );
    // the row ids or norms damaged: the snapshot is not read at all
    const torn = idx.toBuffer("k")!;
    torn.fill(0xff, torn.indexOf(10) + 1, torn.indexOf(10) + 1 + 64);
    fs.writeFileSync(file, torn);
    expect(DenseIndex.fromFile(file, "k", sourceOf(rows))).toBeUndefined();
    // one byte of the int8 copy (read straight into the scanning memory) damaged: not read either
    const flipped = idx.toBuffer("k")!;
    flipped[flipped.length - 7] ^= 0x40;
    fs.writeFileSync(file, flipped);
    expect(DenseIndex.fromFile(file, "k", sourceOf(rows))).toBeUndefined();
    // a snapshot of an earlier build (float rows after the norms, and a checksum of them) is not read
    const older = idx.toBuffer("k")!;
    const nl = older.indexOf(10);
    const header = JSON.parse(older.subarray(0, nl).toString()) as Record<string, unknown>;
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from(JSON.stringify({ ...header, rows: "crc32:0" })), older.subarray(nl)]),
    );
    expect(DenseIndex.fromFile(file, "k", sourceOf(rows))).toBeUndefined();
    fs.writeFileSync(file, idx.toBuffer("k")!);
    expect(DenseIndex.fromFile(file, "k", sourceOf(rows))?.search(q, 10)).toEqual(idx.search(q, 10));
  });

  it("reads a snapshot on a thread of its own with the same answers, and refuses it damaged, torn or another's", async () => {
    const r = rng(12);
    const n = EXACT_SCAN_LIMIT + 300;
    const dims = 32;
    const rows = Array.from({ length: n }, () => Float32Array.from({ length: dims }, () => r() - 0.5));
    const idx = DenseIndex.fromRows(
      rows.map((v, i) => [i + 1, blob(v)]),
      dims,
    );
    const source = sourceOf(rows);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-snap-"));
    const file = path.join(dir, "index.db.vectors");
    fs.writeFileSync(file, idx.toBuffer("k")!);
    const reads = vi.spyOn(fs, "readSync");
    const threaded = (await DenseIndex.fromFileOffThread(file, "k", source))!;
    // this thread read the header only: the int8 rows (n × dims bytes) were read by the other
    const readHere = reads.mock.calls.reduce((sum, c) => sum + Number((c as unknown[])[3] ?? 0), 0);
    reads.mockRestore();
    expect(readHere).toBeLessThan(n * dims);
    const here = DenseIndex.fromFile(file, "k", source)!;
    try {
      for (let t = 0; t < 5; t++) {
        const q = Float32Array.from({ length: dims }, () => r() - 0.5);
        expect(threaded.search(q, 50)).toEqual(here.search(q, 50));
        expect(threaded.search(q, 50)).toEqual(idx.search(q, 50));
      }
    } finally {
      threaded.close();
      here.close();
    }
    expect(await DenseIndex.fromFileOffThread(file, "other", source)).toBeUndefined();
    expect(await DenseIndex.fromFileOffThread(path.join(dir, "missing.vectors"), "k", source)).toBeUndefined();
    fs.writeFileSync(file, idx.toBuffer("k")!.subarray(0, 4000));
    expect(await DenseIndex.fromFileOffThread(file, "k", source)).toBeUndefined();
    // one byte of the int8 copy, which the thread reads, damaged
    const flipped = idx.toBuffer("k")!;
    flipped[flipped.length - 7] ^= 0x40;
    fs.writeFileSync(file, flipped);
    expect(await DenseIndex.fromFileOffThread(file, "k", source)).toBeUndefined();
    // a small index has no snapshot: it is built from the store
    expect(DenseIndex.fromRows([[1, blob(Float32Array.of(1, 0, 0, 0))]], 4).toBuffer("s")).toBeUndefined();
  });

  it("falls back to plain loops on a host without WebAssembly SIMD, with the same neighbours", () => {
    // VAULT_RAG_WASM_SIMD=0 makes the host look as one without SIMD
    const script = `import { DenseIndex, EXACT_SCAN_LIMIT } from ${JSON.stringify(path.resolve("src/store/sqlite/dense-index.ts"))};
      import { int8DotModule } from ${JSON.stringify(path.resolve("src/store/sqlite/simd-dot.ts"))};
      import { rng } from ${JSON.stringify(path.resolve("bench/gen.ts"))};
      const r = rng(5);
      const rows = Array.from({ length: EXACT_SCAN_LIMIT + 2000 }, () => Float32Array.from({ length: 32 }, () => r() - 0.5));
      const idx = DenseIndex.fromRows(rows.map((v, i) => [i + 1, new Uint8Array(v.buffer)]), 32);
      const q = Float32Array.from({ length: 32 }, () => r() - 0.5);
      console.log(JSON.stringify({ module: int8DotModule(), hits: idx.search(q, 10).map((h) => h.rowid), rows: rows.map((v) => Array.from(v)), q: Array.from(q) }));`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-nosimd-"));
    fs.writeFileSync(path.join(dir, "run.ts"), script);
    const out = JSON.parse(
      execFileSync(process.execPath, ["--import", "tsx", path.join(dir, "run.ts")], {
        env: { ...process.env, VAULT_RAG_WASM_SIMD: "0" },
        encoding: "utf8",
        maxBuffer: 1 << 28,
      }),
    ) as {
      module: unknown;
      hits: number[];
      rows: number[][];
      q: number[];
    };
    expect(out.module).toBeNull();
    expect(out.hits).toEqual(
      exact(
        out.rows.map((v) => Float32Array.from(v)),
        Float32Array.from(out.q),
        10,
      ),
    );
  });
});
