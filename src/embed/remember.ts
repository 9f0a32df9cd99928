import type { Embedder } from "./types.js";

/** How many recent query vectors {@link rememberQueries} keeps by default. */
export const REMEMBERED_QUERIES = 128;

/**
 * The same embedder, with the vectors of its most recent queries kept (least recently used out
 * first), so a query asked again is not embedded again: a filter chip clicked in the web app, or
 * `--top-k` changed on the same question. Each call gets its own copy of the vector; concurrent
 * calls for one text share one embedding; a failed embedding is not kept.
 *
 * @example
 * ```ts
 * const e = rememberQueries(useLiteEmbedder());
 * await e.embedQuery("how do I save power"); // runs the model
 * await e.embedQuery("how do I save power"); // from memory
 * ```
 */
export function rememberQueries(embedder: Embedder, size = REMEMBERED_QUERIES): Embedder {
  const kept = new Map<string, Promise<Float32Array>>();
  // delegates everything else to the embedder itself: a getter (an HTTP provider's `dimensions`,
  // known after its first reply) keeps answering live
  return Object.assign(Object.create(embedder) as Embedder, {
    async embedQuery(text: string): Promise<Float32Array> {
      let v = kept.get(text);
      if (v)
        kept.delete(text); // re-inserted below: most recently used last
      else {
        v = embedder.embedQuery(text);
        v.catch(() => kept.get(text) === v && kept.delete(text));
      }
      kept.set(text, v);
      while (kept.size > size) kept.delete(kept.keys().next().value!);
      return (await v).slice();
    },
  });
}
