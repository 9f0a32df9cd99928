/**
 * `npm run bench`: measured figures for the README's performance table. Prints medians and percentiles. Reads
 * ../shared/bench when present (not needed). Set BENCH_QUICK=1 for a smaller run.
 *
 * Not part of the published package: it runs with tsx on the built code in dist/ (what users run),
 * so `npm run bench` builds first.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chunkNote } from "../dist/chunk/index.js";
import type { Embedder } from "../dist/embed/index.js";
import { loadUseLite, passageWindows, useLiteEmbedder, windowOptions } from "../dist/embed/index.js";
import { batchesByLength, POOL_MIN_TEXTS, USE_LITE_MAX_TOKENS } from "../dist/embed/use-lite/embedder.js";
import { sharedPool, threadCount } from "../dist/embed/use-lite/pool.js";
import { indexVault } from "../dist/indexing/index.js";
import { ChromaStore, normaliseWhere, SqliteStore, type Store, type StoreRecord } from "../dist/store/index.js";
import { startChromaServer, type ChromaServer } from "../test/support/chroma-server.js";
import { regexBench } from "./regex-bench.js";
import { serveBench } from "./serve-bench.js";
import { residentBench } from "./resident-bench.js";
import { scaleBench } from "./scale.js";
import { firstIndexBench } from "./first-index.js";
import { bigVaultsBench } from "./big-vaults.js";
import { denseWorkersBench } from "./dense-workers.js";
import { threadsBench } from "./threads-bench.js";
import { exactTop, lanceBench, timeQueries } from "./lance-bench.js";
import { attachmentsBench } from "./attachments-bench.js";
import { parseNote, readNote, walkVault } from "../dist/vault/index.js";
import { generateVault, rng } from "./gen.js";
import { fuse, SEARCH_DEFAULTS } from "../dist/search/index.js";
import { evaluate, evalSettingsFor, prepareBeir, readKnownAnswers, type Qrels } from "../dist/search/eval.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(root, "dist/cli/main.js");
const quick = !!process.env.BENCH_QUICK;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "vr-bench-"));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];
const med = (xs: number[]) => pct(xs, 0.5);
const f1 = (x: number) => x.toFixed(1);
const rss = () => `${Math.round(process.memoryUsage().rss / 1e6)} MB`;
const line = (s: string) => console.log(s);

function bigNoteBench() {
  // four 5 MB shapes: long sections of prose, 40,000 tiny sections, one list with no heading, one table
  // (no top-level block boundary, so the block scan must read growing slices)
  const shapes = {
    prose: (i: number) =>
      `## Section ${i}\n\n` +
      Array.from(
        { length: 6 },
        (_, k) =>
          `Paragraph ${k} about the robot motors, the battery and the garden. It has a few sentences of ordinary prose. Nothing special happens here, which is fine.`,
      ).join("\n\n") +
      "\n\n```js\nconst x = 1;\n```\n\n- a list item\n- another\n\n",
    dense: (i: number) =>
      `## Section ${i}\n\nSome text about motors and wiring with a few more words in it. Another sentence follows.\n\n- item\n- item\n\n`,
    list: (i: number) => `- item ${i}: a line about the robot motors and the battery, with a few more words\n`,
    // one table, one block: its rows' tokens are dropped as made (26 million tokens for 20 MB ran out of memory)
    table: (i: number) =>
      (i === 0 ? "| part | note |\n|---|---|\n" : "") + `| motor ${i} | a row about the battery and wiring |\n`,
  };
  for (const [kind, make] of Object.entries(shapes)) {
    let s = "";
    let i = 0;
    while (s.length < 5_000_000) s += make(i++);
    const times: number[] = [];
    let chunks = 0;
    for (let k = 0; k < 7; k++) {
      const t = performance.now();
      chunks = chunkNote(parseNote(`big-${kind}-${k}.md`, s + " ".repeat(k), 0)).length;
      times.push(performance.now() - t);
    }
    const rssMb = Math.round(process.memoryUsage().rss / 1e6);
    const sorted = [...times].sort((a, b) => a - b);
    line(
      `chunk  5 MB note (${kind}, ${i} ${kind === "list" ? "items" : kind === "table" ? "rows" : "sections"}): read + parse + chunk median ${Math.round(med(times))} ms (min ${Math.round(sorted[0])}, max ${Math.round(sorted[sorted.length - 1])}, 7 runs) → ${chunks} chunks; RSS ${rssMb} MB`,
    );
  }
}

function chunkBench(dir: string, label: string) {
  const t = performance.now();
  const sizes: number[] = [];
  for (const f of walkVault(dir)) {
    const n = readNote(f);
    if (n) for (const c of chunkNote(n)) sizes.push(c.meta.word_count);
  }
  const ms = performance.now() - t;
  line(
    `chunk  ${label}: ${sizes.length} chunks; words min/median/max ${Math.min(...sizes)}/${med(sizes)}/${Math.max(...sizes)}; read+parse+chunk ${f1(ms)} ms`,
  );
}

type BenchRecord = { note: { path: string; hash: string; mtime: number; size: number }; records: StoreRecord[] };

/** The same clustered records and queries for every backend. */
function storeData(n: number, dims: number) {
  const r = rng(42);
  // clustered vectors (64 centres + noise), closer to real embeddings than uniform noise
  const centres = Array.from({ length: 64 }, () => Float32Array.from({ length: dims }, () => r() - 0.5));
  const vec = () => {
    const c = centres[Math.floor(r() * centres.length)];
    const v = Float32Array.from(c, (x) => x + (r() - 0.5) * 0.6);
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    return v.map((x) => x / norm);
  };
  const notes: BenchRecord[] = [];
  for (let i = 0; i < n; i++) {
    const p = `f${i % 10}/n${i}.md`;
    const text = Array.from({ length: 12 }, () => `w${Math.floor(r() * 5000)}`).join(" ");
    notes.push({
      note: { path: p, hash: `h${i}`, mtime: 1, size: 1 },
      records: [
        {
          id: `c${i}`,
          text,
          windows: [{ hash: `h${i}`, vector: vec() }],
          meta: {
            path: p,
            title: `Note ${i}`,
            section: `Note ${i}`,
            folder: `f${i % 10}`,
            top_folder: `f${i % 10}`,
            mtime: 1_700_000_000 + i,
            date: 1_700_000_000 + i,
            date_source: "mtime",
            props: {},
            word_count: 12,
            ordinal: 0,
            start_line: 1,
            end_line: 3,
            tags: i % 7 === 0 ? ["pico"] : ["other"],
            links: [],
            aliases: [],
            hash: `h${i}`,
          },
        },
      ],
    });
  }
  const queries = Array.from({ length: quick ? 20 : 50 }, vec);
  return { notes, queries };
}

