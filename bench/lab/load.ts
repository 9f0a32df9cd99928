// Ranking lab: loads an index and a question set into memory so ranking ideas can be measured in
// seconds, with the same metric as `vault-rag eval`. Not shipped; run with tsx.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { prepareBeir, readKnownAnswers, type Qrels } from "../../src/search/eval.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { planExpansion } from "../../src/search/expand.js";
import { SEARCH_DEFAULTS } from "../../src/search/types.js";
import { normaliseWhere, matchesWhere, SqliteStore, type WhereNode } from "../../src/store/index.js";
import { pooledVector } from "../../src/store/windows.js";
import { decodeList } from "../../src/store/sqlite/compile.js";
import type { RecordMetadata } from "../../src/store/index.js";

export interface LabChunk {
  row: number;
  id: string;
  path: string;
  title: string;
  section: string;
  text: string;
  aliases: string;
  folder: string;
  meta: RecordMetadata;
  vec: Float32Array;
  windows: Float32Array[];
}

export interface LabQuery {
  id: string;
  text: string;
  kind: string;
  where?: WhereNode;
  vec: Float32Array;
  relevant: Set<string>;
  /** FTS5 bm25 results over the filtered chunks, best first: chunk index and score (higher better). */
  kw: { i: number; s: number }[];
  /** the keyword list as a search ranks it: expanded with WordNet synonyms when its words miss */
  kwx: { i: number; s: number }[];
  /** the keyword list a search ranks: synonyms as `kwx`, and near pairs at the default weight */
  kws: { i: number; s: number }[];
  /** the chunks that pass the filter */
  allowed: (i: number) => boolean;
}

export interface Lab {
  name: string;
  db: Database.Database;
  chunks: LabChunk[];
  byRow: Map<number, number>;
  queries: LabQuery[];
  dims: number;
}

