import {
  queryTerms,
  queryTokens,
  STOPWORDS,
  type KeywordExpansion,
  type ScoredRecord,
  type Store,
} from "../store/index.js";
import { VaultRagError } from "../errors.js";
import { baseForms, WordNet } from "./wordnet.js";

/**
 * Query expansion defaults, in one place. The synonyms weigh `weight × (1 − coverage)` beside the
 * question's own words; the figures behind each value, and the variants that ranked lower, are in
 * docs/decisions/synonyms.md.
 */
export const EXPANSION_DEFAULTS = {
  /** Senses of a word whose synonyms are used, per part of speech (WordNet lists the most frequent first). */
  senses: 3,
  /** Weight of the synonyms' BM25 beside the question's own words, when the best keyword hit holds none of them. */
  weight: 0.5,
  /** A synonym held by more than this share of the chunks is too common to say anything. */
  maxShare: 0.05,
  /** At most this many synonyms are looked up in the index (a long question has hundreds). */
  maxCandidates: 100,
};
export type ExpansionOptionsWithDefaults = typeof EXPANSION_DEFAULTS;

/** What {@link planExpansion} found: the phrases to add and their weight, with the evidence. */
export interface ExpansionPlan extends KeywordExpansion {
  /** IDF-weighted share of the question's terms that the best keyword hit holds (0–1). */
  coverage: number;
}

let shared: WordNet | undefined;
let problem: string | undefined;

/**
 * The WordNet database, opened once per process and kept open for its life (six read-only file
 * descriptors; do not close it). Throws the `vault-rag:` error that says why when it cannot be
 * read ({@link wordNetProblem} then gives the same message, and later calls do not retry).
 *
 * @example
 * ```ts
 * sharedWordNet().synonyms("tally", 1); // ["run", "match", "fit", "correspond", "check", ...]: a sense per part of speech
 * ```
 */
export function sharedWordNet(): WordNet {
  if (shared) return shared;
  if (problem) throw new VaultRagError("io", problem);
  try {
    return (shared = WordNet.open());
  } catch (err) {
    problem = (err as Error).message;
    throw err;
  }
}

/**
 * The shared WordNet, or `undefined` when it cannot be read ({@link wordNetProblem} says why).
 *
 * @example
 * ```ts
 * readableWordNet()?.has("tally"); // true, or undefined on a broken install
 * ```
 */
export function readableWordNet(): WordNet | undefined {
  try {
    return sharedWordNet();
  } catch {
    return undefined;
  }
}

/**
 * Why searches run without synonyms in this process, if they do: the WordNet database could not
 * be read (a broken install). A search never fails for it; `--verbose` prints this.
 *
 * @example
 * ```ts
 * wordNetProblem(); // undefined, or "vault-rag: cannot read the WordNet database at … — reinstall vault-rag, or turn synonyms off (--no-expand; …)"
 * ```
 */
export function wordNetProblem(): string | undefined {
  return problem;
}

/**
 * WordNet synonyms of a question's words (and of two-word phrases in it: "add up", "bail out"),
 * as the keyword index would match them: nouns, verbs and adjectives, the first `senses` senses of
 * each, single words or phrases of plain words, none a stopword, none a word of the question, and
 * none a clipped form or an inflection of the word itself ("pot" for "potentiometer", "counting"
 * for "count") or of another word of the question, and one inflection of a stem. No proper names.
 * In WordNet's order, each once.
 *
 * @example
 * ```ts
 * synonymCandidates(sharedWordNet(), "total up a column of figures", 3); // ["sum", "aggregate", "amount", ...]
 * ```
 */
export function synonymCandidates(wn: WordNet, question: string, senses: number): string[] {
  const words = questionWords(question);
  const sources = [...new Set(words.filter((w) => !STOPWORDS.has(w) && /[a-z]/.test(w) && w.length > 1))].slice(
    0,
    MAX_SOURCE_WORDS,
  );
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < words.length && pairs.size < 2 * MAX_SOURCE_WORDS; i++)
    pairs.add(`${words[i]}_${words[i + 1]}`).add(`${words[i]}-${words[i + 1]}`);
  const out = new Set<string>();
  // the question's words, the synonyms taken, and the base forms of both: a synonym that is one of
  // them or a form of one ("branching", from "fork", in a question about a branch; "counting" beside
  // "count", one stem in the keyword index) would only weigh that word again
  const own: ReadonlySet<string> = new Set<string>(words.flatMap((w) => [w, ...baseForms(wn, w)]));
  const taken = new Set<string>(own);
  for (const source of [...sources, ...pairs])
    for (const lemma of baseForms(wn, source))
      for (const synonym of wn.synonyms(lemma, senses)) {
        const parts = synonym.split(/[_-]/);
        if (parts.some((p) => !/^[a-z0-9]+$/.test(p) || STOPWORDS.has(p))) continue;
        if (parts.length === 1 && (source.startsWith(parts[0]) || parts[0].startsWith(lemma))) continue;
        const phrase = parts.join(" ");
        const forms = parts.length === 1 ? baseForms(wn, phrase) : [];
        if (taken.has(phrase) || forms.some((f) => taken.has(f))) continue;
        // a phrase of the question's own words ("single file" for a question about a single file)
        if (parts.length > 1 && parts.every((p) => own.has(p) || baseForms(wn, p).some((f) => own.has(f)))) continue;
        out.add(phrase);
        taken.add(phrase);
        for (const f of forms) taken.add(f);
      }
  return [...out];
}

