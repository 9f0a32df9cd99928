/**
 * The composable Search API of Chroma's cloud service, running locally on any vault-rag store:
 * an immutable `Search` builder with `where`, `rank`, `limit` and `select`; `K` for filter keys;
 * `KnnExpr`, `ValExpr`, arithmetic and `RrfExpr` for rank expressions. Lower scores are better, as in Chroma.
 * `where` expressions compile to the same filter language (and the same evaluator) as `--where`.
 */
import type { Embedder } from "../embed/index.js";
import { VaultRagError } from "../errors.js";
import {
  matchesDocument,
  matchesWhere,
  normaliseWhere,
  normaliseWhereDocument,
  type RecordMetadata,
  type ScoredRecord,
  type Store,
  type Where,
  type WhereDocument,
} from "../store/index.js";
import { propNames } from "./props.js";
import { rrfScore, type RrfTerm } from "./rank.js";

// ---------------------------------------------------------------- filters

/** A filter expression: a `where` clause, a `whereDocument` clause, or both (combined with AND). */
export class Filter {
  constructor(
    readonly where?: Where,
    readonly whereDocument?: WhereDocument,
    readonly ids?: { op: "$in" | "$nin"; values: string[] },
  ) {}

  /** Both must hold. */
  and(other: Filter): Filter {
    const both = <T extends object>(a?: T, b?: T): T | undefined =>
      a && b ? ({ $and: [a, b] } as unknown as T) : (a ?? b);
    if (this.ids && other.ids)
      throw new VaultRagError("usage", "vault-rag: combine K.ID conditions into one isIn/notIn list");
    return new Filter(
      both(this.where, other.where),
      both(this.whereDocument, other.whereDocument),
      this.ids ?? other.ids,
    );
  }

  /** Either holds. Only conditions of one kind (metadata or document) can be combined with `or`. */
  or(other: Filter): Filter {
    const onlyWhere = !this.whereDocument && !other.whereDocument && !this.ids && !other.ids;
    const onlyDoc = !this.where && !other.where && !this.ids && !other.ids;
    if (onlyWhere) return new Filter({ $or: [this.where!, other.where!] });
    if (onlyDoc) return new Filter(undefined, { $or: [this.whereDocument!, other.whereDocument!] });
    throw new VaultRagError(
      "usage",
      "vault-rag: `or` can join metadata conditions or document conditions, not one of each — split the search in two",
    );
  }
}

/** A filter key: a metadata field, or one of the special keys. */
export class Key {
  constructor(readonly name: string) {}
  private cmp(op: string, value: unknown): Filter {
    if (this.name === "#document" || this.name === "#id" || this.name === "#score" || this.name === "#metadata")
      throw new VaultRagError(
        "usage",
        `vault-rag: ${op} does not apply to ${this.name} — use contains/notContains/regex on K.DOCUMENT, isIn/notIn on K.ID`,
      );
    return new Filter({ [this.name]: { [op]: value } });
  }
  eq(v: string | number) {
    return this.cmp("$eq", v);
  }
  ne(v: string | number) {
    return this.cmp("$ne", v);
  }
  gt(v: number) {
    return this.cmp("$gt", v);
  }
  gte(v: number) {
    return this.cmp("$gte", v);
  }
  lt(v: number) {
    return this.cmp("$lt", v);
  }
  lte(v: number) {
    return this.cmp("$lte", v);
  }
  isIn(values: (string | number)[]): Filter {
    if (this.name === "#id") return new Filter(undefined, undefined, { op: "$in", values: values.map(String) });
    return this.cmp("$in", values);
  }
  notIn(values: (string | number)[]): Filter {
    if (this.name === "#id") return new Filter(undefined, undefined, { op: "$nin", values: values.map(String) });
    return this.cmp("$nin", values);
  }
  contains(v: string): Filter {
    return this.name === "#document" ? new Filter(undefined, { $contains: v }) : this.cmp("$contains", v);
  }
  notContains(v: string): Filter {
    return this.name === "#document" ? new Filter(undefined, { $not_contains: v }) : this.cmp("$not_contains", v);
  }
  regex(pattern: string): Filter {
    if (this.name !== "#document") throw new VaultRagError("usage", "vault-rag: regex applies to K.DOCUMENT only");
    return new Filter(undefined, { $regex: pattern });
  }
  notRegex(pattern: string): Filter {
    if (this.name !== "#document") throw new VaultRagError("usage", "vault-rag: notRegex applies to K.DOCUMENT only");
    return new Filter(undefined, { $not_regex: pattern });
  }
}

