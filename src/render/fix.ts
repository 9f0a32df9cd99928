/**
 * The words of an error's fix ({@link Fix}) on each interface: the CLI names the command to run
 * (`vault-rag index ~/notes --full`), the library the method to call (`index({ full: true })`).
 * HTTP and MCP speak as the CLI that started them, and add the fix itself as a field.
 */
import path from "node:path";
import { isVaultIndex } from "../config.js";
import { VaultRagError, type Fix } from "../errors.js";
import { shellArg } from "../shell-arg.js";

/**
 * The `vault-rag index` command a fix asks for: the vault's path when it is known (or the index is a
 * vault's own, `<vault>/.vault-rag/index.db`), else `<vault>` for the user to fill in, and `--db`
 * when the index is not the vault's own.
 *
 * @example
 * ```ts
 * indexCommand({ kind: "rebuild", db: "/home/me/notes/.vault-rag/index.db" }); // "vault-rag index /home/me/notes --full"
 * indexCommand({ kind: "index", db: "/tmp/i.db" }); // "vault-rag index <vault> --db /tmp/i.db"
 * ```
 */
export function indexCommand(fix: Fix): string {
  const db = fix.db;
  const file = db !== undefined && !/^chroma:/i.test(db) ? path.resolve(db) : undefined;
  const own =
    file && isVaultIndex(path.dirname(path.dirname(file)), file) ? path.dirname(path.dirname(file)) : undefined;
  const vault = fix.vault ?? own;
  const full = fix.kind === "rebuild" ? " --full" : "";
  const model = fix.kind === "rebuild" && fix.model ? ` --model ${shellArg(fix.model)}` : "";
  const where = db !== undefined && !(vault && isVaultIndex(vault, db)) ? ` --db ${shellArg(db)}` : "";
  return `vault-rag index ${vault ? shellArg(vault) : "<vault>"}${full}${model}${where}`;
}

/**
 * A fix in the CLI's words. A vault `guessed` from the working directory (`~`, `/tmp`) may be no
 * notes folder at all: the fix says what to do if it is not.
 *
 * @example
 * ```ts
 * cliFix({ kind: "index", vault: "/home/me/notes" }); // "run `vault-rag index /home/me/notes` first"
 * ```
 */
export function cliFix(fix: Fix): string {
  const cmd = indexCommand(fix);
  switch (fix.kind) {
    case "index":
      return fix.guessed && fix.vault
        ? `if ${fix.vault} holds your notes, run \`${cmd}\` first; else index your notes folder and search from inside it, or give --vault`
        : `run \`${cmd}\` first`;
    case "rebuild":
      return fix.model ? `run \`${cmd}\` to rebuild` : `run \`${cmd}\` to rebuild it from the notes`;
    case "reindex":
      return `run \`${cmd}\``;
    case "other_index":
      return "nothing was changed; point --db at an index or at a new path to build one there (an index that was overwritten: delete it, then run `vault-rag index`)";
    case "allow_model":
      return `if you mean to use it on this machine, set ${fix.env}=${fix.model} or give --model ${fix.model}, else rebuild the index here with \`${indexCommand({ ...fix, kind: "rebuild", model: fix.instead })}\``;
  }
}

/**
 * A fix in the library's words: the method of the vault handle to call.
 *
 * @example
 * ```ts
 * libraryFix({ kind: "rebuild" }); // "call index({ full: true }) to rebuild it from the notes"
 * ```
 */
export function libraryFix(fix: Fix): string {
  switch (fix.kind) {
    case "index":
      return "call index() first";
    case "rebuild":
      return fix.model
        ? `open the vault with { model: ${JSON.stringify(fix.model)} } and call index({ full: true }) to rebuild`
        : "call index({ full: true }) to rebuild it from the notes";
    case "reindex":
      return "call index()";
    case "other_index":
      return "nothing was changed; give db an index, or a new path to build one there";
    case "allow_model":
      return `if you mean to use it on this machine, set ${fix.env}=${fix.model} or open the vault with { model: ${JSON.stringify(fix.model)} }, else open it with { model: ${JSON.stringify(fix.instead)} } and call index({ full: true }) to rebuild`;
  }
}

/**
 * An error's message in an interface's words: what is wrong, then its fix worded by `words`.
 * An error without a fix keeps its message.
 *
 * @example
 * ```ts
 * worded(err, cliFix); // "vault-rag: no index at /home/me/notes/.vault-rag/index.db — run `vault-rag index /home/me/notes` first"
 * ```
 */
export function worded(e: VaultRagError, words: (fix: Fix) => string): string {
  return e.fix ? `vault-rag: ${e.what} — ${words(e.fix)}` : e.message;
}

/**
 * The same error with its message in an interface's words (code, fix and cause kept).
 *
 * @example
 * ```ts
 * throw rewordedError(err, libraryFix); // message: "… — call index() first"
 * ```
 */
export function rewordedError(e: VaultRagError, words: (fix: Fix) => string): VaultRagError {
  if (!e.fix) return e;
  const again = new VaultRagError(e.code, e.what, { cause: e.cause, fix: e.fix });
  again.message = worded(e, words);
  if (e.stack) again.stack = e.stack.replace(e.message, again.message);
  return again;
}
