import fs from "node:fs";
import { answerWith, assembleContext, createLlm, DEFAULT_LLM, type Source } from "./answer/index.js";
import { resolveDb } from "./config.js";
import { createEmbedder, DEFAULT_MODEL, type Embedder, type EmbedderOptions } from "./embed/index.js";
import { VaultRagError } from "./errors.js";
import { indexModelSpec, indexVault, modelMismatch, modelSpecOf, sameModel, type IndexOptions, type IndexSummary } from "./index/index.js";
import { andWhere, buildFilter, search, type FilterOptions, type SearchOptions, type SearchResult } from "./search/index.js";
import { SqliteStore } from "./store/index.js";
import { walkVault } from "./vault/index.js";
import path from "node:path";

/** Options of {@link openVault}. */
export interface OpenVaultOptions extends EmbedderOptions {
  /** Index file (default `<vault>/.vault-rag/index.db`). */
  db?: string;
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
  close(): void;
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
 * v.close();
 * ```
 */
export async function openVault(vaultDir: string, opts: OpenVaultOptions = {}): Promise<VaultHandle> {
  const vault = path.resolve(vaultDir);
  if (!fs.existsSync(vault) || !fs.statSync(vault).isDirectory())
    throw new VaultRagError("vault_missing", `vault-rag: vault folder "${vault}" does not exist or is not a folder — pass the folder that holds your notes`);
  const db = resolveDb(vault, opts.db);
  let store: SqliteStore | undefined;
  let embedder: Embedder | undefined;
  const open = () => {
    if (!store) {
      if (!fs.existsSync(db)) throw new VaultRagError("no_index", `vault-rag: no index at ${db} — run \`vault-rag index ${vault}\` first`);
      store = SqliteStore.open(db);
      const m = store.manifest();
      if (!m) throw new VaultRagError("no_index", `vault-rag: the index at ${db} was never completed — call index() first`);
      embedder = createEmbedder(modelSpecOf(m), opts);
      if (opts.model && !sameModel(m, createEmbedder(opts.model, opts))) throw modelMismatch(db, m, opts.model);
    }
    return { store, embedder: embedder! };
  };
  const filterOf = (o: FilterOptions & SearchOptions) => andWhere(buildFilter(o), o.where);
  return {
    vault,
    db,
    async index(o = {}) {
      store?.close();
      store = undefined;
      return indexVault(vault, db, createEmbedder(opts.model ?? indexModelSpec(db) ?? DEFAULT_MODEL, opts), o);
    },
    async search(question, o = {}) {
      return search(open(), question, { ...o, where: filterOf(o) });
    },
    async ask(question, o = {}) {
      const { hits } = await search(open(), question, { ...o, where: filterOf(o) });
      const ctx = assembleContext(question, hits, { budgetTokens: o.budgetTokens });
      const llm = createLlm(o.llm ?? DEFAULT_LLM, opts);
      if (!ctx.sources.length) return { answer: "The notes contain nothing that matches this question.", sources: [], cited: [], invalid: [], model: llm.id };
      const { answer, cited, invalid } = await answerWith(llm, ctx, { onToken: o.onToken });
      return { answer, sources: ctx.sources, cited, invalid, model: llm.id };
    },
    async status() {
      if (!fs.existsSync(db)) return { vault, index: db, model: null, dimensions: 0, notes: 0, chunks: 0, lastIndexed: null, stale: walkVault(vault).length };
      const { store: s } = open();
      const m = s.manifest()!;
      const c = s.count();
      return { vault, index: db, model: modelSpecOf(m), dimensions: m.embedder.dimensions, notes: c.notes, chunks: c.chunks, lastIndexed: m.updatedAt, stale: staleCount(vault, s) };
    },
    async tags() {
      return open().store.listTags();
    },
    async folders() {
      return open().store.listFolders();
    },
    close() {
      store?.close();
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
export function staleCount(vault: string, store: SqliteStore): number {
  let files: { path: string; mtime: number; size: number }[];
  try {
    files = walkVault(vault);
  } catch {
    return 0;
  }
  const known = store.notes();
  let stale = files.filter((f) => {
    const k = known.get(f.path);
    return !k || k.mtime !== f.mtime || k.size !== f.size;
  }).length;
  const onDisk = new Set(files.map((f) => f.path));
  for (const p of known.keys()) if (!onDisk.has(p)) stale++;
  return stale;
}
