import { STOPWORDS } from "../store/index.js";
import { nameWords } from "../vault/links.js";
import { languageStopwords, wordStem } from "../store/language.js";

/**
 * Keeps at most `perNote` hits per note, in rank order, up to `limit`. When fewer than `limit`
 * distinct notes exist, backfills from the skipped hits (in rank order) so the caller still gets
 * `limit` results.
 *
 * @example
 * ```ts
 * diversify(hits, 6, 2).length; // 6, with no note more than twice unless there were too few notes
 * ```
 */
export function diversify<T extends { path: string }>(hits: T[], limit: number, perNote: number): T[] {
  const { kept, skipped } = capPerNote(hits, limit, perNote);
  if (kept.length < limit && skipped.length) {
    const chosen = new Set(kept);
    const backfill = skipped.slice(0, limit - kept.length);
    for (const b of backfill) chosen.add(b);
    // restore rank order
    return hits.filter((h) => chosen.has(h));
  }
  return kept;
}

/**
 * The first `limit` hits, in rank order, with no note more than `perNote` times (`kept`), and the
 * hits passed over for it before the limit was reached (`skipped`): {@link diversify} before it
 * backfills. `kept` shorter than `limit` means the hits hold too few notes.
 *
 * @example
 * ```ts
 * capPerNote([{ path: "a" }, { path: "a" }, { path: "b" }], 3, 1).kept; // [{ path: "a" }, { path: "b" }]
 * ```
 */
export function capPerNote<T extends { path: string }>(
  hits: T[],
  limit: number,
  perNote: number,
): { kept: T[]; skipped: T[] } {
  const kept: T[] = [];
  const skipped: T[] = [];
  const counts = new Map<string, number>();
  for (const h of hits) {
    if (kept.length >= limit) break;
    const n = counts.get(h.path) ?? 0;
    if (n >= perNote) {
      skipped.push(h);
      continue;
    }
    counts.set(h.path, n + 1);
    kept.push(h);
  }
  return { kept, skipped };
}

/**
 * Hits whose note is named by the whole question (its title, an alias or its file name, as a reader
 * would type it: `git log` for `git-log.md`; or the display text of a link to it from another note,
 * `PCA` for `[[Principle Component Analysis|PCA]]`, given in `linkNames` by path) first, in their
 * order, then the rest: a note's name is the most telling query there is, yet BM25 ranks a short
 * note with the name in its body above it when many notes share the words (on a vault of 7,425
 * command pages, `git` put `git.md` 49th), and the notes that link to a note by a name hold that
 * name in their own words. A link text of common words only (`here`) names nothing.
 * A moved hit takes the best distance, so the list stays in order, and is marked `named`.
 *
 * @example
 * ```ts
 * namedFirst([{ path: "git-log.md", … }, { path: "git.md", … }], "git").map((h) => h.path); // ["git.md", "git-log.md"]
 * ```
 */
export function namedFirst<
  T extends { path: string; distance: number; score: number; meta: { title: string; aliases?: string[] } },
>(hits: T[], question: string, linkNames?: ReadonlyMap<string, readonly string[]>, language?: string): T[] {
  const want = nameWords(question);
  if (!want) return hits;
  const linkNamed = new Set<string>();
  if (want.split(" ").some((w) => !STOPWORDS.has(w)))
    for (const [path, names] of linkNames ?? []) if (names.some((n) => nameWords(n) === want)) linkNamed.add(path);
  const named = byNoteName<T>(
    (name) => nameWords(name) === want,
    (path) => linkNamed.has(path),
  );
  const first = hits.filter(named);
  // then a note whose name the question holds, among the first hits (see titledFirst)
  if (!first.length) return titledFirst(hits, question, language);
  return liftFirst(hits, first);
}

/** What {@link byNoteName} and {@link liftFirst} read of a hit. */
interface NamedHit {
  path: string;
  distance: number;
  score: number;
  meta: { title: string; aliases?: string[] };
}

/**
 * A test of a hit by its note's names (title, file name without `.md`, aliases): whether `holds`
 * any of them, or `also` the note's path. Run once per note: a fusion brings hundreds of hits,
 * and a note's chunks share its names.
 *
 * @example
 * ```ts
 * const named = byNoteName((n) => n === "git");
 * named({ path: "cli/git.md", meta: { title: "Git" }, … }); // true: its file name
 * ```
 */