/** `K("field")` builds filter keys; `K.DOCUMENT`, `K.ID`, `K.SCORE`, `K.METADATA` are the special keys. */
export const K = Object.assign((name: string) => new Key(name), {
  DOCUMENT: new Key("#document"),
  ID: new Key("#id"),
  SCORE: new Key("#score"),
  METADATA: new Key("#metadata"),
});

// ---------------------------------------------------------------- rank expressions

/** Per-record values of every KnnExpr in a search, for evaluating rank expressions. */
interface RankContext {
  knnValue(knn: KnnExpr, id: string): number | undefined;
}

/** A rank expression: evaluates to a score per record (lower is better), or undefined to exclude it. */
export abstract class RankExpr {
  abstract evaluate(id: string, ctx: RankContext): number | undefined;
  /** The KnnExpr leaves of this expression. */
  abstract knns(): KnnExpr[];
  add(o: RankExpr | number): RankExpr {
    return new Arith("+", this, lift(o));
  }
  sub(o: RankExpr | number): RankExpr {
    return new Arith("-", this, lift(o));
  }
  mul(o: RankExpr | number): RankExpr {
    return new Arith("*", this, lift(o));
  }
  div(o: RankExpr | number): RankExpr {
    return new Arith("/", this, lift(o));
  }
  neg(): RankExpr {
    return new Unary("neg", this);
  }
  exp(): RankExpr {
    return new Unary("exp", this);
  }
  log(): RankExpr {
    return new Unary("log", this);
  }
  abs(): RankExpr {
    return new Unary("abs", this);
  }
  min(o: RankExpr | number): RankExpr {
    return new Arith("min", this, lift(o));
  }
  max(o: RankExpr | number): RankExpr {
    return new Arith("max", this, lift(o));
  }
}

const lift = (x: RankExpr | number): RankExpr => (typeof x === "number" ? new ValExpr(x) : x);

/** A constant. */
export class ValExpr extends RankExpr {
  constructor(readonly value: number) {
    super();
  }
  evaluate(): number {
    return this.value;
  }
  knns(): KnnExpr[] {
    return [];
  }
}

class Arith extends RankExpr {
  constructor(
    readonly op: "+" | "-" | "*" | "/" | "min" | "max",
    readonly a: RankExpr,
    readonly b: RankExpr,
  ) {
    super();
  }
  evaluate(id: string, ctx: RankContext): number | undefined {
    const x = this.a.evaluate(id, ctx);
    const y = this.b.evaluate(id, ctx);
    if (x === undefined || y === undefined) return undefined;
    switch (this.op) {
      case "+":
        return x + y;
      case "-":
        return x - y;
      case "*":
        return x * y;
      case "/":
        return x / y;
      case "min":
        return Math.min(x, y);
      case "max":
        return Math.max(x, y);
    }
  }
  knns(): KnnExpr[] {
    return [...this.a.knns(), ...this.b.knns()];
  }
}

class Unary extends RankExpr {
  constructor(
    readonly op: "neg" | "exp" | "log" | "abs",
    readonly a: RankExpr,
  ) {
    super();
  }
  evaluate(id: string, ctx: RankContext): number | undefined {
    const x = this.a.evaluate(id, ctx);
    if (x === undefined) return undefined;
    return this.op === "neg" ? -x : this.op === "exp" ? Math.exp(x) : this.op === "log" ? Math.log(x) : Math.abs(x);
  }
  knns(): KnnExpr[] {
    return this.a.knns();
  }
}

/** Options of a {@link KnnExpr}. */
export interface KnnOptions {
  /** Text (embedded with the index's model for `dense`) or a vector. */
  query: string | number[] | Float32Array;
  /** `dense` (the embedding index, default) or `bm25` (keyword; text queries only). */
  key?: "dense" | "bm25";
  /** Candidates this KnnExpr scores (default 16). */
  limit?: number;
  /** Score for records outside this KnnExpr's candidates; unset means such records are excluded. */
  default?: number;
  /** Emit rank positions (0, 1, 2, …) instead of distances. */
  returnRank?: boolean;
}

