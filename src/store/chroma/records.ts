import type { Collection } from "chromadb";
import type { StoreRecord } from "../types.js";
import type { Logger } from "../../log.js";
import { guard, loadChroma } from "./client.js";
import type { ChromaLocation } from "./location.js";
import { fromChromaMetadata } from "./translate.js";

/** The collection a {@link readRecords} reads, where it is, and the server's batch size. */
export interface RecordSource {
  loc: ChromaLocation;
  collection: Collection;
  maxBatch: number;
}

/**
 * A collection's records, read in pages of the server's batch size: by ids, or every record
 * passing a `where` (all when none), with or without their vectors (a record's vector stands as its
 * one window, keyed by its text's hash).
 *
 * @example
 * ```ts
 * for await (const r of readRecords({ loc, collection, maxBatch: 1000 }, { where: { path: { $eq: "a.md" } } }, true)) …
 * ```
 */
export async function* readRecords(
  src: RecordSource,
  query: { ids?: string[]; where?: Record<string, unknown> },
  vectors: boolean,
  what = "read chunks",
): AsyncGenerator<StoreRecord> {
  const { loc, collection, maxBatch } = src;
  const include = (vectors ? ["documents", "metadatas", "embeddings"] : ["documents", "metadatas"]) as never;
  const toRecords = (page: {
    ids: string[];
    documents: (string | null)[];
    metadatas: unknown[];
    embeddings: number[][];
  }) =>
    page.ids.map((id, i) => {
      const meta = fromChromaMetadata(page.metadatas[i] as Record<string, unknown>);
      return {
        id,
        text: page.documents[i] ?? "",
        meta,
        windows: vectors ? [{ hash: meta.hash, vector: Float32Array.from(page.embeddings[i] ?? []) }] : [],
      };
    });
  if (query.ids) {
    for (let i = 0; i < query.ids.length; i += maxBatch) {
      const ids = query.ids.slice(i, i + maxBatch);
      yield* toRecords(await guard(loc, what, () => collection.get({ ids, include })));
    }
    return;
  }
  for (let offset = 0; ; offset += maxBatch) {
    const page = await guard(loc, what, () =>
      collection.get({ where: query.where as never, limit: maxBatch, offset, include }),
    );
    yield* toRecords(page);
    if (page.ids.length < maxBatch) return;
  }
}

/**
 * Whether two lists hold the same chunks (ids and texts), in any order.
 *
 * @example
 * ```ts
 * sameChunks(await sidecar.get({ path }), serverRecords); // true when the sidecar kept them
 * ```
 */
export function sameChunks(a: StoreRecord[], b: StoreRecord[]): boolean {
  if (a.length !== b.length) return false;
  const texts = new Map(a.map((r) => [r.id, r.text]));
  return b.every((r) => texts.get(r.id) === r.text);
}

/**
 * Records grouped by their note's path, and how many there were.
 *
 * @example
 * ```ts
 * const { byPath, n } = await byNote(readRecords(src, {}, true));
 * ```
 */
export async function byNote(
  records: AsyncIterable<StoreRecord>,
): Promise<{ byPath: Map<string, StoreRecord[]>; n: number }> {
  const byPath = new Map<string, StoreRecord[]>();
  let n = 0;
  for await (const r of records) {
    let list = byPath.get(r.meta.path);
    if (!list) byPath.set(r.meta.path, (list = []));
    list.push(r);
    n++;
  }
  return { byPath, n };
}

/**
 * Adds to `out` the pooled vector the collection holds for each of `hashes` not in it yet (a
 * passage's text hash), read 500 hashes a request.
 *
 * @example
 * ```ts
 * await pooledVectors(src, ["9f2c…"], new Map()); // Map { "9f2c…" => Float32Array(512) }
 * ```
 */
export async function pooledVectors(
  src: RecordSource,
  hashes: string[],
  out: Map<string, Float32Array>,
): Promise<Map<string, Float32Array>> {
  hashes = hashes.filter((h) => !out.has(h));
  for (let i = 0; i < hashes.length; i += 500) {
    const where = { hash: { $in: hashes.slice(i, i + 500) } };
    for await (const r of readRecords(src, { where }, true, "read cached vectors"))
      if (!out.has(r.meta.hash)) out.set(r.meta.hash, r.windows[0].vector);
  }
  return out;
}

/**
 * Whether the server offers Chroma's Search API (a local server answers "not implemented"). Keyword
 * ranking stays on the sidecar either way, so both backends rank alike.
 *
 * @example
 * ```ts
 * await offersSearchApi(collection, log, "http://127.0.0.1:8000"); // false for a local server
 * ```
 */
export async function offersSearchApi(collection: Collection, log: Logger, server: string): Promise<boolean> {
  try {
    // the smallest real search: one id, no ranking
    const { Search } = await loadChroma();
    await collection.search(new Search().limit(1));
    return true;
  } catch (err) {
    // a local server answers "not implemented for local executor"
    log.debug(`vault-rag: no Search API at ${server}: ${(err as Error).message.split("\n")[0]}`);
    return false;
  }
}
