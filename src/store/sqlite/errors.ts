import fs from "node:fs";
import path from "node:path";
import { VaultRagError } from "../../errors.js";
import { shellArg } from "../../shell-arg.js";

/**
 * What to do about an index SQLite could not open, from what the path is: not a file (`/dev/null`,
 * a folder), a file this user may not read or write, or a folder it may not write.
 *
 * @example
 * ```ts
 * openFix("/dev/null", "SQLITE_CANTOPEN"); // " — it is not a file; give the path of an index file …"
 * ```
 */
export function openFix(file: string, code: string | undefined): string {
  // SQLite opens its journal files beside the index never through a link, and fails on one
  for (const side of ["-wal", "-shm", "-journal"])
    try {
      if (fs.lstatSync(file + side).isSymbolicLink())
        return ` — ${path.basename(file + side)} beside it is a symbolic link, which SQLite will not write through; remove it`;
    } catch {
      // not there
    }
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    // not there: SQLite was to create it, in a folder it could not write
  }
  if (st && !st.isFile()) return ` — it is not a file; give the path of an index file (or of one to create)`;
  if (st)
    try {
      fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    } catch {
      return ` — this user may not read and write the file; check its permissions (ls -l ${shellArg(file)})`;
    }
  if (code === "SQLITE_CANTOPEN" || !st) return " — check the folder is writable";
  return "";
}

/**
 * The refusal of a write that found the disk full: nothing of the batch was written.
 *
 * @example
 * ```ts
 * throw diskFull("/v/.vault-rag/index.db"); // vault-rag: the disk holding … is full — …
 * ```
 */
export function diskFull(file: string): VaultRagError {
  return new VaultRagError(
    "io",
    `vault-rag: the disk holding ${file} is full — nothing from this batch was written; free some space and run again`,
  );
}

/**
 * The refusal of a file that is not an index at all: nothing is written to it, and no rebuild is
 * offered over it.
 *
 * @example
 * ```ts
 * throw notAnIndex("/home/me/notes/todo.md", "it is not a SQLite database");
 * // fix: point at an index, or at a new path to build one there (nothing was changed)
 * ```
 */
export function notAnIndex(file: string, why: string): VaultRagError {
  return new VaultRagError("usage", `${file} is not an index of vault-rag (${why})`, {
    fix: { kind: "other_index", db: file },
  });
}

/**
 * Whether an error is SQLite's word that the file is damaged (`SQLITE_CORRUPT…`, or not a database
 * at all): what {@link damaged} turns into the refusal that names the rebuild.
 *
 * @example
 * ```ts
 * isCorruption(Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" })); // true
 * ```
 */
export function isCorruption(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

/**
 * The refusal of a damaged index file (truncated, overwritten): it names the rebuild, which needs
 * nothing from the old file.
 *
 * @example
 * ```ts
 * throw damaged("/v/.vault-rag/index.db", err); // the index at … is damaged (…), with the fix: rebuild
 * ```
 */
export function damaged(file: string, err: Error): VaultRagError {
  return new VaultRagError("index_damaged", `the index at ${file} is damaged (${err.message})`, {
    cause: err,
    fix: { kind: "rebuild", db: file },
  });
}

/**
 * The refusal of a write to an index this process may not write.
 *
 * @example
 * ```ts
 * throw readOnly("/v/.vault-rag/index.db"); // vault-rag: the index at … is read-only — nothing was written; …
 * ```
 */
export function readOnly(file: string): VaultRagError {
  return new VaultRagError(
    "io",
    `vault-rag: the index at ${file} is read-only — nothing was written; make it and its folder writable`,
  );
}
