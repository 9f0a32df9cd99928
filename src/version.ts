import { createRequire } from "node:module";

/**
 * vault-rag's version, read once from its package.json (one place to change it); "unknown" for a
 * build copied without its package.json's version.
 *
 * @example
 * ```ts
 * VERSION; // "0.1.0"
 * ```
 */
export const VERSION: string =
  (createRequire(import.meta.url)("../package.json") as { version?: string }).version ?? "unknown";
