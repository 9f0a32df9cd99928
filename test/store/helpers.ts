import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore, type RecordMetadata, type StoreRecord } from "../../src/store/index.js";

export function tmpDb(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-store-")), "index.db");
}

export function meta(p: Partial<RecordMetadata> & { path: string }): RecordMetadata {
  const folder = p.path.includes("/") ? p.path.slice(0, p.path.lastIndexOf("/")) : "";
  return {
    title: p.path,
    section: p.path,
    folder,
    top_folder: folder.split("/")[0] ?? "",
    mtime: 1_760_000_000,
    word_count: 10,
    ordinal: 0,
    start_line: 1,
    end_line: 2,
    tags: [],
    links: [],
    aliases: [],
    hash: p.path + (p.ordinal ?? 0),
    props: {},
    ...p,
    date: p.date ?? p.mtime ?? 1_760_000_000,
    date_source: p.date_source ?? "mtime",
  };
}

export function vec(...xs: number[]): Float32Array {
  const v = new Float32Array(4);
  xs.forEach((x, i) => (v[i] = x));
  return v;
}

export function record(id: string, m: RecordMetadata, v: Float32Array, text = `text of ${id}`): StoreRecord {
  return { id, text, meta: m, windows: [{ hash: m.hash, vector: v }] };
}

export async function openStore(file = tmpDb(), dimensions = 4): Promise<SqliteStore> {
  const s = SqliteStore.open(file, { create: true });
  await s.setManifest({
    schemaVersion: 1,
    embedder: { provider: "test", model: "t", dimensions, documentPrefix: "", queryPrefix: "", normalized: false },
    chunkerVersion: "x",
    createdAt: "",
    updatedAt: "",
  });
  return s;
}