interface StoreFigures {
  insertS: number;
  warmS: number;
  unf: number[];
  ten: number[];
  tag: number[];
  recall: number;
}

/** Insert time, dense p50s and recall@10 against an exact scan, through the Store interface. */
async function measureStore(store: Store, data: ReturnType<typeof storeData>, dims: number): Promise<StoreFigures> {
  await store.setManifest({
    schemaVersion: 1,
    embedder: {
      provider: "bench",
      model: "random",
      dimensions: dims,
      documentPrefix: "",
      queryPrefix: "",
      normalized: true,
    },
    chunkerVersion: "x",
    createdAt: "",
    updatedAt: "",
  });
  const t0 = performance.now();
  for (let i = 0; i < data.notes.length; i += 2000) await store.upsertNotes(data.notes.slice(i, i + 2000));
  const insertS = (performance.now() - t0) / 1000;
  // the embedded store builds its in-memory dense index (and snapshot) at the first query or at the
  // end of an indexing run; Chroma builds its HNSW graph during inserts
  const t1 = performance.now();
  await store.warmDense?.();
  const warmS = (performance.now() - t1) / 1000;
  const time = (fn: (q: Float32Array) => unknown) => timeQueries(data.queries, fn);
  const unf = await time((q) => store.queryDense(q, 18));
  const tenW = normaliseWhere({ folder: "f3" });
  const ten = await time((q) => store.queryDense(q, 18, { where: tenW }));
  const tagW = normaliseWhere({ tags: { $contains: "pico" } });
  const tag = await time((q) => store.queryDense(q, 18, { where: tagW }));
  let recall = 0;
  const all = data.notes.map((b) => b.records[0]);
  for (const q of data.queries.slice(0, 20)) {
    const exact = exactTop(all, q, 10);
    const got = new Set((await store.queryDense(q, 10)).map((x) => x.id));
    recall += exact.filter((id) => got.has(id)).length / 10;
  }
  return { insertS, warmS, unf, ten, tag, recall: recall / 20 };
}

