import fs from "node:fs";
import path from "node:path";

/**
 * A model folder's own limits and token counter, read at once (no library) so that windows can be
 * cut before the model loads: the word pieces a BERT-family model reads, by the rules of its
 * `tokenizer.json` (BertNormalizer, BertPreTokenizer, WordPiece), and the window it was trained
 * for (`sentence_bert_config.json` `max_seq_length`, else `config.json` `max_position_embeddings`).
 */
export interface LocalTokenizer {
  /** Word pieces of a text, without the `[CLS]` and `[SEP]` the model adds. */
  count(text: string): number;
  /** Share (0–1) of a text's non-space characters in words that come out as `[UNK]`. */
  unknownShare(text: string): number;
}

/** Longest word WordPiece splits (longer ones are one `[UNK]`), as in BERT's tokenizer. */
const MAX_WORD_CHARS = 100;

/** Punctuation and symbols, each a word of its own to BERT (ASCII symbols count as punctuation). */
const PUNCT = /[\p{P}\p{S}]/u;

/** CJK ideographs, each a word of its own to BERT. */
const CJK = /\p{Script=Han}/u;

/**
 * The window a model folder says its model reads, in tokens with `[CLS]` and `[SEP]`:
 * `sentence_bert_config.json`'s `max_seq_length`, else `config.json`'s `max_position_embeddings`,
 * else `undefined` (no such files).
 *
 * @example
 * ```ts
 * modelWindow("/home/me/models/sentence-transformers/all-MiniLM-L6-v2"); // 256
 * ```
 */
export function modelWindow(folder: string): number | undefined {
  const read = (f: string) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(folder, f), "utf8")) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const st = read("sentence_bert_config.json")?.max_seq_length;
  if (typeof st === "number" && st > 2) return st;
  const pos = read("config.json")?.max_position_embeddings;
  return typeof pos === "number" && pos > 2 ? pos : undefined;
}

/**
 * The WordPiece counter of a model folder's `tokenizer.json`, or `undefined` when there is none or it
 * is no WordPiece tokenizer (a SentencePiece model is left to the library).
 *
 * @example
 * ```ts
 * wordPieceTokenizer("/home/me/models/sentence-transformers/all-MiniLM-L6-v2")?.count("Robots sleeping"); // 3
 * ```
 */
export function wordPieceTokenizer(folder: string): LocalTokenizer | undefined {
  let spec: {
    normalizer?: { type?: string; lowercase?: boolean; strip_accents?: boolean | null } | null;
    model?: { type?: string; vocab?: Record<string, number>; continuing_subword_prefix?: string };
  };
  try {
    spec = JSON.parse(fs.readFileSync(path.join(folder, "tokenizer.json"), "utf8"));
  } catch {
    return undefined;
  }
  const vocab = spec.model?.vocab;
  if (spec.model?.type !== "WordPiece" || !vocab) return undefined;
  const lower = spec.normalizer?.type === "BertNormalizer" && spec.normalizer.lowercase !== false;
  // BERT strips accents when it lower-cases, unless strip_accents says otherwise
  const strip = lower && spec.normalizer?.strip_accents !== false;
  const prefix = spec.model.continuing_subword_prefix ?? "##";
  const has = (t: string) => Object.hasOwn(vocab, t);
  const pieces = new Map<string, number>();

  /** Word pieces of one word, 0 when it is unknown (one `[UNK]`); remembered per word. */
  const piecesOf = (word: string): number => {
    let n = pieces.get(word);
    if (n !== undefined) return n;
    n = 0;
    if (word.length <= MAX_WORD_CHARS) {
      let start = 0;
      while (start < word.length) {
        let end = word.length;
        while (end > start && !has((start ? prefix : "") + word.slice(start, end))) end--;
        if (end === start) {
          n = 0;
          break;
        }
        n++;
        start = end;
      }
    }
    if (pieces.size > 100_000) pieces.clear();
    pieces.set(word, n);
    return n;
  };

  const words = (text: string): string[] => {
    let t = lower ? text.toLowerCase() : text;
    if (strip) t = t.normalize("NFD").replace(/\p{Mn}/gu, "");
    const out: string[] = [];
    for (const chunk of t.split(/\s+/)) {
      let word = "";
      for (const ch of chunk) {
        if (PUNCT.test(ch) || CJK.test(ch)) {
          if (word) out.push(word);
          out.push(ch);
          word = "";
        } else word += ch;
      }
      if (word) out.push(word);
    }
    return out;
  };

  return {
    count: (text) => words(text).reduce((n, w) => n + Math.max(1, piecesOf(w)), 0),
    unknownShare(text) {
      let all = 0;
      let unknown = 0;
      for (const w of words(text)) {
        all += w.length;
        if (piecesOf(w) === 0) unknown += w.length;
      }
      return all ? unknown / all : 0;
    },
  };
}
