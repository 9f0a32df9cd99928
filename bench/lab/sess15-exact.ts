// An exact harness: each question's dense and keyword lists as `retrieve` gives them (synonyms,
// near pairs, backlink text: what `vault-rag eval` fuses), and a ranking hook that may replace the
// fusion. Scores as `evaluate` does (fuse → namedFirst → diversify → nDCG@10 over notes). Not shipped.
import path from "node:path";
import Database from "better-sqlite3";
import { prepareBeir, readKnownAnswers, scoreRanking, type Qrels } from "../../src/search/eval.js";
import { SqliteStore, normaliseWhere, type ScoredRecord, type QueryFilter } from "../../src/store/index.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { retrieve, fuse, withSearchDefaults } from "../../src/search/search.js";
import { diversify } from "../../src/search/rank.js";
import { pooledVector } from "../../src/store/windows.js";
import type { Hit } from "../../src/search/types.js";

export interface XQ {
  id: string;
  text: string;
  kind: string;
  filter: QueryFilter;
  vec: Float32Array;
  dense: ScoredRecord[];
  keyword: ScoredRecord[];
  relevant: Set<string>;
  expansion?: string[];
}

/** The index, read-only, for scripts that query it directly. */
export interface ExactDb {
  prepare(sql: string): { all(...params: unknown[]): unknown[] };
}

export async function loadExact(target: string, vault?: string) {
  const b = target.endsWith(".jsonl") ? undefined : prepareBeir(target);
  const qrels: Qrels = b ? b.qrels : readKnownAnswers(target);
  const dbFile = path.join(b ? b.vault : vault!, ".vault-rag", "index.db");
  const store = SqliteStore.open(dbFile, { readonly: true });
  const embedder = useLiteEmbedder();
  const db = new Database(dbFile, { readonly: true });
  const ctx = { store, embedder };
  const o = withSearchDefaults({ mode: "hybrid" });
  const qs: XQ[] = [];
  for (const q of qrels.queries) {
    const filter = { where: normaliseWhere(q.where) };
    const r = await retrieve(ctx, q.text, o, filter, o.pool);
    const vec = await embedder.embedQuery(q.text);
    qs.push({
      id: q.id,
      text: q.text,
      kind: q.kind ?? "all",
      filter,
      vec,
      dense: r.dense,
      keyword: r.keyword,
      relevant: qrels.relevant.get(q.id)!,
      expansion: r.expansion?.phrases,
    });
  }
  const vecCache = new Map<string, Float32Array>();
  const wstmt = db
    .prepare("SELECT w.vector FROM windows w JOIN chunks c ON c.rowid = w.chunk WHERE c.id = ? ORDER BY w.rowid")
    .pluck();
  const chunkVec = (id: string) => {
    let v = vecCache.get(id);
    if (!v) {
      const ws = (wstmt.all(id) as Buffer[]).map((blob) => {
        const x = new Float32Array(blob.byteLength / 4);
        new Uint8Array(x.buffer).set(blob);
        return { vector: x };
      });
      vecCache.set(id, (v = pooledVector(ws)));
    }
    return v;
  };
  const baseHits = (q: XQ, dense = q.dense, keyword = q.keyword): Hit[] => fuse(o, dense, keyword, q.text);
  type Run = (q: XQ) => Promise<Hit[]> | Hit[];
  async function evalRun(run: Run) {
    const per: number[] = [];
    const kinds: Record<string, number[]> = {};
    for (const q of qs) {
      const ranked = diversify(await run(q), 100, 1).map((h) => h.path);
      const s = scoreRanking(ranked, q.relevant).ndcg10;
      per.push(s);
      (kinds[q.kind] ??= []).push(s);
    }
    const avg = (a: number[]) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
    return { all: avg(per), byKind: Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, avg(v)])), per };
  }
  const fmt = (r: { all: number; byKind: Record<string, number> }) =>
    r.all.toFixed(4) +
    "  " +
    (Object.keys(r.byKind).length > 1
      ? Object.entries(r.byKind)
          .map(([k, v]) => `${k}:${v.toFixed(3)}`)
          .join(" ")
      : "");
  return { qs, store, embedder, db: db as ExactDb, o, chunkVec, baseHits, evalRun, fmt };
}
