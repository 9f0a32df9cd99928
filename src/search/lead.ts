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
  const bare = new Set(hits.filter((h) => nothingToShow(h.text, h.label)).map((h) => h.path));
  if (!bare.size) return hits;
  const leads = new Map<string, string>();
  for (const path of bare) {
    const passages = (await store.get({ path })).sort((a, b) => a.meta.ordinal - b.meta.ordinal);
    const first = passages.find((p) => !nothingToShow(p.text, ""));
    if (first) leads.set(path, flatBody(first.text).slice(0, LEAD_CHARS));
  }
  return hits.map((h) => {
    const lead = leads.get(h.path);
    return lead && nothingToShow(h.text, h.label) ? { ...h, lead } : h;
  });
}