/** At most this many distinct words of a question (and twice as many word pairs) are looked up in WordNet. */
const MAX_SOURCE_WORDS = 32;

/**
 * A question's words as WordNet can look them up: lower-cased ASCII words, a hyphenated or dotted
 * identifier as its parts; a word with another letter ("résumé", "Größe") or an apostrophe
 * ("don't", "won't") is left out whole, not cut into fragments that mean something else.
 */
function questionWords(question: string): string[] {
  const out: string[] = [];
  for (const token of queryTokens(question)) {
    if (/['’]/.test(token) || /[^a-z0-9\-_.]/.test(token)) continue;
    for (const part of token.split(/[-_.]/)) if (part) out.push(part);
  }
  return out;
}

/**
 * How much of a question a keyword hit holds: the share of the question's terms in it, each
 * weighted by its IDF in the keyword index (`ln(1 + (N − n + 0.5) / (n + 0.5))`), so the rare
 * words count most. No hit holds nothing (0); a question with no terms is held whole (1).
 *
 * @example
 * ```ts
 * const [best] = await store.queryKeyword("tallying rows", 1);
 * (await keywordCoverage(store, "tallying rows", best)).coverage; // e.g. 0.31: "rows" but not "tallying"
 * ```
 */
export async function keywordCoverage(
  store: Store,
  question: string,
  hit: ScoredRecord | undefined,
  language?: string,
): Promise<{ coverage: number; chunks: number }> {
  const terms = queryTerms(question);
  if (!terms.length) return { coverage: 1, chunks: 0 };
  const own = await store.keywordStats(terms, { id: hit?.id, language });
  const n = own.chunks;
  let held = 0;
  let all = 0;
  terms.forEach((_, i) => {
    const idf = Math.log(1 + (n - own.counts[i] + 0.5) / (own.counts[i] + 0.5));
    all += idf;
    if (own.inChunk[i]) held += idf;
  });
  return { coverage: all > 0 ? held / all : 1, chunks: n };
}

/**
 * Decides a keyword query's expansion from its first results. The question's own words are
 * trusted as far as the best keyword hit holds them: `weight × (1 − coverage)`, with coverage the
 * IDF-weighted share of the question's terms in that hit. A question whose words all meet in one
 * passage is not expanded; one whose words the notes do not use ("tallying", "hogging") leans
 * on WordNet synonyms that the vault does use, and that are rare enough to mean something.
 * A question in another language than English (`language`, see readable.ts `questionLanguage`)
 * is not expanded. Returns `undefined` when there is nothing to add.
 *
 * @example
 * ```ts
 * const first = await store.queryKeyword(q, 300);
 * const plan = await planExpansion(store, q, first[0]);
 * if (plan) hits = await store.queryKeyword(q, 300, {}, { expansion: plan });
 * ```
 */
export async function planExpansion(
  store: Store,
  question: string,
  best: ScoredRecord | undefined,
  o: ExpansionOptionsWithDefaults = EXPANSION_DEFAULTS,
  wordnet?: WordNet,
  language?: string,
): Promise<ExpansionPlan | undefined> {
  // WordNet is English: a question told to be in another language is not expanded
  if (language && language !== "en") return undefined;
  const { coverage, chunks: n } = await keywordCoverage(store, question, best);
  const weight = o.weight * Math.max(0, 1 - coverage);
  if (weight <= 0 || !n) return undefined;
  const wn = wordnet ?? readableWordNet();
  if (!wn) return undefined; // searched without synonyms; wordNetProblem() says why
  const candidates = synonymCandidates(wn, question, o.senses).slice(0, o.maxCandidates);
  if (!candidates.length) return undefined;
  // a synonym one passage holds is always rare enough, however small the vault
  const cap = Math.max(2, Math.floor(o.maxShare * n) + 1);
  const { counts } = await store.keywordStats(candidates, { cap });
  const phrases = candidates.filter((_, i) => counts[i] > 0 && counts[i] < cap);
  return phrases.length ? { phrases, weight, coverage } : undefined;
}
