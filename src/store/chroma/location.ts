import { VaultRagError } from "../../errors.js";

/** Where a Chroma collection lives, parsed from `--db`. */
export interface ChromaLocation {
  /** `http(s)://host:port`, without the collection. */
  server: string;
  host: string;
  port: number;
  ssl: boolean;
  collection: string;
  tenant?: string;
  database?: string;
  apiKey?: string;
}

/** Options and environment for hosted servers. */
export interface ChromaConnectOptions {
  tenant?: string;
  database?: string;
  apiKey?: string;
}

/**
 * True when `--db` names a server rather than a file.
 *
 * @example
 * ```ts
 * isChromaLocation("chroma://localhost:8000/notes"); // true
 * isChromaLocation("/home/me/notes/.vault-rag/index.db"); // false
 * ```
 */
export function isChromaLocation(db: string): boolean {
  return /^(chroma|https?):\/\//i.test(db);
}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$/;

/**
 * Parses `chroma://host:port/<collection>` (plain HTTP) or `http(s)://host[:port]/<collection>`.
 * Tenant, database and API key come from the options, else `CHROMA_TENANT`, `CHROMA_DATABASE`,
 * `CHROMA_API_KEY`; query parameters `?tenant=…&database=…` are accepted too.
 *
 * @example
 * ```ts
 * parseChromaLocation("chroma://localhost:8000/notes");
 * // { server: "http://localhost:8000", host: "localhost", port: 8000, ssl: false, collection: "notes" }
 * ```
 */
export function parseChromaLocation(
  db: string,
  opts: ChromaConnectOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): ChromaLocation {
  let url: URL;
  try {
    url = new URL(db.replace(/^chroma:/i, "http:"));
  } catch {
    throw new VaultRagError(
      "usage",
      `vault-rag: cannot read the Chroma address "${db}" — use chroma://host:port/<collection>`,
    );
  }
  const ssl = url.protocol === "https:";
  const collection = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ""));
  if (!collection)
    throw new VaultRagError(
      "usage",
      `vault-rag: the Chroma address "${db}" names no collection — use chroma://${url.host || "localhost:8000"}/<collection>`,
    );
  if (!NAME.test(collection) || collection.includes(".."))
    throw new VaultRagError(
      "usage",
      `vault-rag: "${collection}" is not a valid Chroma collection name — use 3–512 characters from a-z, A-Z, 0-9, ".", "_" and "-", starting and ending with a letter or digit`,
    );
  const port = url.port ? Number(url.port) : ssl ? 443 : 8000;
  const q = url.searchParams;
  return {
    server: `${ssl ? "https" : "http"}://${url.hostname.includes(":") ? `[${url.hostname}]` : url.hostname}:${port}`,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port,
    ssl,
    collection,
    tenant: opts.tenant ?? q.get("tenant") ?? env.CHROMA_TENANT ?? undefined,
    database: opts.database ?? q.get("database") ?? env.CHROMA_DATABASE ?? undefined,
    apiKey: opts.apiKey ?? env.CHROMA_API_KEY ?? undefined,
  };
}

/**
 * The address shown to users and accepted back by `--db` (never the API key).
 *
 * @example
 * ```ts
 * showLocation(parseChromaLocation("chroma://localhost:8000/notes?tenant=t")); // "chroma://localhost:8000/notes"
 * ```
 */
export function showLocation(loc: ChromaLocation): string {
  return loc.ssl
    ? `${loc.server}/${loc.collection}`
    : `chroma://${loc.server.replace(/^http:\/\//, "")}/${loc.collection}`;
}
