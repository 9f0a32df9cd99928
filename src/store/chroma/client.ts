import os from "node:os";
import path from "node:path";
import { VaultRagError } from "../../errors.js";
import type { ChromaLocation } from "./location.js";

/**
 * Default folder for keyword sidecars (the CLI and library use `<vault>/.vault-rag/chroma`).
 *
 * @example
 * ```ts
 * defaultSidecarDir(); // "/home/me/.cache/vault-rag/chroma"
 * ```
 */
export function defaultSidecarDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "vault-rag", "chroma");
}

type ChromaModule = typeof import("chromadb");

/** The one-line error when the `chromadb` package is not installed. */
export const CHROMA_MISSING =
  "vault-rag: a Chroma index needs the chromadb package — run `npm install chromadb` (`npm install -g chromadb` next to a global vault-rag)";

/**
 * Loads the Chroma client on first use. `chromadb` is an optional peer dependency: its server
 * binding is ~51 MB, so users of the embedded SQLite store never install it, and commands on the
 * embedded store never pay for loading the client (~70 ms). `importer` is for tests.
 *
 * @example
 * ```ts
 * const { ChromaClient } = await loadChroma(); // throws CHROMA_MISSING when chromadb is absent
 * ```
 */
export async function loadChroma(
  importer: () => Promise<ChromaModule> = () => import("chromadb"),
): Promise<ChromaModule> {
  try {
    return await importer();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // only chromadb itself being absent; a broken install of it keeps its own error
    if ((e.code === "ERR_MODULE_NOT_FOUND" || e.code === "MODULE_NOT_FOUND") && /['"]chromadb['"]/.test(e.message))
      throw new VaultRagError("store_failed", CHROMA_MISSING, { cause: err });
    throw err;
  }
}

/**
 * A read the server answers before it has written a collection's vector index to disk (Chroma's
 * local server, just after a write, on a busy machine): it answers once the index is there. Only a
 * read meets it, so the call is asked again.
 */
const NOT_YET_ON_DISK = /Error creating hnsw segment reader: Nothing found on disk/;

/** How often, and after how long (doubling from the first), a read that met {@link NOT_YET_ON_DISK} is asked again. */
export const NOT_YET_ON_DISK_RETRY = { times: 6, firstMs: 100 };

/**
 * Runs a server call, turning the client's errors into one-line vault-rag errors; a read the
 * server answered before its vector index was on disk is asked again (see {@link NOT_YET_ON_DISK}).
 *
 * @example
 * ```ts
 * const n = await guard(loc, "count chunks", () => collection.count());
 * ```
 */
export async function guard<T>(loc: ChromaLocation, what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once(loc, what, fn);
    } catch (err) {
      const cause = (err as { cause?: Error }).cause;
      if (attempt >= NOT_YET_ON_DISK_RETRY.times || !NOT_YET_ON_DISK.test(cause?.message ?? "")) throw err;
      await new Promise((r) => setTimeout(r, NOT_YET_ON_DISK_RETRY.firstMs * 2 ** attempt));
    }
  }
}

async function once<T>(loc: ChromaLocation, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof VaultRagError) throw err;
    const e = err as Error;
    if (e.name === "ChromaConnectionError" || /ECONNREFUSED|fetch failed/i.test(e.message))
      throw new VaultRagError(
        "store_failed",
        `vault-rag: Chroma is not reachable at ${loc.server} — start it with \`chroma run --path <dir> --port ${loc.port}\` or check --db`,
        { cause: err },
      );
    if (e.name === "ChromaUnauthorizedError" || e.name === "ChromaForbiddenError")
      throw new VaultRagError(
        "store_failed",
        `vault-rag: the Chroma server at ${loc.server} refused the credentials — set CHROMA_API_KEY (and CHROMA_TENANT / CHROMA_DATABASE for a hosted server)`,
        { cause: err },
      );
    throw new VaultRagError(
      "store_failed",
      `vault-rag: Chroma at ${loc.server} failed to ${what} in "${loc.collection}": ${e.message.split("\n")[0]}`,
      { cause: err },
    );
  }
}
