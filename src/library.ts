import fs from "node:fs";
import { answerWith, assembleContext, createLlm, DEFAULT_LLM, type Source } from "./answer/index.js";
import { resolveDb, sidecarDirFor } from "./config.js";
import { createEmbedder, DEFAULT_MODEL, type Embedder, type EmbedderOptions } from "./embed/index.js";
import { VaultRagError } from "./errors.js";
import { indexModelSpec, indexVault, modelMismatch, modelSpecOf, sameModel, type IndexOptions, type IndexSummary } from "./index/index.js";
import { andWhere, buildFilter, search, type FilterOptions, type SearchOptions, type SearchResult } from "./search/index.js";
import { displayLocation, openStore, storeExists, type ChromaConnectOptions, type Store } from "./store/index.js";
import { walkVault } from "./vault/index.js";
import path from "node:path";

/** Options of {@link openVault}. */
export interface OpenVaultOptions extends EmbedderOptions {
  /** Index file (default `<vault>/.vault-rag/index.db`) or a Chroma address (`chroma://host:port/<collection>`). */
  db?: string;
  /** Tenant, database and API key for a hosted Chroma server (else `CHROMA_TENANT`, `CHROMA_DATABASE`, `CHROMA_API_KEY`). */
  chroma?: ChromaConnectOptions;
  /** Embedding model for a new index (default: the bundled `use-lite`); an existing index keeps its own. */
  model?: string;
}

/** What {@link VaultHandle.status} reports. */
export interface VaultStatus {
  vault: string;
  index: string;
  model: string | null;
  dimensions: number;
  notes: number;
  chunks: number;
  lastIndexed: string | null;
  stale: number;
}

/** An opened vault: index it, search it, ask it. */
export interface VaultHandle {
  readonly vault: string;
  readonly db: string;
  index(opts?: Omit<IndexOptions, "log"> & { log?: IndexOptions["log"] }): Promise<IndexSummary>;
  search(question: string, opts?: SearchOptions & FilterOptions): Promise<SearchResult>;
  ask(question: string, opts?: SearchOptions & FilterOptions & { llm?: string; budgetTokens?: number; onToken?: (t: string) => void }): Promise<{ answer: string; sources: Source[]; cited: number[]; invalid: number[]; model: string }>;
  status(): Promise<VaultStatus>;
  /** Tags in the index, with how many notes carry each. */
  tags(): Promise<{ tag: string; notes: number }[]>;
  /** Folders in the index, with how many notes each holds. */
  folders(): Promise<{ folder: string; notes: number }[]>;
  close(): Promise<void>;
}

/**
 * Opens a vault for use as a library: the same index, defaults and rules as the CLI.
 *
 * @example
 * ```ts
 * import { openVault } from "vault-rag";
 * const v = await openVault("/home/me/notes");
 * await v.index();
 * const { hits } = await v.search("how do I save power", { tags: ["pico"] });
 * await v.close();
 * ```
 */
export async function openVault(vaultDir: string, opts: OpenVaultOptions = {}): Promise<VaultHandle> {
  const vault = path.resolve(vaultDir);
  if (!fs.existsSync(vault) || !fs.statSync(vault).isDirectory())
    throw new VaultRagError("vault_missing", `vault-rag: vault folder "${vault}" does not exist or is not a folder — pass the folder that holds your notes`);
  const db = resolveDb(vault, opts.db);
  const shown = displayLocation(db);
  const storeOpts = { ...opts.chroma, sidecarDir: sidecarDirFor(vault) };
  let store: Store | undefined;
  let embedder: Embedder | undefined;
  const open = async () => {
    if (!store) {
      if (!(await storeExists(db, storeOpts))) throw new VaultRagError("no_index", `vault-rag: no index at ${shown} — run \`vault-rag index ${vault}\` first`);
      const s = await openStore(db, storeOpts);
      const m = await s.manifest();
      if (!m) {
        await s.close();
        throw new VaultRagError("no_index", `vault-rag: the index at ${shown} was never completed — call index() first`);
      }
      if (opts.model && !sameModel(m, createEmbedder(opts.model, opts))) {
        await s.close();
        throw modelMismatch(shown, m, opts.model);
      }
      embedder = createEmbedder(modelSpecOf(m), opts);
      store = s;
    }
    return { store, embedder: embedder! };
  };
  const filterOf = (o: FilterOptions & SearchOptions) => andWhere(buildFilter(o), o.where);
  return {
    vault,
    db: shown,
    async index(o = {}) {
      await store?.close();
      store = undefined;
      return indexVault(vault, db, createEmbedder(opts.model ?? (await indexModelSpec(db, storeOpts)) ?? DEFAULT_MODEL, opts), { ...o, store: storeOpts });
    },
    async search(question, o = {}) {
      return search(await open(), question, { ...o, where: filterOf(o) });
    },
    async ask(question, o = {}) {
      const { hits } = await search(await open(), question, { ...o, where: filterOf(o) });
      const ctx = assembleContext(question, hits, { budgetTokens: o.budgetTokens });
      const llm = createLlm(o.llm ?? DEFAULT_LLM, opts);
      if (!ctx.sources.length) return { answer: "The notes contain nothing that matches this question.", sources: [], cited: [], invalid: [], model: llm.id };
      const { answer, cited, invalid } = await answerWith(llm, ctx, { onToken: o.onToken });
      return { answer, sources: ctx.sources, cited, invalid, model: llm.id };
    },
    async status() {
      if (!store && !(await storeExists(db, storeOpts))) return { vault, index: shown, model: null, dimensions: 0, notes: 0, chunks: 0, lastIndexed: null, stale: walkVault(vault).length };
      const { store: s } = await open();
      const m = (await s.manifest())!;
      const c = await s.count();
      return { vault, index: shown, model: modelSpecOf(m), dimensions: m.embedder.dimensions, notes: c.notes, chunks: c.chunks, lastIndexed: m.updatedAt, stale: await staleCount(vault, s) };
    },
    async tags() {
      return (await open()).store.listTags();
    },
    async folders() {
      return (await open()).store.listFolders();
    },
    async close() {
      await store?.close();
      store = undefined;
    },
  };
}

/**
 * How many notes changed on disk since they were indexed (added, edited or removed), by size and
 * modification time. A vault that cannot be read counts as unchanged.
 *
 * @example
 * ```ts
 * staleCount("/home/me/notes", store); // 3
 * ```
 */
export async function staleCount(vault: string, store: Store): Promise<number> {
  let files: { path: string; mtime: number; size: number }[];
  try {
    files = walkVault(vault);
  } catch {
    return 0;
  }
  const known = await store.notes();
  let stale = files.filter((f) => {
    const k = known.get(f.path);
    return !k || k.mtime !== f.mtime || k.size !== f.size;
  }).length;
  const onDisk = new Set(files.map((f) => f.path));
  for (const p of known.keys()) if (!onDisk.has(p)) stale++;
  return stale;
}
