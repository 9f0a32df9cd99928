import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { indexVault } from "../../src/indexing/index.js";
import { modelCannotRead, relatedNotes } from "../../src/search/index.js";
import { SqliteStore } from "../../src/store/index.js";

const MODEL = "universal-sentence-encoder-lite";

describe("what the bundled model cannot read", () => {
  it("is a note mostly in another language than English, or mostly CJK; another model is trusted", () => {
    const italian = "Il protocollo TCP garantisce la consegna ordinata dei pacchetti tra due host della rete.";
    const english = "TCP resends the packets the other side did not acknowledge before the timeout.";
    const chinese = "图片整理的方法：按日期建立文件夹，然后把照片放进去。";
    expect(modelCannotRead(MODEL, italian)).toBe(true);
    expect(modelCannotRead(MODEL, english)).toBe(false);
    expect(modelCannotRead(MODEL, chinese)).toBe(true);
    expect(modelCannotRead("nomic-embed-text", italian)).toBe(false);
    // a few words say too little to judge
    expect(modelCannotRead(MODEL, "Vedi sotto")).toBe(false);
  });
});

describe("related notes of a note the model cannot read (test/fixtures/italian)", () => {
  let tmp = "";
  let store: SqliteStore;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-italian-"));
    const db = path.join(tmp, "index.db");
    await indexVault(path.resolve("test/fixtures/italian/vault"), db, useLiteEmbedder());
    store = SqliteStore.open(db, { readonly: true });
  });
  afterAll(async () => {
    await store?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("ranks by shared words, tags and links, says so, and finds the note's own topic", async () => {
    // the model's cosines put "Memoria virtuale" (operating systems) among TCP's three nearest
    const tcp = await relatedNotes(store, "reti/Protocollo TCP.md", { k: 3 });
    expect(tcp.basis).toBe("words");
    expect(tcp.related.map((r) => r.path)).toEqual([
      "reti/Livello di trasporto.md",
      "reti/Indirizzi IP e sottoreti.md",
      "reti/DNS.md",
    ]);
    // the linked note leads, and a note is explained by a passage of each
    expect(tcp.related[0].linked).toBe(true);
    expect(tcp.related[0].target.text).toContain("UDP");
    const stallo = await relatedNotes(store, "Stallo", { k: 1 });
    expect(stallo.related[0].path).toBe("sistemi-operativi/Semafori e mutua esclusione.md");
  });
});
