import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChromaClient } from "chromadb";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parseChromaLocation } from "../../src/store/index.js";
import { CHROMA_MISSING, needs } from "../support/needs.js";
import { BIN } from "./helpers.js";

/**
 * Attachments in a Chroma collection, on a real Chroma server: the records the server holds carry
 * `file_type` and `page`, hits and related notes name them as the file index's do, and a PDF's
 * tags from its linking notes reach the server's metadata.
 */
const FIXTURES = path.resolve("test/fixtures/attachments");
const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });
const json = (args: string[]) => {
  const r = cli([...args, "--json"]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
let vault = "";
let chroma = "";

/** The metadata the server holds for a file's records, by page. */
async function serverMetadata(p: string): Promise<Record<string, unknown>[]> {
  const url = new URL(inject("chromaUrl"));
  const client = new ChromaClient({ host: url.hostname, port: Number(url.port) });
  const col = await client.getCollection({ name: parseChromaLocation(chroma).collection });
  const raw = await col.get({ where: { path: { $eq: p } }, include: ["metadatas"] as never });
  return (raw.metadatas as Record<string, unknown>[]).sort((a, b) => Number(a.page) - Number(b.page));
}

describe.skipIf(!!CHROMA_MISSING)(needs("attachments in a Chroma collection", CHROMA_MISSING), () => {
  beforeAll(() => {
    vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-chroma-att-")), "vault");
    fs.mkdirSync(path.join(vault, "papers"), { recursive: true });
    fs.copyFileSync(path.join(FIXTURES, "manual-3p.pdf"), path.join(vault, "papers", "manual-3p.pdf"));
    fs.copyFileSync(path.join(FIXTURES, "compost.docx"), path.join(vault, "papers", "compost.docx"));
    fs.writeFileSync(
      path.join(vault, "Reading.md"),
      "---\ntags: [greenhouse]\n---\n# Reading\n\nThe controller waters the soil on its own:\n\n![[manual-3p.pdf]]\n",
    );
    fs.writeFileSync(path.join(vault, "Heap.md"), "# Heap\n\nHow to turn a compost heap with a fork.\n");
    chroma = `${inject("chromaUrl").replace(/^http:/, "chroma:")}/att-${randomUUID().slice(0, 8)}`;
    expect(json(["index", vault])).toMatchObject({ added: 2, attachments: { added: 2 } });
    expect(json(["index", vault, "--db", chroma])).toMatchObject({ added: 2, attachments: { added: 2 } });
  }, 180_000);

  it("stores file_type and page on the server, and gives the file index's hits and related notes", async () => {
    const pdf = await serverMetadata("papers/manual-3p.pdf");
    expect(pdf.map((m) => [m.file_type, m.page])).toEqual([
      ["pdf", 1],
      ["pdf", 2],
      ["pdf", 3],
    ]);
    expect((await serverMetadata("papers/compost.docx")).every((m) => m.file_type === "docx" && m.page === 0)).toBe(
      true,
    );
    expect((await serverMetadata("Heap.md")).map((m) => m.file_type)).toEqual(["note"]);
    // dense search filters on the server: the type filter and each hit's type and page as the file's
    const q = ["search", "how long does one watering cycle last", "--vault", vault, "--mode", "dense", "--type", "pdf"];
    const remote = json([...q, "--db", chroma]);
    const local = json(q);
    const place = (hits: { path: string; file_type?: string; page?: number }[]) =>
      hits.map((h) => `${h.path}:${h.file_type}:p${h.page}`);
    expect(place(remote)).toEqual(place(local));
    expect(remote[0]).toMatchObject({ path: "papers/manual-3p.pdf", file_type: "pdf", page: 2 });
    // related from the PDF: the same notes and passages as the file index gives
    const related = (db: string[]) =>
      json(["related", "papers/manual-3p.pdf", "--vault", vault, ...db]).map(
        (n: { path: string; source: { page?: number; file_type?: string } }) =>
          `${n.path} ${n.source.file_type}:p${n.source.page}`,
      );
    expect(related(["--db", chroma])).toEqual(related([]));
  });

  it("sends a PDF's new tags to the server when the note that embeds it is retagged", async () => {
    expect((await serverMetadata("papers/manual-3p.pdf")).map((m) => m.tags)).toEqual([
      ["greenhouse"],
      ["greenhouse"],
      ["greenhouse"],
    ]);
    fs.writeFileSync(
      path.join(vault, "Reading.md"),
      "---\ntags: [orchard]\n---\n# Reading\n\nThe controller waters the soil on its own:\n\n![[manual-3p.pdf]]\n",
    );
    expect(json(["index", vault, "--db", chroma])).toMatchObject({
      updated: 1,
      embedded: 0,
      attachments: { updated: 0 },
    });
    expect((await serverMetadata("papers/manual-3p.pdf")).map((m) => m.tags)).toEqual([
      ["orchard"],
      ["orchard"],
      ["orchard"],
    ]);
    const tagged = (tag: string) =>
      JSON.parse(
        cli(["search", "watering cycle", "--vault", vault, "--db", chroma, "--mode", "dense", "--tag", tag, "--json"])
          .stdout,
      ).map((h: { path: string }) => h.path);
    expect(tagged("orchard")).toContain("papers/manual-3p.pdf");
    expect(tagged("greenhouse")).toEqual([]);
  });
});
