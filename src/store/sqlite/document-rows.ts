import { setImmediate as nextTurn } from "node:timers/promises";
import type Database from "better-sqlite3";
import { REGEX_LIMITS, withDocumentBudget } from "../regex.js";
import type { DocNode } from "../where.js";
import { compileDocument } from "./compile.js";

/**
 * How a `whereDocument` filter is run over an index's passages ahead of a search, in one place. A
 * filter tests every passage's text (a pattern, or thousands of `$contains` clauses): on a large
 * vault that is seconds of work, and a long-lived process (serve, MCP) answers nothing else while
 * one test runs. So the passages are tested in slices of about `sliceMs`, and the process goes on
 * with its other work between them: six such searches tested in one go hold `/api/status`
 * for seconds (docs/decisions/document-filter-slices.md).
 */
export const DOCUMENT_FILTER_DEFAULTS = {
  /** About how long one slice of tests runs before the process turns to its other work, in ms. */
  sliceMs: 20,
  /** Rows of the first slice; later slices are sized from the time the last one took. */
  firstSlice: 256,
  /** Filters whose passing rows are kept for the index's write generation (a search asks up to three times). */
  cached: 8,
};

/**
 * The rows of the `chunks` table whose text passes a `whereDocument` filter, tested in slices
 * ({@link DOCUMENT_FILTER_DEFAULTS}) within the filter's time budget ({@link REGEX_LIMITS}: the
 * slices' time together), and kept for the index's write generation, so a search's dense and
 * keyword queries, and searches asked at the same time with the same filter, test each passage
 * once. Rows tested while the index changed, or on a connection inside a write of its own (whose
 * generation a rollback would give again to other rows), are never kept nor given: the query then
 * tests its filter itself, as part of its own read. The SQLite store owns this use of `chunks`.
 *
 * @example
 * ```ts
 * const passing = new DocumentRows(db, () => generation());
 * await passing.test(normaliseWhereDocument({ $regex: "DRV\\d{4}" })!); // Set { 3, 17 }: the rowids that pass
 * ```
 */
export class DocumentRows {
  /** Passing rowids by `<generation>\0<filter>`: rows answer only the generation they were tested at. */
  private readonly kept = new Map<string, Set<number>>();
  private readonly running = new Map<string, Promise<Set<number> | undefined>>();

  constructor(
    private readonly db: Database.Database,
    private readonly generation: () => string,
    private readonly o = DOCUMENT_FILTER_DEFAULTS,
  ) {}

  /**
   * The rows kept for this filter at the index's generation now, if any (no test is run). Called
   * within a query's read, it answers for that snapshot. (Rows are never kept from a connection
   * inside a write, so a generation a rollback gives again cannot find rows of other text.)
   */
  known(node: DocNode): Set<number> | undefined {
    return this.keptAt(`${this.generation()}\0${filterKey(node)}`);
  }

  private keptAt(id: string): Set<number> | undefined {
    const known = this.kept.get(id);
    if (known) {
      this.kept.delete(id);
      this.kept.set(id, known); // the most recently used last
    }
    return known;
  }

  /**
   * The passing rows of the index as it is now, tested in slices unless kept; `undefined` when the
   * index changed while they were tested (another process indexing), or the connection is inside
   * a write: the caller then tests the filter within its own read.
   */
  async test(node: DocNode): Promise<Set<number> | undefined> {
    const generation = this.generation();
    const id = `${generation}\0${filterKey(node)}`;
    const known = this.keptAt(id);
    if (known || this.db.inTransaction) return known;
    // a search that asks while another tests the same filter waits for that one's rows
    let run = this.running.get(id);
    if (!run) {
      run = this.slices(node).finally(() => this.running.delete(id));
      this.running.set(id, run);
    }
    const passing = await run;
    if (!passing || this.db.inTransaction || this.generation() !== generation) return undefined;
    if (!this.kept.has(id)) {
      // rows of other generations answer no query again
      for (const k of this.kept.keys()) if (!k.startsWith(`${generation}\0`)) this.kept.delete(k);
      this.kept.set(id, passing);
      while (this.kept.size > this.o.cached) this.kept.delete(this.kept.keys().next().value!);
    }
    return passing;
  }

  /** The passing rows, tested in slices; `undefined` once a write lands between two of them (see {@link test}). */
  private async slices(node: DocNode): Promise<Set<number> | undefined> {
    const generation = this.generation();
    const cond = compileDocument(node);
    const slice = this.db
      .prepare(`SELECT c.rowid FROM chunks c WHERE c.rowid > ? AND c.rowid <= ? AND ${cond.sql}`)
      .pluck();
    const last = (this.db.prepare("SELECT max(rowid) FROM chunks").pluck().get() as number | null) ?? 0;
    const rows = new Set<number>();
    let used = 0;
    let span = this.o.firstSlice;
    for (let after = 0; after < last;) {
      // written meanwhile: these rows would mix two states of the index (`close` waits for a run)
      if (this.generation() !== generation) return undefined;
      const to = Math.min(last, after + span);
      const t = performance.now();
      // the budget left to this slice: once it is spent, the slice's first test stops the query
      const passed = withDocumentBudget(
        () => slice.all(after, to, ...cond.params) as number[],
        REGEX_LIMITS.budgetMs - used,
      );
      for (const r of passed) rows.add(r);
      const took = performance.now() - t;
      used += took;
      after = to;
      span = Math.max(16, Math.min(span * 4, Math.round((span * this.o.sliceMs) / Math.max(took, 0.05))));
      if (after < last) await nextTurn();
    }
    return rows;
  }
}

/** A filter as a cache key: its clauses as written (the compiled patterns are left out). */
function filterKey(node: DocNode): string {
  return JSON.stringify(node, (k, v: unknown) => (k === "regex" ? undefined : v));
}
