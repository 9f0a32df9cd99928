/** A note named by the question's rarest word leads (docs/decisions/languages.md). */
import { STOPWORDS, type Store } from "../store/index.js";
import { languageStopwords, wordStem } from "../store/language.js";
import { nameWords } from "../vault/links.js";
import { byNoteName, liftFirst } from "./rank.js";

/** Where the question's rarest word lifts a note that names it ({@link rarestTitledFirst}). */
export const RAREST_DEFAULTS = {
  /** Only a note among the first this many hits is lifted. */
  depth: 10,
  /**
   * Questions of more words than this (stopwords left out) are left as they are: in a long one the
   * rarest word is as often a passing one ("… without touching the source", til).
   */
  words: 4,
  /** Passages counted per word, at most: a word held by more is common, never the rarest. */
  cap: 1000,
};

/** A question's words besides stopwords, and the rarest of them, as Snowball stems ({@link rarestWords}). */
export interface RarestWords {
  rarest: string[];
  words: string[];
}

/**
 * The question's rarest words: of its words besides stopwords (English, and those of its
 * `language`), the ones the fewest passages hold (and at least one), when the question has two
 * to `RAREST_DEFAULTS.words` such words and not all are held by as many passages. Their Snowball stems in `language`
 * (English when not told), with the stems of all its words, for {@link rarestTitledFirst};
 * `undefined` when there is none.
 *
 * @example
 * ```ts
 * await rarestWords(store, "how does TCP handshake work");
 * // { rarest: ["handshak"], words: ["tcp", "handshak", "work"] } where 2 passages say "handshake", 5 "TCP"
 * await rarestWords(store, "handshake"); // undefined: one word
 * ```
 */
export async function rarestWords(
  store: Store,
  question: string,
  language?: string,
  o = RAREST_DEFAULTS,
): Promise<RarestWords | undefined> {
  const own = languageStopwords(language);
  const words = [...new Set(nameWords(question).split(" "))].filter(
    (w) => w && !STOPWORDS.has(w) && !own.has(w) && !/^\p{N}+$/u.test(w),
  );
  if (words.length < 2 || words.length > o.words) return undefined;
  const { counts } = await store.keywordStats(words, { cap: o.cap, language });
  const held = counts.filter((c) => c > 0 && c < o.cap);
  if (!held.length) return undefined;
  const least = Math.min(...held);
  if (counts.every((c) => c === least)) return undefined;
  const stems = words.map((w) => wordStem(w, language));
  return { rarest: [...new Set(stems.filter((_, i) => counts[i] === least))], words: [...new Set(stems)] };
}

/**
 * Hits whose note's name (title, file name or an alias) holds one of the question's rarest words
 * ({@link rarestWords}) first, in their order: those among the first `depth` hits that hold as
 * many of the question's words as the first hit (in title, breadcrumb and text), unless the first
 * hit's own name holds a rarest word. "how does TCP handshake work" lifts `Three Way Handshake.md`
 * over a one-line note on `tcp_keepalive` that "works"; "focus an input in react with a ref" does
 * not lift "Keybinding To Focus The Address Bar", which holds one of its words. Words are compared
 * by their Snowball stems in `language`. A moved hit takes the best distance, so the list stays in
 * order, and is marked `named`.
 *
 * @example
 * ```ts
 * rarestTitledFirst(hits, { rarest: ["handshak"], words: ["tcp", "handshak", "work"] });
 * // Three Way Handshake.md before TCP keepalive.md
 * ```
 */
export function rarestTitledFirst<
  T extends {
    path: string;
    text: string;
    distance: number;
    score: number;
    meta: { title: string; section?: string; aliases?: string[] };
  },
>(hits: T[], found: RarestWords | undefined, language?: string, o = RAREST_DEFAULTS): T[] {
  if (!found || hits.length < 2) return hits;
  const want = new Set(found.rarest);
  const stemsOf = (text: string) =>
    new Set(
      nameWords(text)
        .split(" ")
        .map((w) => wordStem(w, language)),
    );
  const held = (h: T) => {
    const stems = stemsOf(`${h.meta.title} ${h.meta.section ?? ""} ${h.text}`);
    return found.words.filter((w) => stems.has(w)).length;
  };
  const named = byNoteName<T>((name) => [...stemsOf(name)].some((w) => want.has(w)));
  const best = hits[0];
  if (named(best)) return hits;
  const bestHeld = held(best);
  const first = hits.slice(0, o.depth).filter((h) => named(h) && held(h) >= bestHeld);
  return first.length ? liftFirst(hits, first) : hits;
}
