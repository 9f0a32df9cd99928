import type { QueryFilter, WhereNode } from "../store/index.js";
import { capPerNote } from "./rank.js";
import type { Hit } from "./types.js";

/** More candidates from the notes not yet at the cap: their hits, and whether a list was cut at its depth. */
export interface MoreCandidates {
  hits: Hit[];
  /** A list brought as many candidates as it was asked for: there may be more behind them. */
  full: boolean;
}

/**
 * The notes that hold at least `perNote` of `hits`: a search for more candidates leaves them out.
 *
 * @example
 * ```ts
 * notesAtCap([{ path: "a" }, { path: "a" }, { path: "b" }], 2); // ["a"]
 * ```
 */
export function notesAtCap(hits: readonly { path: string }[], perNote: number): string[] {
  const counts = new Map<string, number>();
  for (const h of hits) counts.set(h.path, (counts.get(h.path) ?? 0) + 1);
  return [...counts].filter(([, n]) => n >= perNote).map(([p]) => p);
}

/**
 * A filter that also leaves out the notes at `paths`, on both backends: `path` `$nin`.
 *
 * @example
 * ```ts
 * withoutNotes({}, ["Big.md"]).where; // { kind: "set", field: "path", op: "$nin", values: ["Big.md"] }
 * ```
 */
export function withoutNotes(filter: QueryFilter, paths: string[]): QueryFilter {
  const out: WhereNode = { kind: "set", field: "path", op: "$nin", values: paths };
  return { ...filter, where: filter.where ? { kind: "and", clauses: [filter.where, out] } : out };
}

/**
 * Ranked hits, followed, while fewer than `topK` notes fill the per-note cap and the lists were
 * cut at their depth, by the candidates of the other notes: `ask` searches again without the notes
 * already at the cap (one note holding hundreds of passages with the query's words takes every
 * candidate a list brings). A round that brings no new passage ends it; at most `topK` rounds. The
 * hits added keep the list in order of distance.
 *
 * @example
 * ```ts
 * const hits = await withOtherNotes(ranked, full, o, (paths) => searchWithout(paths));
 * diversify(hits, o.topK, o.perNote); // one note at most perNote times, others after it
 * ```
 */
export async function withOtherNotes(
  ranked: Hit[],
  full: boolean,
  o: { topK: number; perNote: number },
  ask: (leaveOut: string[]) => Promise<MoreCandidates>,
): Promise<Hit[]> {
  let hits = ranked;
  for (let round = 0; full && round < o.topK; round++) {
    if (capPerNote(hits, o.topK, o.perNote).kept.length >= o.topK) break;
    const leaveOut = notesAtCap(hits, o.perNote);
    if (!leaveOut.length) break;
    const more = await ask(leaveOut);
    const seen = new Set(hits.map((h) => h.id));
    let before = hits.length ? hits[hits.length - 1].distance : -Infinity;
    const fresh = more.hits
      .filter((h) => !seen.has(h.id))
      .map((h) => {
        const distance = Math.max(before, h.distance);
        before = distance;
        return distance === h.distance ? h : { ...h, distance, score: Math.max(0, 1 - distance) };
      });
    if (!fresh.length) break;
    hits = [...hits, ...fresh];
    full = more.full;
  }
  return hits;
}
