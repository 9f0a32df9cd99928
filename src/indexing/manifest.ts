import { CHUNKER_VERSION } from "../chunk/defaults.js";
import type { Embedder } from "../embed/types.js";
import { createEmbedder, DEFAULT_MODEL, type EmbedderOptions } from "../embed/registry.js";
import { indexModelOptions, indexModelRefusal } from "../embed/remote.js";
import { VaultRagError } from "../errors.js";
import { displayLocation, openExisting, type OpenStoreOptions } from "../store/open.js";
import { SCHEMA_VERSION, type Manifest, type Store } from "../store/types.js";
import { hashText } from "../vault/note-path.js";
import { typesKey, type ObsidianType } from "../vault/property-types.js";
import { LEAVE_OUT_DEFAULTS, type LeaveOut } from "../vault/queries.js";

/**
 * The chunker version an index records: {@link CHUNKER_VERSION}, with a short hash of the vault's
 * `leaveOut` setting when it is not the default, so that a changed setting reads every note again,
 * and the key of the property types it declares ({@link withTypesKey}).
 *
 * @example
 * ```ts
 * chunkerVersionFor(LEAVE_OUT_DEFAULTS); // "30"
 * chunkerVersionFor({ codeLanguages: ["dataview"], headings: ["Backlinks"] }); // "30+1c0a…"
 * ```
 */
export function chunkerVersionFor(
  leaveOut: LeaveOut,
  propTypes: ReadonlyMap<string, ObsidianType> = new Map(),
): string {
  const key = JSON.stringify(leaveOut);
  const version =
    key === JSON.stringify(LEAVE_OUT_DEFAULTS) ? CHUNKER_VERSION : `${CHUNKER_VERSION}+${hashText(key).slice(0, 8)}`;
  return withTypesKey(version, propTypes);
}

/**
 * Describes an embedder for the manifest. A model not loaded yet (dimensions 0) keeps the
 * dimensions `previous` recorded for the same model.
 *
 * @example
 * ```ts
 * manifestFor(useLiteEmbedder()).embedder.dimensions; // 512
 * ```
 */
export function manifestFor(embedder: Embedder, previous?: Manifest, chunkerVersion = CHUNKER_VERSION): Manifest {
  const now = new Date().toISOString();
  return {
    schemaVersion: SCHEMA_VERSION,
    embedder: {
      provider: embedder.provider,
      model: embedder.model,
      dimensions: knownDimensions(embedder, previous),
      documentPrefix: embedder.documentPrefix,
      queryPrefix: embedder.queryPrefix,
      normalized: embedder.normalized,
    },
    chunkerVersion,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    ...(previous?.shown ? { shown: previous.shown } : {}),
  };
}

/** The embedder's dimensions, or those `previous` recorded for the same model while the embedder's are 0 (not loaded). */
function knownDimensions(embedder: Embedder, previous: Manifest | undefined): number {
  if (embedder.dimensions !== 0 || !previous || !sameModel(previous, embedder)) return embedder.dimensions;
  return previous.embedder.dimensions;
}

/** What {@link ensureManifest} reads of an indexing run, and the manifest it sets. */
export interface ManifestRun {
  store: Pick<Store, "setManifest">;
  embedder: Embedder;
  manifest: Manifest | undefined;
  chunkerChanged: boolean | undefined;
  chunkerVersion: string;
}

/**
 * Records what builds the index before its first write: the manifest, with the model's dimensions
 * (a model whose dimensions are not known yet is asked once, and so is one when the manifest
 * records 0: a manifest's dimensions are never left unknown). An upgrade in progress keeps
 * the old chunker version until the keyword phase completes, so an interrupted upgrade still
 * re-chunks the notes it did not reach.
 *
 * @example
 * ```ts
 * await ensureManifest(run); // run.manifest is set and stored
 * ```
 */
export async function ensureManifest(run: ManifestRun): Promise<void> {
  const { store, embedder } = run;
  const manifest = run.manifest;
  const stored = manifest?.embedder.dimensions ?? 0;
  // a manifest that records dimensions stands while the model has not said its own
  if (stored !== 0 && (embedder.dimensions === stored || embedder.dimensions === 0)) return;
  if (embedder.dimensions === 0) await embedder.embedQuery("dimension probe");
  run.manifest = {
    ...manifestFor(embedder, manifest, run.chunkerVersion),
    ...(run.chunkerChanged ? { chunkerVersion: manifest!.chunkerVersion } : {}),
  };
  await store.setManifest(run.manifest);
}

