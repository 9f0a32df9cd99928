import type Database from "better-sqlite3";
import type { KeywordRanking, KeywordStats, KeywordStatsOptions, QueryFilter, ScoredRecord } from "../types.js";
import { withDocumentBudget } from "../regex.js";
import type { SqlCondition } from "./compile.js";
import { backlinkMatch, hasBacklinks } from "./backlinks.js";
import {
  CROSS_STEM_MIN,
  JOINED_WEIGHT,
  joinedQuery,
  PARTS_WEIGHT,
  partsQuery,
  phraseQuery,
  proximityQuery,
  stemTerms,
  toFtsQuery,
} from "./fts-query.js";
import { KEYWORD_TEXT_RULES } from "./ddl.js";
import { indexLanguages } from "./fts-text.js";
import { STEMMED_LANGUAGES } from "../language.js";
import type { DocumentRows } from "./document-rows.js";
import { COLUMNS, filterSql, rowMeta, type Row } from "./rows.js";
import type { RowTest } from "./where-rows.js";
import type { WhereNode } from "../where.js";

/** BM25 column weights: title, aliases and breadcrumb weigh more than body text. */
export const BM25_WEIGHTS = { title: 4, aliases: 4, section: 2, body: 1 };

/** What a store keeps for its keyword queries. */
export interface KeywordState {
  /** The test `vr_passing(rowid)` answers by, set only while one keyword statement runs. */
  passingNow?: RowTest;
  /** Whether the backlink tables were seen (once there, they stay). */
  backlinkTables: boolean;
}

/**
 * One keyword query, in one read transaction. A filter known in memory at this snapshot's
 * generation answers through `vr_passing` and `state.passingNow`: a `whereDocument` filter's rows
 * tested ahead (in `documentRows`), a `where` filter's from the metadata columns a dense query
 * keeps (`knownWhere`, see where-rows.ts). Else the filter is tested within the query, on the rows
 * the keyword index matched (one statement, within its time budget: see REGEX_LIMITS).
 *
 * @example
 * ```ts
 * const hits = queryKeyword(db, state, undefined, "pico sensor", 6, {}, {});
 * ```
 */
export function queryKeyword(
  db: Database.Database,
  state: KeywordState,
  documentRows: DocumentRows | undefined,
  text: string,
  k: number,
  filter: QueryFilter,
  ranking: KeywordRanking,
  knownWhere?: (where: WhereNode) => RowTest | undefined,
): ScoredRecord[] {
  return withDocumentBudget(() =>
    db
      .transaction(() => {
        const { where, whereDocument } = filter;
        const doc = whereDocument ? documentRows?.known(whereDocument) : undefined;
        const meta = where ? knownWhere?.(where) : undefined;
        if (!doc && !meta) return keywordRows(db, state, text, k, filterSql(filter), ranking);
        // what is known in memory answers through vr_passing; the rest is tested in SQL
        const rest = filterSql({ where: meta ? undefined : where, whereDocument: doc ? undefined : whereDocument });
        state.passingNow = doc && meta ? (r) => doc.has(r) && meta(r) : doc ? (r) => doc.has(r) : meta;
        try {
          return keywordRows(db, state, text, k, rest, ranking, true);
        } finally {
          state.passingNow = undefined;
        }
      })
      .deferred(),
  );
}

