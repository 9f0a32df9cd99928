import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ChromaStore, defaultSidecarDir, type ChromaStoreOptions } from "./chroma/chroma-store.js";
import { isChromaLocation, parseChromaLocation, showLocation } from "./chroma/location.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./types.js";

/** Options for opening either backend; the Chroma ones are ignored for a file. */
export type OpenStoreOptions = Omit<ChromaStoreOptions, "create"> & { create?: boolean };

/**
 * Opens the store that `db` names: an absolute file path (the embedded SQLite store) or a Chroma
 * address (`chroma://host:port/<collection>`, `http(s)://…`).
 *
 * @example
 * ```ts
 * const store = await openStore("/home/me/notes/.vault-rag/index.db");
 * const remote = await openStore("chroma://localhost:8000/notes", { create: true });
 * ```
 */
export async function openStore(db: string, opts: OpenStoreOptions = {}): Promise<Store> {
  if (isChromaLocation(db)) return ChromaStore.open(db, opts);
  return SqliteStore.open(db, { create: opts.create });
}

/**
 * Opens the index at `db` if there is one, else `undefined`: one open, where "does it exist?"
 * followed by "open it" would connect to a server (and check its sidecar) twice. A server that
 * cannot be reached is an error, not "no index".
 *
 * @example
 * ```ts
 * const store = await openExisting(db);
 * if (!store) console.log("no index yet");
 * ```
 */
export async function openExisting(db: string, opts: OpenStoreOptions = {}): Promise<Store | undefined> {
  if (!isChromaLocation(db)) return fs.existsSync(db) ? SqliteStore.open(db, { log: opts.log }) : undefined;
  try {
    return await ChromaStore.open(db, { ...opts, create: false });
  } catch (err) {
    if ((err as { code?: string }).code === "no_index") return undefined;
    throw err;
  }
}

/**
 * True when an index exists at `db` (a file, or a collection on the server).
 *
 * @example
 * ```ts
 * if (!(await storeExists(db))) console.log("no index yet");
 * ```
 */
export async function storeExists(db: string, opts: OpenStoreOptions = {}): Promise<boolean> {
  if (!isChromaLocation(db)) return fs.existsSync(db);
  const s = await openExisting(db, opts);
  await s?.close();
  return !!s;
}

/**
 * The user-facing form of a location: an absolute path, or the Chroma address without secrets.
 *
 * @example
 * ```ts
 * displayLocation("chroma://localhost:8000/notes?tenant=t"); // "chroma://localhost:8000/notes"
 * ```
 */
export function displayLocation(db: string): string {
  return isChromaLocation(db) ? showLocation(parseChromaLocation(db)) : db;
}

/**
 * Where the writer lock of an index lives: beside the file, or in the sidecar folder for a
 * collection (a lock only guards writers on this machine; see the README on shared servers).
 *
 * @example
 * ```ts
 * lockTarget("/v/.vault-rag/index.db"); // "/v/.vault-rag/index.db" (the lock is "<target>.lock")
 * ```
 */
export function lockTarget(db: string, sidecarDir?: string): string {
  if (!isChromaLocation(db)) return db;
  const key = createHash("sha256").update(displayLocation(db)).digest("hex").slice(0, 16);
  return path.join(sidecarDir ?? defaultSidecarDir(), `collection-${key}`);
}

/** A store being rebuilt beside the live one, swapped in by `commit`. */
export interface Rebuild {
  store: Store;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Deletes what a full rebuild of the SQLite index at `db` left when it was stopped (Ctrl-C) or
 * killed: its `<db>.rebuild` file and that file's journal. Only while no rebuild runs: under the
 * index's lock. Nothing for Chroma (a half-built collection is dropped by the next rebuild).
 * Returns whether there was anything.
 *
 * @example
 * ```ts
 * discardRebuild("/v/.vault-rag/index.db"); // true: index.db.rebuild and index.db.rebuild-wal were there
 * ```
 */
export function discardRebuild(db: string): boolean {
  if (isChromaLocation(db)) return false;
  let found = false;
  for (const s of ["", "-wal", "-shm"]) {
    const f = `${db}.rebuild${s}`;
    if (!fs.existsSync(f)) continue;
    found = true;
    fs.rmSync(f, { force: true });
  }
  return found;
}

/**
 * Starts a full rebuild of the index at `db`: a new file (`<db>.rebuild`) or a new collection
 * (`<collection>-rebuild`), swapped in only when complete, so a failed rebuild leaves the old
 * index untouched.
 *
 * @example
 * ```ts
 * const r = await beginRebuild(db);
 * try { await fill(r.store); await r.commit(); } catch (e) { await r.abort(); throw e; }
 * ```
 */
export async function beginRebuild(db: string, opts: OpenStoreOptions = {}): Promise<Rebuild> {
  if (isChromaLocation(db)) return beginChromaRebuild(db, opts);
  const tmp = `${db}.rebuild`;
  const clean = (base: string, suffixes: string[]) => suffixes.forEach((s) => fs.rmSync(base + s, { force: true }));
  discardRebuild(db);
  const store = SqliteStore.open(tmp, { create: true });
  return {
    store,
    async commit() {
      store.db.pragma("wal_checkpoint(TRUNCATE)");
      await store.close();
      clean(db, ["-wal", "-shm"]);
      fs.renameSync(tmp, db);
      clean(tmp, ["-wal", "-shm", ".vectors"]);
      const swapped = SqliteStore.open(db);
      await swapped.warmDense();
      await swapped.close();
    },
    async abort() {
      await store.close();
      discardRebuild(db);
    },
  };
}

async function beginChromaRebuild(db: string, opts: OpenStoreOptions): Promise<Rebuild> {
  const loc = parseChromaLocation(db, opts);
  const tmpName = `${loc.collection}-rebuild`;
  const named = (name: string) => db.replace(/\/[^/?]+(\?.*)?$/, `/${name}$1`);
  const tmpDb = named(tmpName);
  // leftovers of a rebuild that crashed: a half-built collection is dropped; an old index set aside
  // but never replaced is put back
  const tryOpen = async (name: string) => (await openExisting(named(name), opts)) as ChromaStore | undefined;
  await (await tryOpen(tmpName))?.drop();
  const aside = await tryOpen(`${loc.collection}-old`);
  if (aside) {
    const live = await tryOpen(loc.collection);
    if (live) {
      await live.close();
      await aside.drop();
    } else {
      await aside.rename(loc.collection);
      await aside.close();
    }
  }
  const store = await ChromaStore.open(tmpDb, { ...opts, create: true });
  return {
    store,
    async commit() {
      const old = (await openExisting(db, opts)) as ChromaStore | undefined;
      // rename the old collection aside, the new one into place, then drop the old one
      if (old) await old.rename(`${loc.collection}-old`);
      try {
        await store.rename(loc.collection);
      } catch (err) {
        if (old) await old.rename(loc.collection);
        throw err;
      }
      await store.close();
      if (old) await old.drop();
    },
    async abort() {
      await store.drop();
    },
  };
}
