import { describe, expect, it } from "vitest";
import { notesAtCap, withOtherNotes, withoutNotes } from "../../src/search/per-note.js";
import type { Hit } from "../../src/search/types.js";

const hit = (id: string, path: string, distance: number) => ({ id, path, distance, score: 1 - distance }) as Hit;

describe("per-note backfill from other notes", () => {
  it("notesAtCap names the notes holding at least perNote hits", () => {
    expect(notesAtCap([hit("1", "a", 0), hit("2", "a", 0.1), hit("3", "b", 0.2)], 2)).toEqual(["a"]);
    expect(notesAtCap([hit("1", "a", 0), hit("3", "b", 0.2)], 1)).toEqual(["a", "b"]);
  });

  it("withoutNotes adds path $nin to a filter, and to none", () => {
    expect(withoutNotes({}, ["a"]).where).toEqual({ kind: "set", field: "path", op: "$nin", values: ["a"] });
    const tag = { kind: "list", field: "tags", op: "$contains", value: "x" } as const;
    expect(withoutNotes({ where: tag }, ["a"]).where).toEqual({
      kind: "and",
      clauses: [tag, { kind: "set", field: "path", op: "$nin", values: ["a"] }],
    });
  });

  it("asks without the notes at the cap, appends new passages in order of distance, stops when none is new", async () => {
    const asked: string[][] = [];
    const ranked = [hit("1", "big", 0), hit("2", "big", 0.1)];
    const out = await withOtherNotes(ranked, true, { topK: 3, perNote: 1 }, async (leaveOut) => {
      asked.push(leaveOut);
      return { hits: asked.length === 1 ? [hit("3", "small", 0.05)] : [], full: true };
    });
    expect(asked).toEqual([["big"], ["big", "small"]]);
    expect(out.map((h) => [h.id, h.distance])).toEqual([
      ["1", 0],
      ["2", 0.1],
      ["3", 0.1],
    ]);
  });

  it("asks nothing when the lists were not cut at their depth", async () => {
    let asked = 0;
    const ranked = [hit("1", "big", 0)];
    await withOtherNotes(ranked, false, { topK: 3, perNote: 1 }, async () => {
      asked++;
      return { hits: [], full: false };
    });
    expect(asked).toBe(0);
  });
});