function keywordRows(
  db: Database.Database,
  state: KeywordState,
  text: string,
  k: number,
  cond: SqlCondition,
  ranking: KeywordRanking,
  /** Rows must also pass `vr_passing` (a filter known in memory). */
  passing = false,
): ScoredRecord[] {
  // a question's words also as the index stems passages of its language (or of each language it
  // stems, when the question's is not told), where the index was written by today's rules
  const langs = stemsLanguages(db, ranking.language);
  // its language's stopwords are left out, as English ones are ("wie", "ein": most passages hold them)
  const { language } = ranking;
  const match = toFtsQuery(text, langs, language);
  if (!match) return [];
  const w = BM25_WEIGHTS;
  const bm25 = `bm25(fts, ${w.title}, ${w.aliases}, ${w.section}, ${w.body})`;
  const limit = Math.max(1, Math.floor(k));
  // the parts a chunk's score sums beside the question's own BM25: synonym phrases, near pairs, joined pairs
  const extra: { weight: number; match: string }[] = [];
  const { expansion, proximity } = ranking;
  const phrases = expansion && expansion.weight > 0 ? expansion.phrases.filter((p) => p.trim()) : [];
  // synonyms are English words, which a passage in another language may hold too (loanwords,
  // "repose" in a French recipe's "reposer"): asked as each language the index stems would hold them
  const synonymLangs = langs.length ? langs : stemsLanguages(db, undefined);
  if (phrases.length)
    extra.push({ weight: expansion!.weight, match: phraseQuery(stemTerms(phrases, synonymLangs, CROSS_STEM_MIN)) });
  const near =
    proximity && proximity > 0
      ? proximityQuery(text, undefined, langs.length === 1 ? langs[0] : undefined, language)
      : undefined;
  if (near) extra.push({ weight: proximity!, match: near });
  // the question's adjacent words written as one ("gray code" → "graycode")
  const joined = joinedQuery(text, langs, language);
  if (joined) extra.push({ weight: JOINED_WEIGHT, match: joined });
  // and the words of its joined-up terms apart ("DNS-Änderung" → "dns", "änderung")
  const parts = partsQuery(text, langs, language);
  if (parts) extra.push({ weight: PARTS_WEIGHT, match: parts });
  const linked = ranking.backlinks && ranking.backlinks > 0 && anyBacklinks(db, state);
  if (extra.length || linked) {
    // every chunk that matches the question or an expansion phrase, or whose note's backlink text
    // matches the question, scored by the sum; exact (no cut before the sum: each phrase is held
    // by a small share of the chunks, see search/expand.ts, a near pair only matches where the
    // question does, and few notes are linked to), and the best k are cut before the chunks'
    // text is read
    const sql = `WITH s AS (SELECT r, sum(d) AS d, max(b) AS b FROM (
          SELECT rowid AS r, ${bm25} AS d, 0 AS b FROM fts WHERE fts MATCH ?
          ${extra.map(() => `UNION ALL SELECT rowid AS r, ? * ${bm25} AS d, 0 AS b FROM fts WHERE fts MATCH ?`).join("\n          ")}
          ${linked ? `UNION ALL ${backlinkMatch}` : ""}) GROUP BY r),
        top AS (SELECT s.r, s.d, s.b FROM s ${cond.sql ? `JOIN chunks c ON c.rowid = s.r WHERE ${cond.sql}${passing ? " AND vr_passing(s.r)" : ""}` : passing ? "WHERE vr_passing(s.r)" : ""}
          ORDER BY s.d, s.r LIMIT ?)
        SELECT ${COLUMNS}, top.d AS d, top.b AS b FROM top JOIN chunks c ON c.rowid = top.r ORDER BY top.d, top.r`;
    const rows = db.prepare(sql).all(
      match,
      ...extra.flatMap((e) => [e.weight, e.match]),
      // backlink text is not stemmed by language: the question's words as typed
      ...(linked ? [ranking.backlinks, toFtsQuery(text, [], language)] : []),
      ...cond.params,
      limit,
    ) as Row[];
    return rows.map((r) => ({
      id: r.id,
      text: r.text,
      meta: rowMeta(r),
      distance: r.d!,
      ...(r.b ? { backlinked: true as const } : {}),
    }));
  }
  // without a filter tested in SQL the best rows are picked inside the keyword index and only they
  // are joined to their chunks (5.6 → 3.9 ms on a common three-word query at 10,000 notes); a
  // filter in SQL needs the chunk's columns before the cut. Ties go to the older row, in both.
  const sql = cond.sql
    ? `SELECT ${COLUMNS}, ${bm25} AS d FROM fts JOIN chunks c ON c.rowid = fts.rowid
      WHERE fts MATCH ? AND ${cond.sql}${passing ? " AND vr_passing(c.rowid)" : ""} ORDER BY d, c.rowid LIMIT ?`
    : `SELECT ${COLUMNS}, f.d FROM (SELECT rowid, ${bm25} AS d FROM fts WHERE fts MATCH ?${passing ? " AND vr_passing(rowid)" : ""}
      ORDER BY d, rowid LIMIT ?) f JOIN chunks c ON c.rowid = f.rowid ORDER BY f.d, f.rowid`;
  const rows = db.prepare(sql).all(match, ...cond.params, limit) as Row[];
  return rows.map((r) => ({ id: r.id, text: r.text, meta: rowMeta(r), distance: r.d! }));
}