/** Nearest neighbours in one index: a record's value is its distance (or rank) in the candidate list. */
export class KnnExpr extends RankExpr {
  readonly query: string | Float32Array;
  readonly key: "dense" | "bm25";
  readonly limit: number;
  readonly default?: number;
  readonly returnRank: boolean;
  constructor(o: KnnOptions) {
    super();
    this.query = typeof o.query === "string" ? o.query : Float32Array.from(o.query);
    this.key = o.key ?? "dense";
    this.limit = o.limit ?? 16;
    this.default = o.default;
    this.returnRank = !!o.returnRank;
    if (!Number.isInteger(this.limit) || this.limit < 1)
      throw new VaultRagError("usage", `vault-rag: KnnExpr limit must be a whole number of at least 1, got ${o.limit}`);
    if (this.key === "bm25" && typeof this.query !== "string")
      throw new VaultRagError("usage", "vault-rag: a bm25 KnnExpr needs a text query");
  }
  evaluate(id: string, ctx: RankContext): number | undefined {
    return ctx.knnValue(this, id) ?? this.default;
  }
  knns(): KnnExpr[] {
    return [this];
  }
}

/** Options of {@link RrfExpr}. */
export interface RrfOptions {
  ranks: RankExpr[];
  weights?: number[];
  k?: number;
}

/** Reciprocal rank fusion: `−Σ wᵢ / (k + rankᵢ)` (negative, so lower is better). Give it Knns with `returnRank: true`. */
export class RrfExpr extends RankExpr {
  readonly ranks: RankExpr[];
  readonly weights: number[];
  readonly k: number;
  constructor(o: RrfOptions) {
    super();
    this.ranks = o.ranks;
    this.weights = o.weights ?? o.ranks.map(() => 1);
    this.k = o.k ?? 60;
    if (this.weights.length !== this.ranks.length)
      throw new VaultRagError(
        "usage",
        `vault-rag: RrfExpr has ${this.ranks.length} ranks but ${this.weights.length} weights`,
      );
  }
  evaluate(id: string, ctx: RankContext): number | undefined {
    const terms: RrfTerm[] = [];
    for (let i = 0; i < this.ranks.length; i++) {
      const rank = this.ranks[i].evaluate(id, ctx);
      if (rank === undefined) return undefined;
      terms.push({ rank, weight: this.weights[i] });
    }
    return -rrfScore(terms, this.k);
  }
  knns(): KnnExpr[] {
    return this.ranks.flatMap((r) => r.knns());
  }
}

// ---------------------------------------------------------------- the builder

/** Fields a search can return. */
export type Selectable = Key | string;

/** One row of a search result. */
export interface SearchRow {
  id: string;
  score?: number;
  document?: string;
  metadata?: Partial<RecordMetadata>;
}

/** An immutable search: every method returns a new `Search`. */
export class Search {
  constructor(
    readonly filter?: Filter,
    readonly rankExpr?: RankExpr,
    readonly limitN = 10,
    readonly offsetN = 0,
    readonly fields: Selectable[] = [K.DOCUMENT, K.SCORE],
  ) {}
  where(f: Filter): Search {
    return new Search(this.filter ? this.filter.and(f) : f, this.rankExpr, this.limitN, this.offsetN, this.fields);
  }
  rank(r: RankExpr): Search {
    return new Search(this.filter, r, this.limitN, this.offsetN, this.fields);
  }
  limit(n: number, offset = 0): Search {
    if (!Number.isInteger(n) || n < 1 || !Number.isInteger(offset) || offset < 0)
      throw new VaultRagError(
        "usage",
        `vault-rag: limit needs a whole number ≥ 1 and an offset ≥ 0, got ${n}, ${offset}`,
      );
    return new Search(this.filter, this.rankExpr, n, offset, this.fields);
  }
  select(...fields: Selectable[]): Search {
    return new Search(this.filter, this.rankExpr, this.limitN, this.offsetN, fields);
  }
}

/** The result of one or more searches. */
export class SearchResults {
  constructor(private readonly results: SearchRow[][]) {}
  /** One array of rows per search, in the order given. */
  rows(): SearchRow[][] {
    return this.results;
  }
}