const dense = (f: StoreFigures) =>
  `insert ${f1(f.insertS)} s${f.warmS > 0.05 ? ` (+ ${f1(f.warmS)} s dense index load)` : ""}; dense p50/p95 unfiltered ${f1(med(f.unf))}/${f1(pct(f.unf, 0.95))} ms, 10% folder filter ${f1(med(f.ten))}/${f1(pct(f.ten, 0.95))} ms, tag $contains ${f1(med(f.tag))}/${f1(pct(f.tag, 0.95))} ms; recall@10 vs exact ${f.recall.toFixed(3)}`;

async function storeBench(n: number, chroma?: ChromaServer) {
  const dims = 512;
  const data = storeData(n, dims);
  const file = path.join(work, `store-${n}.db`);
  const store = SqliteStore.open(file, { create: true });
  const sq = await measureStore(store, data, dims);
  const kw: number[] = [];
  for (const s of ["w12 w400", "w77", "w1 w2 w3 w4", "w4999 w17", "w250"]) {
    const t = performance.now();
    await store.queryKeyword(s, 18);
    kw.push(performance.now() - t);
  }
  // hybrid: both lists at the depth search() asks for (50), then fusion, as one query costs minus the embedding
  const kwTexts = ["w12 w400", "w77 w3", "w1 w2 w3 w4", "w4999 w17", "w250 w9"];
  const hyb: number[] = [];
  for (const [i, q] of data.queries.entries()) {
    const t = performance.now();
    fuse(
      { mode: "hybrid", fusion: SEARCH_DEFAULTS.fusion, alpha: SEARCH_DEFAULTS.alpha, rrfK: SEARCH_DEFAULTS.rrfK },
      await store.queryDense(q, 50),
      await store.queryKeyword(kwTexts[i % kwTexts.length], 50),
    );
    hyb.push(performance.now() - t);
  }
  await store.close();
  // on disk: the index file, its WAL and its dense snapshot (`.vectors`, derived for the int8 scan)
  const bytesOf = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  const snapshot = bytesOf(file + ".vectors");
  const size = bytesOf(file) + bytesOf(file + "-wal") + snapshot;
  // a new handle, as a new process opens the file, to its first dense answer
  const t0 = performance.now();
  const again = SqliteStore.open(file);
  await again.queryDense(data.queries[0], 18);
  const openMs = performance.now() - t0;
  await again.close();
  line(
    `store  SQLite ${n} × 512-d: ${dense(sq)}; keyword p50 ${f1(med(kw))} ms; hybrid p50/p95 ${f1(med(hyb))}/${f1(pct(hyb, 0.95))} ms (without embedding the query); on disk ${Math.round(size / 1e6)} MB (snapshot ${Math.round(snapshot / 1e6)} MB); open to first dense answer ${Math.round(openMs)} ms; RSS ${rss()}`,
  );
  const lance = await lanceBench(data, path.join(work, `lance-${n}`));
  if (!lance) line("store  LanceDB: @lancedb/lancedb not installed, skipped");
  else {
    const x = (a: number, b: number) => `×${(a / b).toFixed(2)}`;
    line(
      `store  LanceDB 0.31 ${n} × 512-d (no vector index): insert ${f1(lance.insertS)} s; dense p50/p95 unfiltered ${f1(med(lance.unf))}/${f1(pct(lance.unf, 0.95))} ms, 10% folder filter ${f1(med(lance.ten))}/${f1(pct(lance.ten, 0.95))} ms, tag filter ${f1(med(lance.tag))}/${f1(pct(lance.tag, 0.95))} ms; recall@10 vs exact ${lance.recall.toFixed(3)}; on disk ${Math.round(lance.bytes / 1e6)} MB; open to first dense answer ${Math.round(lance.openMs)} ms`,
    );
    line(
      `store  SQLite ÷ LanceDB at ${n}: on disk ${x(size, lance.bytes)}, insert ${x(sq.insertS, lance.insertS)} (${x(sq.insertS + sq.warmS, lance.insertS)} with the dense index load), open to first answer ${x(openMs, lance.openMs)}, dense p50 unfiltered ${x(med(sq.unf), med(lance.unf))}`,
    );
  }
  if (!chroma) return;
  const remote = await ChromaStore.open(`chroma://127.0.0.1:${chroma.port}/bench-${n}`, {
    create: true,
    sidecarDir: work,
  });
  const ch = await measureStore(remote, data, dims);
  await remote.close();
  line(`store  Chroma ${n} × 512-d (server + local BM25 sidecar): ${dense(ch)}`);
  const x = (a: number, b: number) => `×${(a / b).toFixed(1)}`;
  line(
    `store  Chroma ÷ SQLite at ${n}: insert ${x(ch.insertS, sq.insertS + sq.warmS)} (SQLite with its dense index load), dense p50 unfiltered ${x(med(ch.unf), med(sq.unf))}, 10% filter ${x(med(ch.ten), med(sq.ten))}, tag filter ${x(med(ch.tag), med(sq.tag))}`,
  );
}

