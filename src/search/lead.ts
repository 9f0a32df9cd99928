import { flatBody, nothingToShow } from "../shared/snippet-text.js";
import type { Store } from "../store/index.js";
import type { Hit } from "./types.js";

/** At most this many characters of a note's first words go with a hit (a snippet shows about 100). */
const LEAD_CHARS = 300;

/**
 * The hits, each whose passage has nothing to show in a snippet ({@link nothingToShow}: a heading
 * and images under a blank breadcrumb) with `lead`: its note's first readable words, from the
 * note's first passage that has any. One read of the store per such note; the other hits are
 * returned as they are.
 *
 * @example
 * ```ts
 * (await withLeads(store, hits))[0].lead; // "Photos of the coast, taken in May." where hits[0] is "![](a.png)"
 * ```
 */
export async function withLeads(store: Store, hits: Hit[]): Promise<Hit[]> {
  const bare = hits.map((h) => nothingToShow(h.text, h.label));
  if (!bare.includes(true)) return hits;
  const leads = new Map<string, string>();
  for (const path of new Set(hits.filter((_, i) => bare[i]).map((h) => h.path))) {
    // a note's passages come in order
    const first = (await store.get({ path })).find((p) => !nothingToShow(p.text, ""));
    if (first) leads.set(path, flatBody(first.text).slice(0, LEAD_CHARS));
  }
  return hits.map((h, i) => {
    const lead = bare[i] ? leads.get(h.path) : undefined;
    return lead ? { ...h, lead } : h;
  });
}
