import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { describe, inject } from "vitest";
import { ChromaStore, SqliteStore, type Manifest, type Store } from "../../src/store/index.js";
import { CHROMA_MISSING, needs } from "../support/needs.js";
import { tmpDb } from "./helpers.js";

/** A store backend under test: opens a fresh store, or the same one again. */
export interface Backend {
  name: string;
  /** Why this backend cannot be tested here, if it cannot. */
  missing?: string;
  /** A fresh, empty store with a manifest of `dims` dimensions. */
  fresh(dims?: number): Promise<{ store: Store; reopen: () => Promise<Store> }>;
}

export const testManifest = (dims: number): Manifest => ({
  schemaVersion: 1,
  embedder: { provider: "test", model: "t", dimensions: dims, documentPrefix: "", queryPrefix: "", normalized: false },
  chunkerVersion: "x",
  createdAt: "",
  updatedAt: "",
});

export const sqliteBackend: Backend = {
  name: "SQLite",
  async fresh(dims = 4) {
    const file = tmpDb();
    const store = SqliteStore.open(file, { create: true });
    await store.setManifest(testManifest(dims));
    return { store, reopen: async () => SqliteStore.open(file) };
  },
};

/**
 * A `chroma://` address for a new collection on the suite's server. Throws, saying why, when the
 * suite has no server (a test that calls it belongs under {@link withBackends}).
 */
export function chromaAddress(name = `t-${randomUUID().slice(0, 12)}`): string {
  const url = inject("chromaUrl");
  if (!url) throw new Error(`vault-rag tests: no Chroma server in this run, so no Chroma address: ${CHROMA_MISSING}`);
  return `${url.replace(/^http:/, "chroma:")}/${name}`;
}

export const chromaBackend: Backend = {
  name: "Chroma",
  missing: CHROMA_MISSING,
  async fresh(dims = 4) {
    const db = chromaAddress();
    const sidecarDir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-sidecar-"));
    const store = await ChromaStore.open(db, { create: true, sidecarDir });
    await store.setManifest(testManifest(dims));
    return { store, reopen: async () => ChromaStore.open(db, { sidecarDir }) };
  },
};

export const BACKENDS = [sqliteBackend, chromaBackend];

/**
 * A describe block that needs every one of `backends`: when one cannot be tested here (no Chroma
 * server) the block is skipped with the reason in its title and on stderr (see `needs`), never run
 * to fail on a missing server; `VAULT_RAG_TEST_STRICT=1` makes it fail instead.
 *
 * @example
 * ```ts
 * withBackends([sqliteBackend, chromaBackend], "SQLite and Chroma agree", () => { it(…) });
 * ```
 */
export function withBackends(backends: Backend[], title: string, body: () => void): void {
  const missing = backends
    .filter((b) => b.missing)
    .map((b) => b.missing)
    .join("; ");
  describe.skipIf(!!missing)(needs(title, missing || undefined), body);
}

/**
 * The same tests once per backend (SQLite, and a real Chroma server), each block titled `title` with
 * `$name` replaced by the backend's name; a backend that cannot be tested here is skipped with the
 * reason, as in {@link withBackends}.
 *
 * @example
 * ```ts
 * forEachBackend("$name store conformance", (backend) => {
 *   it("stores and finds", async () => { const { store } = await backend.fresh(); … });
 * });
 * ```
 */
export function forEachBackend(title: string, body: (backend: Backend) => void, backends = BACKENDS): void {
  for (const backend of backends) withBackends([backend], title.replace("$name", backend.name), () => body(backend));
}
