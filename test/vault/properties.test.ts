import { describe, expect, it } from "vitest";
import { resolveDateKeys } from "../../src/config.js";
import { isoDateSeconds } from "../../src/dates.js";
import { noteDate, parseNote, propName, readProperties } from "../../src/vault/index.js";

const local = (y: number, m: number, d: number) => Math.floor(new Date(y, m - 1, d).getTime() / 1000);

describe("property names are normalised as Obsidian treats them", () => {
  it("case, spaces at the ends and runs of inner spaces do not count", () => {
    expect(propName("  Due   Date ")).toBe("due date");
    expect(propName("STATUS")).toBe("status");
    expect(propName("Due\tDate")).toBe("due date");
  });

  it("two keys that normalise to one name keep the first", () => {
    expect(readProperties({ Status: "draft", status: "final" })).toEqual({ status: "draft" });
  });
});

describe("frontmatter values become typed properties", () => {
  it("text, numbers, booleans, ISO dates and lists keep their types; tags and aliases are no properties", () => {
    const props = readProperties({
      type: "Uni Note",
      rating: 4,
      done: false,
      due: "2026-03-14",
      at: "2026-03-14T09:30:00Z",
      topics: ["ml", 2, true, "ml"],
      tags: ["x"],
      aliases: ["y"],
    });
    expect(props).toEqual({
      type: "Uni Note",
      rating: 4,
      done: false,
      due: { date: local(2026, 3, 14) },
      at: { date: 1773480600 },
      topics: ["ml", "2", "true"],
    });
  });

  it("null values, mappings, empty texts and empty lists are left out", () => {
    expect(readProperties({ a: null, b: { c: 1 }, d: "  ", e: [], f: [{ g: 1 }] })).toEqual({});
  });

  it("a text that looks like a date but names no day stays text", () => {
    expect(readProperties({ due: "2026-02-30" })).toEqual({ due: "2026-02-30" });
    expect(isoDateSeconds("2026-13-01")).toBeUndefined();
  });
});

describe("a note's date", () => {
  const mtime = 1_800_000_000;

  it("comes from the first frontmatter key of updated, modified, date, created that holds a date", () => {
    const d = noteDate("a.md", readProperties({ created: "2020-01-01", modified: "2021-06-01" }), mtime);
    expect(d).toEqual({ date: local(2021, 6, 1), source: "modified", unread: [] });
  });

  it("else from a date the file name starts with, else from the mtime", () => {
    expect(noteDate("daily/2023-05-02.md", {}, mtime)).toEqual({
      date: local(2023, 5, 2),
      source: "filename",
      unread: [],
    });
    expect(noteDate("daily/2023-05-02 Standup.md", {}, mtime).source).toBe("filename");
    expect(noteDate("notes/v2023-05-02.md", {}, mtime).source).toBe("mtime");
    expect(noteDate("notes/20230502.md", {}, mtime)).toEqual({ date: mtime, source: "mtime", unread: [] });
  });

  it("a frontmatter date that cannot be read falls through to the next source, and is named", () => {
    const d = noteDate("daily/2023-05-02.md", readProperties({ updated: "last week", created: "2019-01-01" }), mtime);
    expect(d).toEqual({ date: local(2019, 1, 1), source: "created", unread: ["updated"] });
  });

  it("follows the configured order of keys", () => {
    const props = readProperties({ created: "2020-01-01", updated: "2021-06-01" });
    expect(noteDate("a.md", props, mtime, ["created", "updated"]).source).toBe("created");
    expect(resolveDateKeys(undefined, { VAULT_RAG_DATE_KEYS: " created , Date " })).toEqual(["created", "Date"]);
    expect(resolveDateKeys(undefined, {})).toEqual(["updated", "modified", "date", "created"]);
  });

  it("parseNote gives a note its properties and date", () => {
    const note = parseNote("uni/Lecture.md", "---\nType: Uni Note\nupdated: 2024-01-10\n---\n# Lecture\n", mtime);
    expect(note.props).toEqual({ type: "Uni Note", updated: { date: local(2024, 1, 10) } });
    expect([note.date, note.dateSource, note.mtime]).toEqual([local(2024, 1, 10), "updated", mtime]);
  });
});
