import { passageWindows, type WindowOptions } from "../embed/index.js";
import type { Store, StoreRecord } from "../store/index.js";
import { hashText } from "../vault/index.js";

/** The texts the model reads for one chunk (its windows), each with the hash that keys the vector cache. */
export type WindowPlan = { hash: string; text: string }[];

/** A chunk waiting for its vectors: what the model reads of it, and how an embedding error names it. */
export type Pending = { record: StoreRecord; plan: WindowPlan; label: string };

/** Vectors by window-text hash: found, or being made by the model. */
export type VectorMap = Map<string, Float32Array | Promise<Float32Array>>;

/** Where vectors are looked up before the model is asked: the index, and a full rebuild's old index. */
export interface VectorSources {
  store: Store;
  cacheFrom: Store | undefined;
  /** `provider:model`, the cache's key beside the text hash. */
  cacheModel: string;
}

/**
 * Finds the vectors of the pending chunks' windows that need no model: in `known` (this run's),
 * then the index's cache, then `cacheFrom`; those found are added to `known`. A passage of several
 * windows, not all cached, whose pooled vector is (a Chroma collection holds each chunk's pooled
 * vector, and a rebuilt sidecar none of its windows), stands with that vector as its one window
 * instead of embedding them all again (a sidecar rebuilt on a 434-note vault re-embedded its 31,654
 * windows): its plan is changed so. Returns the windows still to embed, by hash, with the label of
 * a chunk that reads each.
 *
 * @example
 * ```ts
 * const missing = await findVectors({ store, cacheFrom: undefined, cacheModel: "use-lite:v1" }, pending, known);
 * ```
 */
export async function findVectors(
  src: VectorSources,
  pending: Pending[],
  known: VectorMap,
): Promise<Map<string, { text: string; label: string }>> {
  const { store, cacheFrom, cacheModel } = src;
  // the store's cache, then the old index's (a full rebuild by the same model)
  const lookUp = async (hashes: string[]) => {
    for (const source of [store, cacheFrom]) {
      const want = hashes.filter((h) => !known.has(h));
      if (!source || !want.length) continue;
      for (const [h, v] of await source.cachedVectors(cacheModel, want)) known.set(h, v);
    }
  };
  await lookUp([...new Set(pending.flatMap((p) => p.plan.map((w) => w.hash)))]);
  const partial = pending.filter((p) => p.plan.length > 1 && p.plan.some((w) => !known.has(w.hash)));
  await lookUp([...new Set(partial.map((p) => p.record.meta.hash))]);
  for (const p of partial) if (known.has(p.record.meta.hash)) p.plan = [{ hash: p.record.meta.hash, text: "" }];
  const missing = new Map<string, { text: string; label: string }>();
  for (const p of pending)
    for (const w of p.plan) if (!known.has(w.hash)) missing.set(w.hash, { text: w.text, label: p.label });
  return missing;
}

/**
 * The windows the model reads of a passage's embedded text: the text whole (keyed by the passage's
 * hash) or, longer than the model's window, its windows (each keyed by its own text's hash).
 *
 * @example
 * ```ts
 * planWindows(run, chunk.embedText, chunk.meta.hash); // [{ hash: chunk.meta.hash, text: chunk.embedText }]
 * ```
 */
export function planWindows(
  run: { windowing: WindowOptions | undefined },
  embedText: string,
  hash: string,
): WindowPlan {
  const texts = run.windowing ? passageWindows(embedText, run.windowing) : [embedText];
  return texts.length === 1 ? [{ hash, text: texts[0] }] : texts.map((text) => ({ hash: hashText(text), text }));
}

/**
 * Gives a renamed note's new chunks the vectors of its old chunks (same content, same cut). Each
 * window keeps the hash of the text its vector was made from, so the next real edit of the note
 * embeds it afresh with the new title.
 *
 * @example
 * ```ts
 * await repoint(store, "old/Sourdough.md", records, plans, run.carry);
 * ```
 */
export async function repoint(
  store: Store,
  oldPath: string,
  records: StoreRecord[],
  plans: WindowPlan[],
  vectors: Map<string, Float32Array>,
): Promise<void> {
  const old = await store.get({ path: oldPath, includeVectors: true });
  if (old.length !== records.length) return;
  old.sort((a, b) => a.meta.ordinal - b.meta.ordinal);
  // the same cut into the same number of windows, or nothing is re-pointed
  if (old.some((r, k) => r.windows.length !== plans[k].length)) return;
  records.forEach((r, k) => {
    r.meta = { ...r.meta, hash: old[k].meta.hash };
    old[k].windows.forEach((w, j) => {
      plans[k][j] = { ...plans[k][j], hash: w.hash };
      vectors.set(w.hash, w.vector);
    });
  });
}
