import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { shellArg } from "../shell-arg.js";
import { isVaultIndex, resolveDb, resolveVault, sidecarDirFor } from "../config.js";
import type { Embedder, EmbedderOptions } from "../embed/index.js";
import { openForQuery as openIndexForQuery } from "../indexing/open-query.js";
import type { Logger } from "../log.js";
import { assertVaultFolder } from "../vault/index.js";
import { displayLocation, type Manifest, type OpenStoreOptions, type Store } from "../store/index.js";

/** Where a command works: the vault folder and the index location (an absolute path or a Chroma address). */
export interface Location {
  vault: string;
  db: string;
  /** The index as shown to users (a Chroma address without secrets). */
  shown: string;
  /** Options for opening the store (the Chroma sidecar folder inside the vault). */
  store: OpenStoreOptions;
  /** The vault was named (argument or `--vault`), not found from the working directory. */
  vaultNamed?: boolean;
}

/**
 * The vault a command was given, as its argument or as `--vault` (every command takes both); two
 * different ones are refused.
 *
 * @example
 * ```ts
 * vaultFrom("~/notes", undefined); // "~/notes"
 * vaultFrom(undefined, "~/notes"); // "~/notes"
 * ```
 */
export function vaultFrom(arg: string | undefined, option: string | undefined): string | undefined {
  if (arg !== undefined && option !== undefined && path.resolve(arg) !== path.resolve(option))
    throw new VaultRagError("usage", `vault-rag: two vaults given, "${arg}" and --vault "${option}" — give one`);
  return arg ?? option;
}

/** The index the running command located last: the one a damage found mid-query is in. */
let located: Location | undefined;

/**
 * The index the command located (see {@link locate}), for an error caught far from it.
 *
 * @example
 * ```ts
 * lastLocated()?.db; // "/home/me/notes/.vault-rag/index.db"
 * ```
 */
export function lastLocated(): Location | undefined {
  return located;
}

/**
 * An error message with the vault the command located filled in where the store, which knows only
 * the index file, could name none: an index given with `--db` is rebuilt with
 * `vault-rag index <vault> --full --db …`, and the command knows which vault that is.
 *
 * @example
 * ```ts
 * withLocatedVault("… run `vault-rag index <vault> --full --db /tmp/i.db` …"); // "… run `vault-rag index /home/me/notes --full --db /tmp/i.db` …"
 * withLocatedVault("… run `vault-rag index <vault>` first"); // with --db /tmp/i.db: "… run `vault-rag index /home/me/notes --db /tmp/i.db` first"
 * ```
 */
export function withLocatedVault(message: string): string {
  if (!located) return message;
  const { vault, db } = located;
  // the vault only when it is known to be the index's: one guessed from the working directory (a
  // --db alone, run from ~) would have the fix index the home folder
  const known = isVaultKnown({ vault: located.vaultNamed ? vault : undefined }, located);
  // an index elsewhere than the vault's own is built where it is only with --db (`index <vault>` alone builds the vault's)
  const where = isVaultIndex(vault, db) ? "" : ` --db ${shellArg(db)}`;
  return message.replace(
    /`vault-rag index <vault>((?: [^`]*)?)`/g,
    (_, rest: string) =>
      `\`vault-rag index ${known ? shellArg(vault) : "<vault>"}${rest}${rest.includes("--db") ? "" : where}\``,
  );
}

/** Resolves vault and index for a command. */
export function locate(opts: { vault?: string; db?: string }): Location {
  const vault = resolveVault(opts.vault);
  const db = resolveDb(vault, opts.db);
  located = {
    vault,
    db,
    shown: displayLocation(db),
    store: { sidecarDir: sidecarDirFor(vault) },
    vaultNamed: opts.vault !== undefined,
  };
  return located;
}

/**
 * The command that builds a location's index: with the vault's path when the index is the vault's
 * own (`<vault>/.vault-rag/index.db`), else with `<vault>` for the user to fill in.
 *
 * @example
 * ```ts
 * indexCommand(locate({ vault: "/home/me/notes" })); // "vault-rag index /home/me/notes"
 * ```
 */
export function indexCommand(loc: Location): string {
  return isVaultIndex(loc.vault, loc.db) ? `vault-rag index ${shellArg(loc.vault)}` : "vault-rag index <vault>";
}

/**
 * Whether the vault a command reads is known to be the index's: named (`--vault`,
 * `VAULT_RAG_VAULT`), or the index is the one inside it. Only then are the notes on disk compared
 * with the index (stale hits, notes written since the last index).
 *
 * @example
 * ```ts
 * isVaultKnown({}, locate({ vault: "/home/me/notes" })); // true: the index is /home/me/notes/.vault-rag/index.db
 * ```
 */
export function isVaultKnown(o: { vault?: string }, loc: Location): boolean {
  return o.vault !== undefined || !!process.env.VAULT_RAG_VAULT || isVaultIndex(loc.vault, loc.db);
}

/**
 * Opens an existing index for reading, with the embedder that built it (see the index room's
 * {@link openIndexForQuery}); the store reports through the command's logger.
 */
export async function openForQuery(
  loc: Location,
  opts: { model?: string; log: Logger } & EmbedderOptions,
): Promise<{ store: Store; embedder: Embedder; manifest: Manifest }> {
  try {
    // a vault found as the working directory (no index here or above) may be no notes folder at
    // all (~, /tmp): the fix says so instead of having the user index it
    const guessed = !loc.vaultNamed && !process.env.VAULT_RAG_VAULT && isVaultIndex(loc.vault, loc.db);
    const fix = guessed
      ? `if ${loc.vault} holds your notes, run \`${indexCommand(loc)}\` first; else index your notes folder and search from inside it, or give --vault`
      : `run \`${indexCommand(loc)}\` first`;
    return await openIndexForQuery(loc.db, {
      ...opts,
      store: { ...loc.store, log: opts.log },
      fix: { missing: fix, unfinished: fix },
    });
  } catch (err) {
    // no index because there is no such vault: say that, not "run vault-rag index" on a mistyped path
    if (err instanceof VaultRagError && err.code === "no_index") assertVaultFolder(loc.vault);
    throw err;
  }
}

/**
 * A note as the user named it on the command line, with an absolute path inside the vault (what a
 * shell's tab completion gives) made vault-relative; any other name is returned as it was, for the
 * wikilink rules to find (or refuse). Only the CLI does this: MCP and the API take vault-relative
 * paths alone.
 *
 * @example
 * ```ts
 * noteArgument("/home/me/notes", "/home/me/notes/kitchen/Sourdough.md"); // "kitchen/Sourdough.md"
 * noteArgument("/home/me/notes", "Sourdough"); // "Sourdough"
 * ```
 */
export function noteArgument(vault: string, name: string): string {
  if (!path.isAbsolute(name)) return name;
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const rel = path.relative(real(vault), real(name));
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel.split(path.sep).join("/") : name;
}
