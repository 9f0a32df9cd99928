import { describe, expect, it } from "vitest";
import { formatHits } from "../../src/cli/output.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { flatHit, hitJson, search } from "../../src/search/index.js";
import { SqliteStore } from "../../src/store/index.js";
import { testManifest } from "../store/backends.js";
import { meta, tmpDb } from "../store/helpers.js";

const embedder = useLiteEmbedder();

describe("a hit whose passage and breadcrumb have nothing to show", () => {
  it("carries its note's first readable words, which the CLI prints as its snippet", async () => {
    const store = SqliteStore.open(tmpDb(), { create: true });
    await store.setManifest(testManifest(512));
    // a note with a blank title (a zero-width space): its second passage is images only
    const blank = { title: "\u200b", section: "" };
    const records = [
      { id: "p0", path: "pics.md", text: "Photos of the coast, taken in May.", m: { ...blank, ordinal: 0 } },
      { id: "p1", path: "pics.md", text: "![](coast.png)\n![](lighthouse.png)", m: { ...blank, ordinal: 1 } },
      { id: "t0", path: "trips.md", text: "![](lighthouse.png)", m: { title: "Trips", section: "Trips", ordinal: 0 } },
    ];
    const vectors = await embedder.embedDocuments(records.map((r) => r.text));
    for (const path of ["pics.md", "trips.md"])
      await store.upsertNotes([
        {
          note: { path, hash: path, mtime: 1, size: 1 },
          records: records
            .map((r, i) => ({ r, i }))
            .filter(({ r }) => r.path === path)
            .map(({ r, i }) => ({
              id: r.id,
              text: r.text,
              meta: meta({ path, ...r.m }),
              windows: [{ hash: r.id, vector: vectors[i] }],
            })),
        },
      ]);
    const { hits } = await search({ store, embedder }, "lighthouse", { mode: "keyword" });
    const pics = hits.find((h) => h.id === "p1")!;
    expect(pics.lead).toBe("Photos of the coast, taken in May.");
    expect(hitJson(pics).lead).toBe("Photos of the coast, taken in May.");
    // a hit with a breadcrumb to show needs no lead
    const trips = hits.find((h) => h.id === "t0")!;
    expect(trips.lead).toBeUndefined();
    expect("lead" in hitJson(trips)).toBe(false);
    const shown = formatHits([flatHit(pics)]).split("\n");
    expect(shown[1]).toBe("    Photos of the coast, taken in May.");
    await store.close();
  });
});
