import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../errors.js";
import { isVaultIndex, resolveDb, resolveVault } from "../config.js";
import type { OpenVaultOptions, VaultHandle } from "../library.js";
import { cliFix, indexCommand, worded } from "../render/fix.js";
import { cwd, env } from "./context.js";

/** Where a command works: the vault folder and the index location (an absolute path or a Chroma address). */
export interface Location {
  vault: string;
  db: string;
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
  if (arg !== undefined && option !== undefined && path.resolve(cwd(), arg) !== path.resolve(cwd(), option))
    throw new VaultRagError("usage", `vault-rag: two vaults given, "${arg}" and --vault "${option}" — give one`);
  return arg ?? option;
}

/** Resolves vault and index for a command. */
export function locate(opts: { vault?: string; db?: string }): Location {
  const vault = resolveVault(opts.vault, env(), cwd());
  const db = resolveDb(vault, opts.db, env(), cwd());
  return { vault, db, vaultNamed: opts.vault !== undefined };
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
  return o.vault !== undefined || !!env().VAULT_RAG_VAULT || isVaultIndex(loc.vault, loc.db);
}

/**
 * Opens the core on a command's location: the vault, the index, whether the vault is known to be
 * the index's (see {@link isVaultKnown}) or was only guessed from the working directory.
 *
 * @example
 * ```ts
 * const v = await openCore(locate({ vault: "~/notes" }), {}, { log: stderrLogger(false) });
 * ```
 */
export async function openCore(
  loc: Location,
  o: { vault?: string },
  opts: Omit<OpenVaultOptions, "db" | "vaultKnown" | "vaultGuessed" | "checkModel"> = {},
): Promise<VaultHandle> {
  // the core is loaded when a command opens it: a command a resident process answers never does
  const { openVault } = await import("../core/vault.js");
  return openVault(loc.vault, {
    ...opts,
    // an index's network model is refused when it is asked to embed: status and related still work
    checkModel: false,
    db: loc.db,
    ...openFacts(loc, o),
  });
}

/**
 * How the CLI opens a location: whether the vault is known to be the index's (see
 * {@link isVaultKnown}), and whether it was only guessed from the working directory. A resident
 * process answers a CLI only when it opened the vault the same way.
 *
 * @example
 * ```ts
 * openFacts(locate({ vault: "/home/me/notes" }), { vault: "/home/me/notes" }); // { vaultKnown: true, vaultGuessed: false }
 * ```
 */
export function openFacts(loc: Location, o: { vault?: string }): { vaultKnown: boolean; vaultGuessed: boolean } {
  return {
    vaultKnown: isVaultKnown(o, loc),
    // a vault found as the working directory (no index here or above) may be no notes folder at
    // all (~, /tmp): the fix to build an index says so instead of having the user index it
    vaultGuessed: !loc.vaultNamed && !env().VAULT_RAG_VAULT && isVaultIndex(loc.vault, loc.db),
  };
}

/**
 * An error in the CLI's words: its fix as the command to run.
 *
 * @example
 * ```ts
 * cliMessage(err); // "vault-rag: no index at /home/me/notes/.vault-rag/index.db — run `vault-rag index /home/me/notes` first"
 * ```
 */
export function cliMessage(e: VaultRagError): string {
  return worded(e, cliFix);
}

/**
 * The command that takes in notes changed since the last index: with the vault's path when it is
 * known to be the index's, else with `<vault>` for the user to fill in.
 *
 * @example
 * ```ts
 * reindexCommand(v, {}, locate({ vault: "/home/me/notes" })); // "vault-rag index /home/me/notes"
 * ```
 */
export function reindexCommand(v: VaultHandle, o: { vault?: string }, loc: Location): string {
  return indexCommand({ kind: "reindex", db: v.db, ...(isVaultKnown(o, loc) ? { vault: v.vault } : {}) });
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
