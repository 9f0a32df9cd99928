import type { NoteEntry } from "../store/index.js";
import { readSettings } from "../settings.js";
import { fileTypeOf, isSkippedFile, walkVault, type VaultFile } from "../vault/index.js";

/**
 * The start of the hash an unreadable scanned PDF is stored with: a run with OCR reads it again,
 * and while the vault's settings ask for OCR it counts as stale.
 */
export const SCANNED_HASH = "scanned:";

/**
 * The notes that changed on disk since they were indexed: the one rule of `status` and `check`.
 * A note is stale when its file's size or modification time differs from the index's record (an
 * index run re-reads it: changed text is embedded again, a touched note's dates are moved), when its
 * file is gone, or when a file that the index does not hold would be indexed. A file that the
 * indexer skips (binary, not UTF-8, too big) is never stale: indexing again would not change it. An
 * attachment (PDF, Canvas, Word) the index does not hold is stale: `index` reads it. While `ocr` is
 * asked, so is a scanned PDF stored unread ({@link stampOf}).
 *
 * @example
 * ```ts
 * staleNotes(walkVault("/home/me/notes"), await store.notes()); // ["kitchen/Bread.md"]
 * ```
 */
export function staleNotes(
  files: VaultFile[],
  known: Map<string, Pick<NoteEntry, "mtime" | "size"> & { hash?: string }>,
  ocr = false,
): string[] {
  const stale: string[] = [];
  for (const f of files) {
    const k = known.get(f.path);
    const isNew = () => fileTypeOf(f.path) !== "note" || !isSkippedFile(f);
    if (k ? stampOf(k, ocr) !== f.mtime || k.size !== f.size : isNew()) stale.push(f.path);
  }
  const onDisk = new Set(files.map((f) => f.path));
  for (const p of known.keys()) if (!onDisk.has(p)) stale.push(p);
  return stale;
}

/**
 * How many notes of a vault are stale ({@link staleNotes}), a scanned PDF awaiting OCR among them
 * ({@link stampOf}); a vault that cannot be read counts as unchanged.
 *
 * @example
 * ```ts
 * staleInVault("/home/me/notes", await store.notes()); // 3
 * ```
 */
export function staleInVault(
  vault: string,
  known: Map<string, Pick<NoteEntry, "mtime" | "size"> & { hash?: string }>,
): number {
  let files: VaultFile[];
  try {
    files = walkVault(vault);
  } catch {
    return 0;
  }
  return staleNotes(files, known, readSettings(vault).ocr).length;
}

/**
 * The modification time a stored note is compared by: its own, or NaN (which no time on disk
 * equals) for a scanned PDF stored unread ({@link SCANNED_HASH}) while `ocr` is asked: it waits for
 * the next index.
 *
 * @example
 * ```ts
 * stampOf({ mtime: 1700000000, hash: "scanned:9f…" }, true); // NaN
 * ```
 */
export function stampOf(e: { mtime: number; hash?: string }, ocr: boolean): number {
  return ocr && e.hash?.startsWith(SCANNED_HASH) ? NaN : e.mtime;
}