/**
 * Runs searches against a store. Each KnnExpr fetches its `limit` candidates after the filter; a record
 * is scored if it is in at least one KnnExpr's candidates and in every KnnExpr without a `default`.
 *
 * @example
 * ```ts
 * const s = new Search().where(K("tags").contains("pico")).rank(Rrf({ ranks: [
 *   Knn({ query: "save power", returnRank: true, limit: 50 }),
 *   Knn({ query: "save power", key: "bm25", returnRank: true, limit: 50 }) ] })).limit(5);
 * (await runSearches({ store, embedder }, s)).rows()[0];
 * ```
 */
export async function runSearches(
  ctx: { store: Store; embedder: Embedder },
  searches: Search | Search[],
): Promise<SearchResults> {
  const list = Array.isArray(searches) ? searches : [searches];
  const out: SearchRow[][] = [];
  for (const s of list) out.push(await runOne(ctx, s));
  return new SearchResults(out);
}

async function runOne(ctx: { store: Store; embedder: Embedder }, s: Search): Promise<SearchRow[]> {
  const where = normaliseWhere(s.filter?.where, s.filter?.where != null ? await propNames(ctx.store) : undefined);
  const whereDocument = normaliseWhereDocument(s.filter?.whereDocument);
  const ids = s.filter?.ids;
  const allowId = (id: string) => !ids || (ids.op === "$in" ? ids.values.includes(id) : !ids.values.includes(id));
  const records = new Map<string, ScoredRecord>();
  if (!s.rankExpr) {
    // no rank: records in index order (filtered), as in Chroma
    const all = (await ctx.store.get({})).filter((r) => allowId(r.id));
    const kept = all.filter(
      (r) => (!where || matchesWhere(where, r.meta)) && (!whereDocument || matchesDocument(whereDocument, r.text)),
    );
    return kept.slice(s.offsetN, s.offsetN + s.limitN).map((r) => row(s, r.id, undefined, r.text, r.meta));
  }
  const knns = [...new Set(s.rankExpr.knns())];
  const values = new Map<KnnExpr, Map<string, number>>();
  for (const knn of knns) {
    let hits: ScoredRecord[];
    const limit = ids?.op === "$in" ? knn.limit + 1000 : knn.limit; // ids filter after retrieval: widen
    if (knn.key === "bm25") hits = await ctx.store.queryKeyword(knn.query as string, limit, { where, whereDocument });
    else {
      const vector = typeof knn.query === "string" ? await ctx.embedder.embedQuery(knn.query) : knn.query;
      hits = await ctx.store.queryDense(vector, limit, { where, whereDocument });
    }
    hits = hits.filter((h) => allowId(h.id)).slice(0, knn.limit);
    const m = new Map<string, number>();
    hits.forEach((h, rank) => {
      m.set(h.id, knn.returnRank ? rank : h.distance);
      records.set(h.id, h);
    });
    values.set(knn, m);
  }
  const rc: RankContext = { knnValue: (knn, id) => values.get(knn)!.get(id) };
  const scored: { id: string; score: number }[] = [];
  for (const id of records.keys()) {
    // inclusion: in every KnnExpr without a default
    if (knns.some((k) => k.default === undefined && !values.get(k)!.has(id))) continue;
    const score = s.rankExpr.evaluate(id, rc);
    if (score === undefined || Number.isNaN(score)) continue;
    scored.push({ id, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : 1));
  return scored.slice(s.offsetN, s.offsetN + s.limitN).map(({ id, score }) => {
    const r = records.get(id)!;
    return row(s, id, score, r.text, r.meta);
  });
}

function row(s: Search, id: string, score: number | undefined, text: string, meta: RecordMetadata): SearchRow {
  const out: SearchRow = { id };
  for (const f of s.fields) {
    const name = typeof f === "string" ? f : f.name;
    if (name === "#score") out.score = score;
    else if (name === "#document") out.document = text;
    else if (name === "#metadata") out.metadata = { ...meta };
    else if (name !== "#id")
      out.metadata = {
        ...out.metadata,
        [name]: (meta as unknown as Record<string, unknown>)[name],
      } as Partial<RecordMetadata>;
  }
  return out;
}

/** `Knn({ query, key, limit, default, returnRank })`: nearest neighbours in one index. */
export const Knn = (o: KnnOptions): KnnExpr => new KnnExpr(o);
/** `Val(x)`: a constant in a rank expression. */
export const Val = (x: number): ValExpr => new ValExpr(x);
/** `Rrf({ ranks, weights, k })`: reciprocal rank fusion. */
export const Rrf = (o: RrfOptions): RrfExpr => new RrfExpr(o);
