import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "./errors.js";
import { DEFAULT_DATE_KEYS } from "./props.js";
import { isChromaLocation } from "./store/chroma/location.js";

/** Folder inside a vault that holds vault-rag's files. */
export const INDEX_DIR = ".vault-rag";
export const INDEX_FILE = "index.db";
/** Folder inside `.vault-rag/` holding the keyword sidecars of Chroma indexes. */
export const SIDECAR_DIR = "chroma";

/**
 * Where a vault keeps the local keyword sidecar of a Chroma index.
 *
 * @example
 * ```ts
 * sidecarDirFor("/home/me/notes"); // "/home/me/notes/.vault-rag/chroma"
 * ```
 */
export function sidecarDirFor(vault: string): string {
  return path.join(vault, INDEX_DIR, SIDECAR_DIR);
}

/**
 * Whether an index location is the vault's own (`<vault>/.vault-rag/index.db`, where `resolveDb`
 * puts it by default), not one given with `--db` or `VAULT_RAG_DB`.
 *
 * @example
 * ```ts
 * isVaultIndex("/home/me/notes", "/home/me/notes/.vault-rag/index.db"); // true
 * isVaultIndex("/home/me/notes", "chroma://localhost:8000/notes");      // false
 * ```
 */
export function isVaultIndex(vault: string, db: string): boolean {
  return !isChromaLocation(db) && path.resolve(db) === path.resolve(vault, INDEX_DIR, INDEX_FILE);
}

/**
 * Resolves the vault folder, the same way for every command: the option, else `VAULT_RAG_VAULT`,
 * else the nearest ancestor of the working directory holding `.vault-rag/`, else the working
 * directory. Always absolute.
 *
 * @example
 * ```ts
 * resolveVault(undefined, {}, "/home/me/notes/robots"); // "/home/me/notes" if it holds .vault-rag/
 * ```
 */
export function resolveVault(
  option?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  // an empty --vault "" (an unset shell variable) is refused: read as the working directory, it
  // searched or indexed some other folder without a word
  if (option !== undefined && !option.trim())
    throw new VaultRagError(
      "usage",
      `vault-rag: the vault given is empty (${JSON.stringify(option)}) — give the folder that holds your notes`,
    );
  if (option) return path.resolve(cwd, option);
  if (env.VAULT_RAG_VAULT) return path.resolve(cwd, env.VAULT_RAG_VAULT);
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, INDEX_DIR))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.resolve(cwd);
}

/**
 * Resolves the index location: the option (a path, or a `chroma://` or `http(s)://` Chroma address;
 * any other `scheme://` is refused), else `VAULT_RAG_DB`, else
 * `<vault>/.vault-rag/index.db`. File paths are always absolute; a relative `--db` is taken relative
 * to the working directory only because the user typed it there.
 *
 * @example
 * ```ts
 * resolveDb("/home/me/notes"); // "/home/me/notes/.vault-rag/index.db"
 * ```
 */
export function resolveDb(
  vault: string,
  option?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  if (option !== undefined && !option.trim())
    throw new VaultRagError(
      "usage",
      `vault-rag: the index given (--db) is empty (${JSON.stringify(option)}) — give an index file or chroma://host:port/<collection>, or leave it out for <vault>/.vault-rag/index.db`,
    );
  const raw = option ?? env.VAULT_RAG_DB;
  if (!raw) return path.join(vault, INDEX_DIR, INDEX_FILE);
  if (isChromaLocation(raw)) return raw;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    const from = option !== undefined ? "--db" : "VAULT_RAG_DB";
    throw new VaultRagError(
      "usage",
      `vault-rag: ${from} "${raw}" is an address vault-rag cannot open — give a file path, chroma://host:port/<collection> or http(s)://host:port/<collection>`,
    );
  }
  return path.resolve(cwd, raw);
}

/**
 * The frontmatter keys a note's date is read from, first found first: the option, else
 * `VAULT_RAG_DATE_KEYS` (names separated by commas), else {@link DEFAULT_DATE_KEYS}. An empty list
 * (`VAULT_RAG_DATE_KEYS=,`) reads no frontmatter date: a date in the file name, else mtime.
 *
 * @example
 * ```ts
 * resolveDateKeys(undefined, { VAULT_RAG_DATE_KEYS: "created, date" }); // ["created", "date"]
 * resolveDateKeys(); // ["updated", "modified", "date", "created"]
 * ```
 */
export function resolveDateKeys(option?: readonly string[], env: NodeJS.ProcessEnv = process.env): readonly string[] {
  if (option) return option;
  const raw = env.VAULT_RAG_DATE_KEYS;
  if (raw === undefined) return DEFAULT_DATE_KEYS;
  return raw
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
}

/**
 * Windows of one note the dense phase embeds at most (a note's windows are the texts the model
 * reads of its passages, in order). A note over it is embedded up to it and its later passages are
 * searched by keyword only (`note_truncated`). Why this figure: docs/decisions/note-window-budget.md.
 */
export const DEFAULT_NOTE_WINDOWS = 2000;

/**
 * The window budget of one note: the option, else `VAULT_RAG_NOTE_WINDOWS` (a whole number of at
 * least 1), else {@link DEFAULT_NOTE_WINDOWS}.
 *
 * @example
 * ```ts
 * resolveNoteWindows(undefined, { VAULT_RAG_NOTE_WINDOWS: "500" }); // 500
 * resolveNoteWindows(); // 2000
 * ```
 */
export function resolveNoteWindows(option?: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = option ?? env.VAULT_RAG_NOTE_WINDOWS;
  if (raw === undefined || raw === "") return DEFAULT_NOTE_WINDOWS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new VaultRagError(
      "usage",
      `vault-rag: ${option === undefined ? "VAULT_RAG_NOTE_WINDOWS" : "noteWindows"} is "${raw}", not a whole number of at least 1 — give the most windows of one note to embed (such as 2000)`,
    );
  return n;
}

/** The environment variable that names the reranker every search uses unless told otherwise. */
export const RERANK_ENV = "VAULT_RAG_RERANK";

/**
 * The reranker a vault's searches use when a request says nothing of it: the option, else
 * `VAULT_RAG_RERANK`, else none (searches do not rerank, and no reranker is loaded). A request's
 * own `rerank` wins over it (`--no-rerank`, `rerank: false`).
 *
 * @example
 * ```ts
 * resolveRerank(undefined, { VAULT_RAG_RERANK: "http://127.0.0.1:8012" }); // "http://127.0.0.1:8012"
 * resolveRerank(); // undefined
 * ```
 */
export function resolveRerank(option?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = (option ?? env[RERANK_ENV] ?? "").trim();
  return raw || undefined;
}
