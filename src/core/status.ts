/** What `status` reports: the index's model, size and age, and how many notes changed since. */
import { modelPlace, remoteAllowed } from "../embed/remote.js";
import { resolveDateKeys } from "../config.js";
import { modelSpecOf } from "../indexing/manifest.js";
import { dateSources } from "../search/index.js";
import type { Manifest, Store } from "../store/index.js";
import { countFiles } from "../vault/attachments/types.js";
import type { IndexPhases, VaultStatus, VaultStatusMaybeCounted } from "./types.js";

/** The off-thread walk of the vault (which loads the vault's reading code): only when stale notes are counted. */
const offThread = () => import("../indexing/off-thread.js");

/**
 * What `status` reports for an opened index (the CLI's `status` and {@link VaultHandle.status}).
 *
 * @example
 * ```ts
 * const { store, manifest } = await openForQuery(db);
 * (await indexStatus("/home/me/notes", store, manifest)).stale; // 3
 * ```
 */
export async function indexStatus(vault: string, store: Store, manifest: Manifest): Promise<VaultStatus>;
export async function indexStatus(
  vault: string,
  store: Store,
  manifest: Manifest,
  opts: { countStale?: boolean; indexing?: boolean },
): Promise<VaultStatusMaybeCounted>;
export async function indexStatus(
  vault: string,
  store: Store,
  manifest: Manifest,
  { countStale = true, indexing = false }: { countStale?: boolean; indexing?: boolean } = {},
): Promise<VaultStatusMaybeCounted> {
  const c = await store.count();
  const files = store.notes();
  const model = modelSpecOf(manifest);
  // where the model runs, and whether this machine lets the index's own model send text there
  const place = modelPlace(model);
  return {
    vault,
    index: store.location,
    model,
    modelRuns: place.where,
    ...(place.network && !remoteAllowed(model) ? { modelRefused: true as const } : {}),
    dimensions: manifest.embedder.dimensions,
    ...(await fileCounts(files)),
    chunks: c.chunks,
    lastIndexed: manifest.updatedAt,
    stale: countStale ? await staleCount(vault, store, files) : null,
    dates: dateSources(await store.noteProperties(), resolveDateKeys()),
    phases: await indexPhases(store, indexing),
    warnings: await store.indexWarnings(),
  };
}

/**
 * The notes and the attachments (PDFs, Canvas boards, Word documents) among the files an index
 * holds, counted apart, by their extensions.
 *
 * @example
 * ```ts
 * await fileCounts(store.notes()); // { notes: 43, attachments: 3 }
 * ```
 */
export async function fileCounts(
  files: Promise<Map<string, unknown>>,
): Promise<{ notes: number; attachments: number }> {
  return countFiles((await files).keys());
}

/**
 * The phases of indexing from what the index holds: how many passages have vectors, and what the
 * dense phase last recorded (windows done of those it embeds, and when), with whether an index run
 * holds the index now (`indexing`).
 *
 * @example
 * ```ts
 * await indexPhases(store, true);
 * // { keyword: "complete", dense: { state: "in progress", passages: 700, of: 2064, windows: { done: 2140, total: 6321 }, secondsLeft: 95 } }
 * // (`windows` only once its total is known, not guessed)
 * ```
 */
export async function indexPhases(store: Store, indexing: boolean): Promise<IndexPhases> {
  const { chunks, withVectors } = await store.vectorCoverage();
  const recorded = await store.denseProgress();
  const progress = recorded?.phase === "dense" ? recorded : undefined;
  const complete = withVectors >= chunks;
  const dense: IndexPhases["dense"] = {
    state: complete ? "complete" : indexing ? "in progress" : "stopped",
    passages: withVectors,
    of: chunks,
  };
  if (progress && !complete) {
    // a window total still guessed is not given: it would move as passages are read
    const total = Math.max(progress.windows, progress.done);
    if (!progress.estimated) dense.windows = { done: progress.done, total };
    const took = (Date.parse(progress.updated) - Date.parse(progress.started)) / 1000;
    if (indexing && progress.done > 0 && took > 0)
      dense.secondsLeft = Math.round(((total - progress.done) * took) / progress.done);
    if (progress.first?.length) dense.first = progress.first;
  }
  // the keyword phase leaves its record until the dense phase replaces it
  const keyword = recorded?.phase !== "keyword" ? "complete" : indexing ? "in progress" : "stopped";
  if (keyword !== "complete" && dense.state === "complete") dense.state = indexing ? "in progress" : "stopped";
  return { keyword, dense };
}

/**
 * How many notes changed on disk since they were indexed (added, edited, touched or removed): the
 * rule that `check` uses too, counted on another thread. A vault that cannot be read counts as
 * unchanged. `files`: the store's notes, when the caller has asked for them already.
 *
 * @example
 * ```ts
 * staleCount("/home/me/notes", store); // 3
 * ```
 */
export async function staleCount(
  vault: string,
  store: Store,
  files: ReturnType<Store["notes"]> = store.notes(),
): Promise<number> {
  return (await offThread()).staleInVaultOffThread(vault, files);
}

/**
 * What `status` reports before there is an index (or after it was deleted under an open handle).
 *
 * @example
 * ```ts
 * noIndexStatus("/home/me/notes", "/home/me/notes/.vault-rag/index.db", false).notes; // 0
 * ```
 */
export async function noIndexStatus(
  vault: string,
  index: string,
  countStale: boolean,
): Promise<VaultStatusMaybeCounted> {
  return {
    vault,
    index,
    model: null,
    dimensions: 0,
    notes: 0,
    attachments: 0,
    chunks: 0,
    lastIndexed: null,
    stale: countStale ? await (await offThread()).staleInVaultOffThread(vault, new Map()) : null,
  };
}
