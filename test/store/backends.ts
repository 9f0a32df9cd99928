import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { ChromaStore, SqliteStore, type Manifest, type Store } from "../../src/store/index.js";
import { CHROMA_MISSING } from "../needs.js";
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

/** A `chroma://` address for a new collection on the suite's server. */
export function chromaAddress(name = `t-${randomUUID().slice(0, 12)}`): string {
  return `${inject("chromaUrl").replace(/^http:/, "chroma:")}/${name}`;
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
