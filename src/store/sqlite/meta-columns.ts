import type Database from "better-sqlite3";
import type { WhereNode } from "../where.js";
import type { Props } from "../../props.js";
import { matchesProp } from "../reference.js";
import { decodeList } from "./compile.js";
import { readProps } from "../../props.js";

const STRINGS = ["path", "title", "section", "folder", "top_folder", "date_source", "file_type"] as const;
const NUMBERS = ["mtime", "date", "word_count", "ordinal", "start_line", "end_line", "page"] as const;
const LISTS = ["tags", "links", "aliases"] as const;

/**
 * Chunk metadata held in memory as columns (strings interned to ids), so a `where` filter over
 * 100,000 chunks is a few tight loops instead of a SQL scan over rows that also carry text. It
 * evaluates the same normalised filter as the SQL compiler and the reference evaluator; the
 * property test checks all three agree.
 */
export class MetaColumns {
  readonly rowids: Int32Array;
  private readonly dict = new Map<string, Map<string, number>>();
  private readonly strings = new Map<string, Int32Array>();
  private readonly numbers = new Map<string, Float64Array>();
  private readonly lists = new Map<string, Int32Array[]>();
  /** Each row's properties (the rows of one note share one object). */
  private readonly props: Props[];
  /** Per list field: value id → the rows that hold it. */
  private readonly postings = new Map<string, Map<number, number[]>>();

  constructor(db: Database.Database) {
    const rows = db
      .prepare(`SELECT rowid, ${[...STRINGS, ...NUMBERS, ...LISTS, "props"].join(", ")} FROM chunks ORDER BY rowid`)
      .raw()
      .all() as unknown[][];
    const n = rows.length;
    this.rowids = new Int32Array(n);
    for (const f of [...STRINGS, ...LISTS]) this.dict.set(f, new Map());
    for (const f of STRINGS) this.strings.set(f, new Int32Array(n));
    for (const f of NUMBERS) this.numbers.set(f, new Float64Array(n));
    for (const f of LISTS) this.lists.set(f, new Array(n));
    this.props = new Array(n);
    const read = new Map<string, Props>();
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      this.rowids[i] = r[0] as number;
      let c = 1;
      for (const f of STRINGS) this.strings.get(f)![i] = this.intern(f, r[c++] as string);
      for (const f of NUMBERS) this.numbers.get(f)![i] = r[c++] as number;
      for (const f of LISTS)
        this.lists.get(f)![i] = Int32Array.from(decodeList(r[c++] as string), (v) => this.intern(f, v));
      const json = r[c] as string;
      let props = read.get(json);
      if (!props) read.set(json, (props = readProps(json)));
      this.props[i] = props;
    }
    for (const f of LISTS) {
      const post = new Map<number, number[]>();
      this.lists.get(f)!.forEach((ids, row) => {
        for (const id of ids) {
          let rows = post.get(id);
          if (!rows) post.set(id, (rows = []));
          rows.push(row);
        }
      });
      this.postings.set(f, post);
    }
  }

  get size(): number {
    return this.rowids.length;
  }

  /**
   * The column of a rowid (the rows are read in rowid order: a binary search), or -1 for a rowid
   * the columns do not hold.
   *
   * @example
   * ```ts
   * columns.columnOf(42); // 41: the column of rowid 42
   * ```
   */
  columnOf(rowid: number): number {
    let lo = 0;
    let hi = this.rowids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.rowids[mid];
      if (r === rowid) return mid;
      if (r < rowid) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private intern(field: string, value: string): number {
    const d = this.dict.get(field)!;
    let id = d.get(value);
    if (id === undefined) d.set(value, (id = d.size));
    return id;
  }

  private id(field: string, value: string | number): number {
    return typeof value === "string" ? (this.dict.get(field)!.get(value) ?? -1) : -1;
  }

  /** A mask over rows (1 = passes the filter), in `rowids` order. */
  evaluate(node: WhereNode): Uint8Array {
    const n = this.size;
    const out = new Uint8Array(n);
    switch (node.kind) {
      case "and":
      case "or": {
        const masks = node.clauses.map((c) => this.evaluate(c));
        for (let i = 0; i < n; i++) {
          let v = node.kind === "and" ? 1 : 0;
          for (const m of masks) v = node.kind === "and" ? v & m[i] : v | m[i];
          out[i] = v;
        }
        return out;
      }
      case "prop":
        for (let i = 0; i < n; i++) out[i] = matchesProp(node, this.props[i]) ? 1 : 0;
        return out;
      case "list": {
        const rows = this.postings.get(node.field)!.get(this.id(node.field, node.value)) ?? [];
        if (node.op === "$not_contains") out.fill(1);
        const yes = node.op === "$contains" ? 1 : 0;
        for (const i of rows) out[i] = yes;
        return out;
      }
      case "set": {
        if (this.strings.has(node.field)) {
          const ids = new Set(node.values.map((v) => this.id(node.field, v)));
          const col = this.strings.get(node.field)!;
          const yes = node.op === "$in" ? 1 : 0;
          for (let i = 0; i < n; i++) out[i] = ids.has(col[i]) ? yes : 1 - yes;
        } else {
          const vals = new Set(node.values as number[]);
          const col = this.numbers.get(node.field)!;
          const yes = node.op === "$in" ? 1 : 0;
          for (let i = 0; i < n; i++) out[i] = vals.has(col[i]) ? yes : 1 - yes;
        }
        return out;
      }
      case "cmp": {
        if (this.strings.has(node.field)) {
          // strings only take $eq/$ne (the validator refuses ordering on text)
          const want = this.id(node.field, node.value);
          const col = this.strings.get(node.field)!;
          const eq = node.op === "$eq" ? 1 : 0;
          for (let i = 0; i < n; i++) out[i] = col[i] === want ? eq : 1 - eq;
          return out;
        }
        const col = this.numbers.get(node.field)!;
        const v = node.value as number;
        switch (node.op) {
          case "$eq":
            for (let i = 0; i < n; i++) out[i] = col[i] === v ? 1 : 0;
            break;
          case "$ne":
            for (let i = 0; i < n; i++) out[i] = col[i] !== v ? 1 : 0;
            break;
          case "$gt":
            for (let i = 0; i < n; i++) out[i] = col[i] > v ? 1 : 0;
            break;
          case "$gte":
            for (let i = 0; i < n; i++) out[i] = col[i] >= v ? 1 : 0;
            break;
          case "$lt":
            for (let i = 0; i < n; i++) out[i] = col[i] < v ? 1 : 0;
            break;
          case "$lte":
            for (let i = 0; i < n; i++) out[i] = col[i] <= v ? 1 : 0;
            break;
        }
        return out;
      }
    }
  }
}