export async function loadLab(name: string, target: string, vault?: string, pool = 300): Promise<Lab> {
  let qrels: Qrels;
  let dbFile: string;
  if (target.endsWith(".jsonl")) {
    qrels = readKnownAnswers(target);
    dbFile = path.join(vault!, ".vault-rag", "index.db");
  } else {
    const b = prepareBeir(target);
    qrels = b.qrels;
    dbFile = path.join(b.vault, ".vault-rag", "index.db");
  }
  const db = new Database(dbFile, { readonly: true });
  const store = SqliteStore.open(dbFile, { readonly: true });
  const rows = db
    .prepare(
      "SELECT rowid, id, path, title, section, folder, top_folder, mtime, word_count, ordinal, start_line, end_line, tags, links, aliases, text FROM chunks ORDER BY rowid",
    )
    .all() as Record<string, unknown>[];
  const byRow = new Map<number, number>();
  const chunks: LabChunk[] = rows.map((r, i) => {
    byRow.set(r.rowid as number, i);
    const list = (s: unknown) => decodeList(String(s ?? ""));
    const meta = {
      path: r.path,
      title: r.title,
      section: r.section,
      folder: r.folder,
      top_folder: r.top_folder,
      mtime: r.mtime,
      word_count: r.word_count,
      ordinal: r.ordinal,
      start_line: r.start_line,
      end_line: r.end_line,
      tags: list(r.tags),
      links: list(r.links),
      aliases: list(r.aliases),
    } as unknown as RecordMetadata;
    return {
      row: r.rowid as number,
      id: r.id as string,
      path: r.path as string,
      title: r.title as string,
      section: r.section as string,
      text: r.text as string,
      aliases: r.aliases as string,
      folder: r.folder as string,
      meta,
      vec: new Float32Array(0),
      windows: [],
    };
  });
  for (const [chunk, blob] of db
    .prepare("SELECT chunk, vector FROM windows ORDER BY chunk, rowid")
    .raw()
    .iterate() as Iterable<[number, Buffer]>) {
    const v = new Float32Array(blob.byteLength / 4);
    new Uint8Array(v.buffer).set(blob);
    chunks[byRow.get(chunk)!].windows.push(v);
  }
  for (const c of chunks) c.vec = pooledVector(c.windows.map((vector) => ({ vector })));
  const dims = chunks[0].vec.length;

  const key = crypto
    .createHash("sha1")
    .update(qrels.queries.map((q) => q.text).join("\n"))
    .digest("hex")
    .slice(0, 10);
  const cacheFile = `/tmp/lab-qvec-${key}.json`;
  let cached: Record<string, number[]> = {};
  if (fs.existsSync(cacheFile)) cached = JSON.parse(fs.readFileSync(cacheFile, "utf8"));
  const embedder = useLiteEmbedder();
  let dirty = false;
  const queries: LabQuery[] = [];
  for (const q of qrels.queries) {
    let v = cached[q.text];
    if (!v) {
      v = Array.from(await embedder.embedQuery(q.text));
      cached[q.text] = v;
      dirty = true;
    }
    const where = normaliseWhere(q.where);
    const kwRecs = await store.queryKeyword(q.text, pool, { where });
    const plan = await planExpansion(store, q.text, kwRecs[0]);
    const kwxRecs = plan ? await store.queryKeyword(q.text, pool, { where }, { expansion: plan }) : kwRecs;
    const proximity = SEARCH_DEFAULTS.proximity;
    const kwsPlain = await store.queryKeyword(q.text, pool, { where }, { proximity });
    const splan = await planExpansion(store, q.text, kwsPlain[0]);
    const kwsRecs = splan
      ? await store.queryKeyword(q.text, pool, { where }, { expansion: splan, proximity })
      : kwsPlain;
    const idToIndex = new Map(chunks.map((c, i) => [c.id, i]));
    const allowed = where ? (i: number) => matchesWhere(where, chunks[i].meta) : () => true;
    queries.push({
      id: q.id,
      text: q.text,
      kind: q.kind ?? "all",
      where,
      vec: Float32Array.from(v),
      relevant: qrels.relevant.get(q.id)!,
      kw: kwRecs.map((r) => ({ i: idToIndex.get(r.id)!, s: -r.distance })),
      kwx: kwxRecs.map((r) => ({ i: idToIndex.get(r.id)!, s: -r.distance })),
      kws: kwsRecs.map((r) => ({ i: idToIndex.get(r.id)!, s: -r.distance })),
      allowed,
    });
  }
  if (dirty) fs.writeFileSync(cacheFile, JSON.stringify(cached));
  await store.close();
  return { name, db, chunks, byRow, queries, dims };
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A vector scaled to length 1 (a zero vector stays zero). */
export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

/** Dense scores (cosine) of every allowed chunk, best first, top `pool`. */
export function denseList(lab: Lab, q: LabQuery, pool = 300, vec = q.vec): { i: number; s: number }[] {
  const out: { i: number; s: number }[] = [];
  lab.chunks.forEach((c, i) => {
    if (q.allowed(i)) out.push({ i, s: dot(vec, c.vec) });
  });
  out.sort((a, b) => b.s - a.s);
  return out.slice(0, pool);
}

/** Each note title's own vector (the bundled model), cached in /tmp/lab-title-<name>.json across runs. */
export async function titleVectors(lab: Lab): Promise<Map<string, Float32Array>> {
  const cacheFile = `/tmp/lab-title-${lab.name}.json`;
  const cache: Record<string, number[]> = fs.existsSync(cacheFile)
    ? JSON.parse(fs.readFileSync(cacheFile, "utf8"))
    : {};
  const embedder = useLiteEmbedder();
  const titles = [...new Set(lab.chunks.map((c) => c.title))].filter((t) => !cache[t]);
  for (let i = 0; i < titles.length; i += 64) {
    const batch = titles.slice(i, i + 64);
    const vs = await embedder.embedDocuments(batch);
    batch.forEach((t, j) => (cache[t] = Array.from(vs[j])));
  }
  if (titles.length) fs.writeFileSync(cacheFile, JSON.stringify(cache));
  return new Map(Object.entries(cache).map(([t, v]) => [t, Float32Array.from(v)]));
}