/** Whether any note has backlink text (an index from before backlink text has not even the table). */
function anyBacklinks(db: Database.Database, state: KeywordState): boolean {
  // the tables, once there, stay: looked up until seen, not on every query
  state.backlinkTables ||= hasBacklinks(db);
  return state.backlinkTables && !!db.prepare("SELECT 1 FROM backlink_notes LIMIT 1").pluck().get();
}

/**
 * How many chunks hold each phrase (counting up to `opts.cap`), and whether the chunk `opts.id`
 * holds it, from one snapshot. `chunks` is the store's count of chunks, passed through.
 *
 * @example
 * ```ts
 * keywordStats(db, 1200, ["hall effect"], { cap: 100 }); // { chunks: 1200, counts: [3], inChunk: [false] }
 * ```
 */
export function keywordStats(
  db: Database.Database,
  chunks: number,
  phrases: string[],
  opts: KeywordStatsOptions,
): KeywordStats {
  return db
    .transaction((): KeywordStats => {
      const cap = opts.cap === undefined ? -1 : Math.max(0, Math.floor(opts.cap));
      const count = db.prepare("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)").pluck();
      const row =
        opts.id === undefined
          ? undefined
          : (db.prepare("SELECT rowid FROM chunks WHERE id = ?").pluck().get(opts.id) as number | undefined);
      // the rowid cast: a JS number binds as REAL, and FTS5 then drops the rowid constraint
      const holds = db.prepare("SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid = CAST(? AS INTEGER)").pluck();
      const counts: number[] = [];
      const inChunk: boolean[] = [];
      const langs = stemsLanguages(db, opts.language);
      // phrases of no told language (synonyms, a question's words) are stemmed as a vault's language only far enough to mean something
      const minStem = opts.language ? 0 : CROSS_STEM_MIN;
      for (const p of phrases) {
        const q = p.trim() ? phraseQuery(stemTerms([p], langs, minStem)) : undefined;
        counts.push(q ? (count.get(q, cap) as number) : 0);
        inChunk.push(q !== undefined && row !== undefined && (holds.get(q, row) as number) > 0);
      }
      return { chunks, counts, inChunk };
    })
    .deferred();
}

/**
 * The languages a query's words are also asked in, stemmed ({@link stemTerms}): the question's
 * `language` when the index stems passages of it, or, when it is not told, every language the index
 * stems passages of ({@link indexLanguages}: "Daten-Flipflop" says too little to tell, and a German
 * vault holds "dat flipflop"). None for an English question, or where the index was written by
 * other rules (an index opened read-only before `index` upgraded it holds Porter stems only).
 */
function stemsLanguages(db: Database.Database, language: string | undefined): string[] {
  if (language && !STEMMED_LANGUAGES.includes(language)) return [];
  const rules = db.prepare("SELECT value FROM meta WHERE key = 'keyword_text'").pluck().get();
  if (rules !== KEYWORD_TEXT_RULES) return [];
  const held = indexLanguages(db);
  return language ? held.filter((l) => l === language) : held;
}

/**
 * The languages the index stems passages of, where its keyword text was written by today's rules
 * (see {@link stemsLanguages}).
 *
 * @example
 * ```ts
 * stemmedLanguages(db); // ["de"]
 * ```
 */
export function stemmedLanguages(db: Database.Database): string[] {
  return db.transaction(() => stemsLanguages(db, undefined)).deferred();
}
