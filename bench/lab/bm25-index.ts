// The index's own tokens as an in-memory BM25 index: postings with FTS5's column weights (title,
// aliases, section, body 4 / 4 / 2 / 1) and one length over all columns, and the stemmer FTS5 uses.
// For lab scripts that score BM25 variants FTS5 cannot (other k1 and b, weighted query terms).
import Database from "better-sqlite3";
import type { Lab } from "./load.js";

export interface MemoryBm25 {
  /** term → (chunk index → column-weighted term frequency) */
  post: Map<string, Map<number, number>>;
  /** token count of each chunk, all columns */
  len: Float64Array;
  /** chunks, and their mean length */
  N: number;
  avg: number;
  /** a text's tokens as the index stems them */
  stem(text: string): string[];
}

export function memoryBm25(lab: Lab, weights = [4, 4, 2, 1]): MemoryBm25 {
  lab.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 'fts', 'instance')");
  const post = new Map<string, Map<number, number>>();
  const len = new Float64Array(lab.chunks.length);
  const colOf: Record<string, number> = { title: 0, aliases: 1, section: 2, text: 3 };
  for (const [term, doc, col] of lab.db.prepare("SELECT term, doc, col FROM temp.v").raw().iterate() as Iterable<
    [string, number, string]
  >) {
    const i = lab.byRow.get(doc);
    if (i === undefined) continue;
    len[i]++;
    let m = post.get(term);
    if (!m) post.set(term, (m = new Map()));
    m.set(i, (m.get(i) ?? 0) + weights[colOf[col]]);
  }
  const N = lab.chunks.length;
  const tok = new Database(":memory:");
  tok.exec(
    "CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2'); CREATE VIRTUAL TABLE tv USING fts5vocab(t, 'instance')",
  );
  const stem = (text: string) => {
    tok.exec("DELETE FROM t");
    tok.prepare("INSERT INTO t(x) VALUES (?)").run(text);
    return tok.prepare("SELECT term FROM tv ORDER BY offset").pluck().all() as string[];
  };
  return { post, len, N, avg: len.reduce((a, b) => a + b, 0) / N, stem };
}
