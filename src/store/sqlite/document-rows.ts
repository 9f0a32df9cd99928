import { setImmediate as nextTurn } from "node:timers/promises";
import type Database from "better-sqlite3";
import { REGEX_LIMITS, withDocumentBudget } from "../regex.js";
import type { DocNode } from "../where.js";
import { compileDocument } from "./compile.js";

/**
 * How a `whereDocument` filter is run over an index's passages, in one place. A filter tests every
 * passage's text (a pattern, or thousands of `$contains` clauses): on a large vault that is seconds
 * of work, and a long-lived process (serve, MCP) answers nothing else while one test runs. So the
 * passages are tested in slices of about `sliceMs`, and the process goes on with its other work
 * between them: six such searches queued behind each other had held `/api/status` for 28 s.
 */
export const DOCUMENT_FILTER_DEFAULTS = {
  /** About how long one slice of tests runs before the process turns to its other work, in ms. */
  sliceMs: 20,
  /** Rows of the first slice; later slices are sized from the time the last one took. */
  firstSlice: 256,
  /** Filters whose passing rows are kept, per index and write generation (a search asks up to three times). */
  cached: 8,
};

/** The passages a `whereDocument` filter lets through: their rowids, and the same as a JSON array for SQL. */
export interface PassingRows {
  rows: Set<number>;
  json: string;
}

/**
 * The rows of the `chunks` table whose text passes a `whereDocument` filter, tested in slices
 * ({@link DOCUMENT_FILTER_DEFAULTS}) within the filter's time budget ({@link REGEX_LIMITS}: the
 * slices' time together), and kept for the index's write generation, so a search's dense and
 * keyword queries, and searches asked at the same time with the same filter, test each passage once. The owner of this one use of the `chunks` table is the
 * SQLite store, which hands it its connection.
 *
 * @example
 * ```ts
 * const passing = new DocumentRows(db, () => generation());
 * (await passing.of(normaliseWhereDocument({ $regex: "DRV\\d{4}" })!)).rows; // Set { 3, 17 }
 * ```
 */
export class DocumentRows {
  private readonly kept = new Map<string, PassingRows>();
  private readonly running = new Map<string, Promise<Set<number>>>();

  constructor(
    private readonly db: Database.Database,
    private readonly generation: () => string,
    private readonly o = DOCUMENT_FILTER_DEFAULTS,
  ) {}

  /**
   * The passing rows of the index as it is now. A write between two slices (another process
   * indexing) could leave a slice from before it beside one from after: such a run is done again,
   * at most twice, and then taken as it is.
   */
  async of(node: DocNode): Promise<PassingRows> {
    const key = filterKey(node);
    for (let attempt = 0; ; attempt++) {
      const generation = this.generation();
      const id = `${generation}\0${key}`;
      const known = this.kept.get(id);
      if (known) {
        this.kept.delete(id);
        this.kept.set(id, known); // the most recently used last
        return known;
      }
      // a search that asks while another tests the same filter waits for that one's rows
      let run = this.running.get(id);
      if (!run) {
        run = this.test(node).finally(() => this.running.delete(id));
        this.running.set(id, run);
      }
      const rows = await run;
      if (this.generation() !== generation && attempt < 2) continue;
      const passing = { rows, json: JSON.stringify([...rows]) };
      this.kept.set(`${this.generation()}\0${key}`, passing);
      while (this.kept.size > this.o.cached) this.kept.delete(this.kept.keys().next().value!);
      return passing;
    }
  }

  private async test(node: DocNode): Promise<Set<number>> {
    const cond = compileDocument(node);
    const slice = this.db
      .prepare(`SELECT c.rowid FROM chunks c WHERE c.rowid > ? AND c.rowid <= ? AND ${cond.sql}`)
      .pluck();
    const last = (this.db.prepare("SELECT max(rowid) FROM chunks").pluck().get() as number | null) ?? 0;
    const out = new Set<number>();
    let used = 0;
    let span = this.o.firstSlice;
    for (let after = 0; after < last;) {
      const to = Math.min(last, after + span);
      const t = performance.now();
      // the budget left to this slice: once it is spent, the slice's first test stops the query
      const rows = withDocumentBudget(
        () => slice.all(after, to, ...cond.params) as number[],
        REGEX_LIMITS.budgetMs - used,
      );
      for (const r of rows) out.add(r);
      const took = performance.now() - t;
      used += took;
      after = to;
      span = Math.max(16, Math.min(span * 4, Math.round((span * this.o.sliceMs) / Math.max(took, 0.05))));
      if (after < last) await nextTurn();
    }
    return out;
  }
}

/** A filter as a cache key: its clauses as written (the compiled patterns are left out). */
function filterKey(node: DocNode): string {
  return JSON.stringify(node, (k, v: unknown) => (k === "regex" ? undefined : v));
}