/**
 * The model spec of a manifest, as `--model` takes it (`use-lite`, `ollama:<model>`, ...).
 *
 * @example
 * ```ts
 * modelSpecOf(manifest); // "ollama:nomic-embed-text"
 * ```
 */
export function modelSpecOf(m: Pick<Manifest, "embedder">): string {
  return m.embedder.provider === "use-lite" ? "use-lite" : `${m.embedder.provider}:${m.embedder.model}`;
}

/**
 * The spec of the model that built the index at `dbPath`, or `undefined` when there is no finished
 * index there: commands keep an index's own model unless told otherwise.
 */
export async function indexModelSpec(dbPath: string, opts: OpenStoreOptions = {}): Promise<string | undefined> {
  // a damaged index tells no model: the default is used, and the run that opens it next says what to do
  const store = await openExisting(dbPath, opts).catch((err) => {
    if ((err as { code?: string }).code === "index_damaged") return undefined;
    throw err;
  });
  if (!store) return undefined;
  try {
    const m = await store.manifest();
    return m ? modelSpecOf(m) : undefined;
  } finally {
    await store.close();
  }
}

/**
 * The embedder for indexing into `dbPath`: the one asked for, else the model that built the index,
 * else the bundled default. Used by `index`, `watch`, `chunks` and the library. An index's own
 * model that sends text over the network is refused unless `VAULT_RAG_ALLOW_REMOTE` names it
 * (see {@link indexModelRefusal}): the index file travels with the vault.
 *
 * @example
 * ```ts
 * const embedder = await embedderForIndex("/home/me/notes/.vault-rag/index.db"); // the index's own model
 * ```
 */
export async function embedderForIndex(
  dbPath: string,
  opts: { model?: string; store?: OpenStoreOptions } & EmbedderOptions = {},
): Promise<Embedder> {
  if (opts.model) return createEmbedder(opts.model, opts);
  const own = await indexModelSpec(dbPath, opts.store);
  refuseRemote(dbPath, own, opts);
  return createEmbedder(own ?? DEFAULT_MODEL, own ? indexModelOptions(own, opts) : opts);
}

/**
 * Refuses, before anything is sent, an index whose own model sends text over the network when
 * this machine's configuration does not name it (see {@link indexModelRefusal}); nothing when
 * `model` is given (the caller named the model) or there is no index yet. The library's
 * `openVault` calls it, so `serve` and `mcp` refuse at their start.
 *
 * @example
 * ```ts
 * await checkIndexModel("/home/me/notes/.vault-rag/index.db"); // throws "remote_model" for an index naming openai:…
 * ```
 */
export async function checkIndexModel(
  dbPath: string,
  opts: { model?: string; store?: OpenStoreOptions } & EmbedderOptions = {},
): Promise<void> {
  if (opts.model) return;
  // an index that cannot be read here is for the open that follows to report, in its own words
  refuseRemote(dbPath, await indexModelSpec(dbPath, opts.store).catch(() => undefined), opts);
}

/** Throws {@link indexModelRefusal}'s refusal of an index's own model, if any. */
function refuseRemote(dbPath: string, own: string | undefined, opts: EmbedderOptions): void {
  const refusal = own && indexModelRefusal(displayLocation(dbPath), own, opts);
  if (refusal) throw refusal;
}

/** The refusal when an index was built by another model than the one asked for. */
export function modelMismatch(dbPath: string, m: Manifest, asked: string): VaultRagError {
  return new VaultRagError(
    "model_mismatch",
    `index at ${dbPath} was built with ${modelSpecOf(m)} (${m.embedder.dimensions}-d)`,
    { fix: { kind: "rebuild", db: dbPath, model: asked } },
  );
}

/** True when the manifest names the same provider and model as the embedder. */
export function sameModel(m: Manifest, e: Embedder): boolean {
  return m.embedder.provider === e.provider && m.embedder.model === e.model;
}

/**
 * A chunker version with the key of the property types a vault declares (`.obsidian/types.json`),
 * which are read into every note: a change to them reads every note again, as a new chunker does.
 *
 * @example
 * ```ts
 * withTypesKey("30", new Map([["rating", "number"]])); // "30 types 3f2a…"
 * withTypesKey("29", new Map()); // "30"
 * ```
 */
export function withTypesKey(version: string, propTypes: ReadonlyMap<string, ObsidianType>): string {
  const key = typesKey(propTypes);
  return key ? `${version} types ${hashText(key).slice(0, 16)}` : version;
}