/**
 * Seconds the bundled model alone takes for these texts: their token ids in the embedder's batches,
 * straight to the worker pool (or the calling thread where the embedder would use it).
 */
async function modelAlone(texts: string[]): Promise<number> {
  const rt = await loadUseLite();
  const { batches } = batchesByLength(texts.map((p) => rt.tokenizer.encode(p).slice(0, USE_LITE_MAX_TOKENS)));
  const pool = texts.length >= POOL_MIN_TEXTS ? sharedPool() : undefined;
  const t = performance.now();
  if (pool) await Promise.all(batches.map((b) => pool.run(b)));
  else for (const b of batches) await rt.run(b);
  return (performance.now() - t) / 1000;
}

async function embedBench() {
  const t = performance.now();
  const rt = await loadUseLite();
  const loadMs = performance.now() - t;
  const e = useLiteEmbedder();
  line(`embed  use-lite: model load ${f1(loadMs)} ms; ${threadCount()} worker threads`);
  const measure = async (label: string, texts: string[]) => {
    const tokT = performance.now();
    let tokens = 0;
    for (const p of texts) tokens += Math.min(USE_LITE_MAX_TOKENS, rt.tokenizer.encode(p).length);
    const tokMs = performance.now() - tokT;
    const t2 = performance.now();
    await e.embedDocuments(texts);
    const s = (performance.now() - t2) / 1000;
    const t3 = performance.now();
    await e.embedDocuments(texts);
    const warm = (performance.now() - t3) / 1000;
    const model = await modelAlone(texts);
    line(
      `embed  ${label}: ${texts.length} passages, ${Math.round(tokens / texts.length)} tokens on average (after the 128 cut): ` +
        `${f1(texts.length / s)} passages/s (${Math.round(tokens / s)} tokens/s) cold, ${f1(texts.length / warm)} passages/s warm; ` +
        `model alone ${f1(texts.length / model)} passages/s, so the pipeline's own overhead is ${(((warm - model) / model) * 100).toFixed(1)}% of the model time ` +
        `(tokenizer ${f1(tokMs / texts.length)} ms/passage); RSS ${rss()}`,
    );
  };
  // the example vault's chunks, as indexing embeds them
  const chunks: string[] = [];
  const words: string[] = [];
  for (const f of walkVault(path.join(root, "examples/vault"))) {
    const n = readNote(f);
    if (!n) continue;
    for (const c of chunkNote(n)) chunks.push(c.embedText);
    words.push(
      ...n.body
        .replace(/[#>|`*-]+/g, " ")
        .split(/\s+/)
        .filter(Boolean),
    );
  }
  await measure("examples/vault chunks", chunks);
  // generated passages of 100 words of real note prose: the example vault's text in 100-word windows
  const count = quick ? 200 : 2000;
  const passages = Array.from({ length: count }, (_, i) => {
    const start = (i * 37) % Math.max(1, words.length - 100);
    return words.slice(start, start + 100).join(" ");
  });
  await measure("100-word passages", passages);

  // the whole indexing pipeline (read, chunk, embed, write) against the model alone on its texts
  const dir = path.join(work, "pipeline-vault");
  generateVault(dir, quick ? 100 : 400, 11);
  const t5 = performance.now();
  const summary = await indexVault(dir, path.join(work, "pipeline.db"), e);
  const indexS = (performance.now() - t5) / 1000;
  const texts = new Set<string>();
  for (const f of walkVault(dir))
    for (const c of chunkNote(readNote(f)!))
      for (const w of passageWindows(c.embedText, windowOptions(e)!)) texts.add(w);
  const modelS = await modelAlone([...texts]);
  line(
    `embed  indexing pipeline, ${summary.added} generated notes → ${summary.embedded} windows embedded: ${f1(indexS)} s (${f1(summary.embedded / indexS)} windows/s); ` +
      `the model alone on the same ${texts.size} texts ${f1(modelS)} s, so reading, chunking, batching and writing add ${(((indexS - modelS) / modelS) * 100).toFixed(1)}%`,
  );
}

/** Vectors for timing runs where embedding quality is not measured: cheap, deterministic, 512-d, labelled as use-lite so the CLI opens the index. */
function timingEmbedder(): Embedder {
  const real = useLiteEmbedder();
  return {
    ...real,
    async embedDocuments(texts) {
      return texts.map((t) => {
        const r = rng(t.length + 1);
        return Float32Array.from({ length: 512 }, () => r() - 0.5);
      });
    },
  };
}

function cli(args: string[], cwd = work): number {
  const t = performance.now();
  execFileSync(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  return performance.now() - t;
}

async function cliBench() {
  const ex = path.join(work, "example");
  fs.cpSync(path.join(root, "examples/vault"), ex, {
    recursive: true,
    filter: (src) => path.basename(src) !== ".vault-rag",
  }); // never its index
  const indexMs = cli(["index", ex, "--quiet"]);
  const cold = Array.from({ length: 5 }, () => cli(["search", "--vault", ex, "how do the SMARS motors work"]));
  const unchanged = Array.from({ length: 3 }, () => cli(["index", ex, "--quiet"]));
  line(
    `cli    examples/vault: index end to end ${f1(indexMs / 1000)} s; cold search median ${Math.round(med(cold))} ms; unchanged re-index ${Math.round(med(unchanged))} ms`,
  );
  const n = quick ? 2000 : 10000;
  const big = path.join(work, `gen-${n}`);
  generateVault(big, n);
  chunkBench(big, `generated ${n} notes`);
  const t = performance.now();
  const s = await indexVault(big, path.join(big, ".vault-rag/index.db"), timingEmbedder());
  line(
    `cli    generated ${n} notes: indexing pipeline without model time (timing vectors) ${f1((performance.now() - t) / 1000)} s for ${s.chunks} chunks`,
  );
  const coldBig = Array.from({ length: 5 }, () => cli(["search", "--vault", big, "battery power for the robot"]));
  const re = Array.from({ length: 3 }, () => cli(["index", big, "--quiet"]));
  line(
    `cli    generated ${n} notes: cold search median ${Math.round(med(coldBig))} ms; unchanged re-index median ${Math.round(med(re))} ms`,
  );
  if (want("serve")) await serveBench({ bin: BIN, vault: big, notes: n, line });
  if (want("resident"))
    await residentBench({
      bin: BIN,
      vaults: [
        { label: "examples/vault", dir: ex, query: "how do the SMARS motors work" },
        { label: `generated ${n} notes`, dir: big, query: "battery power for the robot" },
      ],
      runs: quick ? 8 : 20,
      line,
      work,
    });
}

/** The retrieval quality table: every mode on the known-answer set, and on SciFact when its index is cached. */
async function qualityBench() {
  const ex = path.join(work, "quality");
  fs.cpSync(path.join(root, "examples/vault"), ex, {
    recursive: true,
    filter: (src) => path.basename(src) !== ".vault-rag",
  }); // never its index
  const db = path.join(ex, ".vault-rag/index.db");
  await indexVault(ex, db, useLiteEmbedder());
  const sets: { name: string; db: string; qrels: Qrels }[] = [
    { name: "examples/questions.jsonl", db, qrels: readKnownAnswers(path.join(root, "examples/questions.jsonl")) },
  ];
  const scifact = path.resolve(root, "../shared/bench/scifact-train");
  if (fs.existsSync(scifact)) {
    const prepared = prepareBeir(scifact);
    const sdb = path.join(prepared.vault, ".vault-rag/index.db");
    const s = fs.existsSync(sdb) ? SqliteStore.open(sdb) : undefined;
    const complete = s ? (await s.count()).notes >= fs.readdirSync(path.join(prepared.vault, "docs")).length : false;
    await s?.close();
    if (complete) sets.push({ name: "SciFact train", db: sdb, qrels: prepared.qrels });
    else
      line(
        `quality SciFact: index not built yet — run \`vault-rag eval ${scifact}\` once (about 35 min here), then re-run the bench`,
      );
  }
  for (const set of sets) {
    const store = SqliteStore.open(set.db);
    const results = await evaluate(
      { store, embedder: useLiteEmbedder() },
      set.qrels,
      evalSettingsFor(["keyword", "dense", "hybrid"]),
    );
    await store.close();
    for (const r of results) {
      const m = r.metrics;
      line(
        `quality ${set.name} ${r.setting.label.padEnd(24)} nDCG@10 ${m.ndcg10.toFixed(3)}  R@10 ${m.recall10.toFixed(3)}  R@100 ${m.recall100.toFixed(3)}  MRR@10 ${m.mrr10.toFixed(3)}  (${m.queries} queries)`,
      );
    }
  }
}

/** Time from saving a note to its text being searchable, and the cost of a 1,000-file burst. */
async function watchBench() {
  const { watchVault } = await import("../dist/indexing/index.js");
  const dir = path.join(work, "watch");
  fs.cpSync(path.join(root, "examples/vault"), dir, {
    recursive: true,
    filter: (src) => path.basename(src) !== ".vault-rag",
  }); // never its index
  const db = path.join(dir, ".vault-rag/index.db");
  const w = await watchVault(dir, db, useLiteEmbedder());
  await w.idle();
  const store = SqliteStore.open(db);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const word = `zqx${i}marker`;
    const t = performance.now();
    fs.writeFileSync(path.join(dir, `saved-${i}.md`), `# Saved ${i}\n\nA note saved with the word ${word} in it.\n`);
    while (!(await store.queryKeyword(word, 1)).length) await new Promise((r) => setTimeout(r, 20));
    times.push(performance.now() - t);
  }
  const t = performance.now();
  fs.mkdirSync(path.join(dir, "burst"));
  for (let i = 0; i < 1000; i++)
    fs.writeFileSync(
      path.join(dir, "burst", `n${i}.md`),
      `# Burst ${i}\n\nBurst note ${i} about ${i % 3 ? "robots" : "bread"} and more.\n`,
    );
  await new Promise((r) => setTimeout(r, 800));
  await w.idle();
  const burstS = (performance.now() - t) / 1000;
  const counts = await store.count();
  const ids = (await store.get({})).map((r) => r.id);
  await store.close();
  await w.close();
  line(
    `watch  save → searchable median ${Math.round(med(times))} ms (debounce 300 ms included); 1,000-file burst indexed in ${f1(burstS)} s → ${counts.notes} notes, ${counts.chunks} chunks, ${ids.length - new Set(ids).size} duplicates`,
  );
}

const only = process.env.BENCH_ONLY; // chunk | first | bigvaults | embed | threads | workers | store | chroma | quality | watch | cli | serve | resident | regex | scale
const want = (part: string) => !only || only.split(",").includes(part);

async function main() {
  line(`vault-rag bench — ${os.cpus().length} cores, node ${process.version}${quick ? " (quick)" : ""}`);

  if (want("chunk")) {
    chunkBench(path.join(root, "examples/vault"), "examples/vault");
    bigNoteBench();
  }
  if (want("first")) await firstIndexBench({ root, bin: BIN, work, line });
  if (want("bigvaults")) await bigVaultsBench({ root, bin: BIN, work, line });
  if (want("embed")) await embedBench();
  if (want("threads")) await threadsBench({ root, line, quick });
  if (want("workers")) await denseWorkersBench({ root, bin: BIN, work, line, quick });
  if (want("store") || want("chroma")) {
    // the Chroma peer runs in the same run on the same records (BENCH_ONLY=store skips it)
    const chroma = want("chroma") ? await startChromaServer({ log: line }) : undefined;
    try {
      for (const n of quick ? [10_000] : [10_000, 100_000]) await storeBench(n, chroma);
    } finally {
      await chroma?.stop();
    }
  }
  if (want("attachments")) await attachmentsBench({ root, work, line });
  if (want("quality")) await qualityBench();
  if (want("watch")) await watchBench();
  if (want("cli") || want("serve") || want("resident")) await cliBench();
  if (want("regex")) await regexBench({ work, root, bin: BIN, embedder: timingEmbedder(), line });
  // the 100,000-note run takes a while: only when asked for (BENCH_ONLY=scale)
  if (only?.split(",").includes("scale"))
    await scaleBench({
      root,
      bin: BIN,
      line,
      sizes: (process.env.SCALE_NOTES ?? "10000,100000").split(",").map(Number),
      dir: process.env.SCALE_DIR ?? path.join(os.tmpdir(), "vr-scale"),
    });
  fs.rmSync(work, { recursive: true, force: true });
}

await main();