export function byNoteName<T extends NamedHit>(
  holds: (name: string) => boolean,
  also: (path: string) => boolean = () => false,
): (h: T) => boolean {
  const byNote = new Map<string, boolean>();
  return (h) => {
    let is = byNote.get(h.path);
    if (is === undefined) {
      const file = h.path.slice(h.path.lastIndexOf("/") + 1).replace(/\.md$/i, "");
      is = holds(h.meta.title) || holds(file) || (h.meta.aliases ?? []).some(holds) || also(h.path);
      byNote.set(h.path, is);
    }
    return is;
  };
}

/**
 * `first` (hits of `hits`, in their order) ahead of the rest, in order: a moved hit takes the best
 * hit's distance and score, so the list stays in order, and is marked `named`.
 *
 * @example
 * ```ts
 * liftFirst([a, b, c], [c]); // [c (a's distance, named), a, b]
 * ```
 */
export function liftFirst<T extends NamedHit>(hits: T[], first: T[]): T[] {
  if (first.length === hits.length) return hits;
  const best = hits[0];
  const lifted = new Set(first);
  return [
    ...first.map((h) =>
      h.distance > best.distance ? { ...h, distance: best.distance, score: best.score, named: true as const } : h,
    ),
    ...hits.filter((h) => !lifted.has(h)),
  ];
}

/** Where a name the question holds lifts its note ({@link titledFirst}). */
export const TITLED_DEFAULTS = {
  /** Only a note among the first this many hits is lifted: the name is one clue, the ranking another. */
  depth: 10,
  /** A name of more words than this is a sentence, not a name. */
  maxWords: 5,
  /**
   * The name covers at least this share of the question's words besides stopwords (English, and
   * those of the question's language): "bread" names
   * no topic of "that book I wanted to read about making better bread" (examples, held out).
   */
  share: 1 / 4,
};

/**
 * Hits whose note's name (its title, file name or an alias) the question holds first, in their
 * order, among the first `TITLED_DEFAULTS.depth` hits, where the name is a third or more of the
 * question's words (stopwords left out): "Wie funktioniert ein D-Flip-Flop" lifts
 * `D-Flip-Flop.md` over notes that say "Flip-Flop" more often in their text; a name of common
 * words only (`How to`) lifts nothing. Words are compared by their Snowball stems in the question's
 * `language` (English when not told) and joined, so a name written as one word matches the
 * question's two ("gray code" holds `Graycode`), and "eigenvalues" holds `Eigenvalue`. A moved hit
 * takes the best distance, so the list stays in order, and is marked `named`.
 *
 * @example
 * ```ts
 * titledFirst([{ path: "Latches.md", … }, { path: "D-Flip-Flop.md", … }], "Wie funktioniert ein D-Flip-Flop", "de");
 * // D-Flip-Flop.md first
 * ```
 */
export function titledFirst<
  T extends { path: string; distance: number; score: number; meta: { title: string; aliases?: string[] } },
>(hits: T[], question: string, language?: string, o = TITLED_DEFAULTS): T[] {
  const qWords = nameWords(question).split(" ").filter(Boolean);
  if (!qWords.length) return hits;
  const stems = qWords.map((w) => wordStem(w, language));
  // every run of the question's words long enough to name its topic, joined: its words' stems
  // joined, and the stem of the joined words
  const own = languageStopwords(language);
  const content = qWords.filter((w) => !STOPWORDS.has(w) && !own.has(w)).length;
  const runs = new Set<string>();
  for (let i = 0; i < stems.length; i++)
    for (let j = i + 1; j <= Math.min(stems.length, i + o.maxWords); j++)
      if (j - i >= o.share * content)
        runs.add(stems.slice(i, j).join("")).add(wordStem(qWords.slice(i, j).join(""), language));
  const holds = (name: string) => {
    const words = nameWords(name).split(" ").filter(Boolean);
    if (!words.length || words.length > o.maxWords || words.every((w) => STOPWORDS.has(w))) return false;
    const joined = words.map((w) => wordStem(w, language)).join("");
    return joined.length >= 3 && (runs.has(joined) || runs.has(wordStem(words.join(""), language)));
  };
  const titled = byNoteName<T>(holds);
  const top = hits.slice(0, o.depth);
  const first = top.filter(titled);
  if (!first.length || first.length === top.length || titled(hits[0])) return hits;
  return liftFirst(hits, first);
}

