import type Database from "better-sqlite3";
import { editDistance } from "../../closest.js";
import type { Spelling, SpellingQuery } from "../types.js";
import { FTS_TOKENIZE, phraseQuery } from "./fts-query.js";

/** At most this many spellings are given (see {@link Store.keywordSpellings}). */
const MAX_SPELLINGS = 20;

/** At most this many passages are read for the ways a stem is written. */
const SHOWN_ROWS = 30;

/**
 * The words of one SQLite keyword index, for spelling: FTS5's own vocabulary of stems (through an
 * `fts5vocab` table in the connection's temp schema, so a read-only connection can ask too), the
 * stem the index makes of a word (a temp FTS5 table of the same tokenizer), and the words as
 * passages write them. The vocabulary is read once per write generation (`generation`: the
 * store's own counter, which every write of chunks moves, whichever connection made it).
 */
export class KeywordSpellings {
  /** Stems with their chunk counts, per first letter ("" for all), of one write generation. */
  private terms?: { version: string; byStart: Map<string, [string, number][]> };

  constructor(
    private readonly db: Database.Database,
    private readonly generation: () => string,
  ) {}

  /** See {@link Store.keywordSpellings}. */
  near(word: string, maxEdits: number, opts: SpellingQuery = {}): Spelling[] {
    const stem = this.stemOf(word);
    if (!stem) return [];
    const found: { stem: string; chunks: number; edits: number }[] = [];
    for (const [term, chunks] of this.vocabulary(opts.sameStart ? stem[0] : "")) {
      if (term === stem || Math.abs(term.length - stem.length) > maxEdits) continue;
      const edits = editDistance(stem, term, maxEdits);
      if (edits <= maxEdits) found.push({ stem: term, chunks, edits });
    }
    found.sort((a, b) => a.edits - b.edits || b.chunks - a.chunks || (a.stem < b.stem ? -1 : 1));
    const out: Spelling[] = [];
    const limit = Math.min(MAX_SPELLINGS, opts.limit ?? MAX_SPELLINGS);
    for (const f of found) {
      if (out.length >= limit) break;
      const shown = this.writtenAs(f.stem, word);
      if (shown) out.push({ word: shown, chunks: f.chunks, edits: f.edits });
    }
    return out;
  }

  /** The temp tables and the statements on them, made once per connection on first use. */
  private get sql() {
    if (!this.prepared) {
      this.db.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS temp.vr_terms USING fts5vocab(main, fts, row);
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.vr_stem USING fts5(w, tokenize = '${FTS_TOKENIZE}');
         CREATE VIRTUAL TABLE IF NOT EXISTS temp.vr_stem_terms USING fts5vocab(temp, vr_stem, instance);`,
      );
      this.prepared = {
        addWord: this.db.prepare("INSERT INTO temp.vr_stem (rowid, w) VALUES (1, ?)"),
        stems: this.db.prepare("SELECT term FROM temp.vr_stem_terms").pluck(),
        clear: this.db.prepare("DELETE FROM temp.vr_stem"),
        allTerms: this.db.prepare("SELECT term, doc FROM temp.vr_terms").raw(),
        termRange: this.db.prepare("SELECT term, doc FROM temp.vr_terms WHERE term >= ? AND term < ?").raw(),
        forms: this.db
          .prepare(
            `SELECT snippet(fts, -1, char(57344), char(57345), '', 1) FROM fts WHERE fts MATCH ? LIMIT ${SHOWN_ROWS}`,
          )
          .pluck(),
      };
    }
    return this.prepared;
  }

  private prepared?: Record<
    "addWord" | "stems" | "clear" | "allTerms" | "termRange" | "forms",
    Database.Statement<unknown[], unknown>
  >;

  /** The index's stem of one word ("approximated" → "approxim"), or undefined when it makes none or several. */
  private stemOf(word: string): string | undefined {
    const { addWord, stems, clear } = this.sql;
    addWord.run(word);
    try {
      const terms = stems.all() as string[];
      return terms.length === 1 ? terms[0] : undefined;
    } finally {
      clear.run();
    }
  }

  /**
   * The stems of the index that begin with `start` (every stem for ""), with the number of chunks
   * that hold each. A letter's stems are a range of the vocabulary's order: 363 of til's 8,898 for
   * "m", read in a fifth of the time of all.
   */
  private vocabulary(start: string): [string, number][] {
    const version = this.generation();
    if (this.terms?.version !== version) this.terms = { version, byStart: new Map() };
    let terms = this.terms.byStart.get(start);
    if (!terms) {
      // the first code point after `start` bounds the range ("m" → "n")
      const end = start ? String.fromCodePoint(start.codePointAt(0)! + 1) : undefined;
      terms = (end ? this.sql.termRange.all(start, end) : this.sql.allTerms.all()) as [string, number][];
      this.terms.byStart.set(start, terms);
    }
    return terms;
  }

  /**
   * A word of the passages that the index reads as `stem`, the one spelled closest to `typed`
   * ("approximate" rather than "approximation" for "aproximate"); undefined when no passage writes
   * one. Found by prefix, which FTS5 does not stem (a stem matched as a word is stemmed again:
   * "revers", of "reverse", would be read as "rever"), and each form checked to stem to `stem`.
   */
  private writtenAs(stem: string, typed: string): string | undefined {
    const rows = this.sql.forms.all(`${phraseQuery([stem])}*`) as string[];
    // the matched word between two private-use characters, which no note's text means as marks
    const forms = new Set<string>();
    for (const s of rows)
      for (const m of s.matchAll(/\uE000([^\uE001]*)\uE001/g)) forms.add(m[1].normalize("NFKC").toLowerCase());
    let best: string | undefined;
    let bestEdits = Infinity;
    for (const f of [...forms].sort()) {
      const e = editDistance(typed, f);
      if (e < bestEdits && this.stemOf(f) === stem) [best, bestEdits] = [f, e];
    }
    return best;
  }
}
