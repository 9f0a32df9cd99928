import fs from "node:fs";
import { ChromaStore } from "./chroma/chroma-store.js";
import { isChromaLocation } from "./chroma/location.js";
import { openExisting, type OpenStoreOptions } from "./open.js";
import { VaultRagError } from "../errors.js";
import { damaged, isCorruption, SqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./types.js";

/** A Chroma server is asked at most this often (ms) whether the collection was swapped: once per query. */
const CHROMA_CHECK_MS = 250;

/** The identity of the file now at `file` (device, inode, birth time), or undefined when none is. */
function fileIdentity(file: string): string | undefined {
  try {
    const s = fs.statSync(file);
    return `${s.dev}:${s.ino}:${s.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

/**
 * {@link openExisting} for long-lived readers (the MCP server, library handles, chat): the store it
 * returns notices when a full rebuild swapped a new index in (a new file renamed over the path,
 * or a new collection renamed to the name) and reopens before the next read. The check is a `stat`
 * of the path per read for a file, and one request per query (at most every 250 ms) for Chroma.
 * A file deleted under it reads as no index (the CLI's `no_index` error) until one is built there
 * again, and a file damaged under it as the `index_damaged` error that names the rebuild, as a new
 * reader would say (not "unexpected error: database disk image is malformed").
 *
 * @example
 * ```ts
 * const store = await openFollowingSwaps("/home/me/notes/.vault-rag/index.db");
 * // another process rebuilds the index; the next query reads the new one
 * await store?.queryKeyword("bread", 5);
 * ```
 */
export async function openFollowingSwaps(db: string, opts: OpenStoreOptions = {}): Promise<Store | undefined> {
  const chroma = isChromaLocation(db);
  let identity = chroma ? undefined : fileIdentity(db);
  let current = await openExisting(db, opts);
  if (!current) return undefined;
  const first = current;
  let checkedAt = 0;
  const replace = (next: Store) => {
    const old = current!;
    current = next;
    void old.close();
  };
  const check = async (): Promise<void> => {
    if (!chroma) {
      const now = fileIdentity(db);
      if (now === identity) return;
      if (now === undefined) throw new VaultRagError("no_index", `no index at ${db}`, { fix: { kind: "index", db } });
      identity = now;
      return replace(SqliteStore.open(db));
    }
    if (Date.now() - checkedAt < CHROMA_CHECK_MS) return;
    checkedAt = Date.now();
    const store = current as ChromaStore;
    const live = await store.liveCollectionId();
    if (live !== undefined && live !== store.collectionId && current === store)
      replace(await ChromaStore.open(db, { ...opts, create: false }));
  };
  return new Proxy(first, {
    get(_target, prop) {
      const value = Reflect.get(current!, prop) as unknown;
      if (typeof value !== "function") return value;
      // every call but close first checks that the index was not swapped: a method added to Store is
      // covered without being listed (a hand-kept list misses methods)
      if (prop === "close") return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(current, args);
      return async (...args: unknown[]) => {
        await check();
        try {
          return await (Reflect.get(current!, prop) as (...a: unknown[]) => unknown).apply(current, args);
        } catch (err) {
          throw !chroma && isCorruption(err) ? damaged(db, err as Error) : err;
        }
      };
    },
  });
}