/**
 * Keeps hits whose score is at least `ratio ×` the best hit's score: a cutoff that moves with the
 * quality of the match, instead of an absolute threshold.
 *
 * @example
 * ```ts
 * dropStragglers([{ score: 0.52 }, { score: 0.3 }, { score: 0.2 }], 0.5); // the first two
 * ```
 */
export function dropStragglers<T extends { score: number }>(hits: T[], ratio: number): T[] {
  if (!hits.length) return hits;
  const floor = hits[0].score * ratio;
  return hits.filter((h) => h.score >= floor);
}

/** A ranked list entry for fusion: an id and a raw score where higher is better. */
export interface Ranked {
  id: string;
  score: number;
}

/** One list's say in an item's reciprocal-rank-fusion score: the item's rank there, and the list's weight. */
export interface RrfTerm {
  rank: number;
  weight: number;
}

/**
 * Reciprocal rank fusion of one item: `Σ wᵢ / (k + rankᵢ)` over the lists that hold it. The one RRF
 * formula of vault-rag: {@link rrf} (ranks from 1) and the Search API's `Rrf` (ranks as its
 * rank expressions give them, from 0 as in Chroma) both compute their scores here.
 *
 * @example
 * ```ts
 * rrfScore([{ rank: 2, weight: 1 }, { rank: 1, weight: 1 }], 60); // 1/62 + 1/61
 * ```
 */
export function rrfScore(terms: Iterable<RrfTerm>, k: number): number {
  let s = 0;
  for (const t of terms) s += t.weight / (k + t.rank);
  return s;
}

/**
 * Reciprocal rank fusion: `Σ wᵢ / (k + rankᵢ)` with ranks from 1. Returns ids by fused score, best first.
 *
 * @example
 * ```ts
 * rrf([[{ id: "a", score: 1 }, { id: "b", score: 0 }], [{ id: "b", score: 1 }]], [1, 1], 60);
 * // b: 1/62 + 1/61, a: 1/61 → [{ id: "b", ... }, { id: "a", ... }]
 * ```
 */
export function rrf(lists: Ranked[][], weights: number[] = lists.map(() => 1), k = 60): Ranked[] {
  const terms = new Map<string, RrfTerm[]>();
  lists.forEach((list, li) => {
    list.forEach((r, rank) => {
      let mine = terms.get(r.id);
      if (!mine) terms.set(r.id, (mine = []));
      mine.push({ rank: rank + 1, weight: weights[li] });
    });
  });
  const fused = new Map<string, number>();
  for (const [id, mine] of terms) fused.set(id, rrfScore(mine, k));
  return sortFused(fused);
}

/**
 * Normalised linear fusion: each list's scores min-max scaled to [0, 1] (a one-item list scores 1),
 * then `Σ wᵢ · normᵢ`; a missing entry counts 0. `floors[i]`, when given, is what list i's left-out
 * candidates score (0 for a keyword list that brought every chunk holding a word of the query), and
 * is its minimum instead of its last entry's: its weakest match then counts above no match.
 *
 * @example
 * ```ts
 * linearFusion([[{ id: "a", score: 10 }, { id: "b", score: 0 }], [{ id: "b", score: 0.9 }]], [0.5, 0.5]);
 * // a: 0.5·1 = 0.5; b: 0.5·0 + 0.5·1 = 0.5 → tie broken by id
 * linearFusion([[{ id: "a", score: 4 }, { id: "b", score: 2 }]], [1], [0]);
 * // a: 1, b: 0.5 (without the floor, b: 0)
 * ```
 */
export function linearFusion(lists: Ranked[][], weights: number[], floors: (number | undefined)[] = []): Ranked[] {
  const fused = new Map<string, number>();
  lists.forEach((list, li) => {
    if (!list.length) return;
    let min = floors[li] ?? Infinity;
    let max = -Infinity;
    for (const r of list) {
      min = Math.min(min, r.score);
      max = Math.max(max, r.score);
    }
    for (const r of list) {
      const norm = max > min ? (r.score - min) / (max - min) : 1;
      fused.set(r.id, (fused.get(r.id) ?? 0) + weights[li] * norm);
    }
  });
  return sortFused(fused);
}

function sortFused(m: Map<string, number>): Ranked[] {
  return [...m]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
