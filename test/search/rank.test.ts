import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildFilter,
  diversify,
  dropStragglers,
  fuse,
  namedFirst,
  linearFusion,
  parseWhen,
  rrf,
  rrfScore,
} from "../../src/search/index.js";
import { normaliseWhere } from "../../src/store/index.js";
import { meta } from "../store/helpers.js";

const h = (path: string, score = 0.5) => ({ path, score });

describe("diversify", () => {
  it("caps hits per note and stops at the limit", () => {
    const hits = [h("a"), h("a"), h("a"), h("b"), h("c"), h("a"), h("d")];
    expect(diversify(hits, 4, 2).map((x) => x.path)).toEqual(["a", "a", "b", "c"]);
  });
  it("backfills from skipped hits, in rank order, when there are too few notes", () => {
    const hits = [h("a"), h("a"), h("a"), h("b"), h("a")];
    expect(diversify(hits, 5, 1).map((x) => x.path)).toEqual(["a", "a", "a", "b", "a"]);
    expect(diversify(hits, 3, 1)).toEqual([hits[0], hits[1], hits[3]]);
  });
  it("never returns more than the limit nor more than per-note when enough notes exist (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 40 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 4 }),
        (paths, limit, per) => {
          const out = diversify(
            paths.map((p) => h(p)),
            limit,
            per,
          );
          expect(out.length).toBe(Math.min(limit, paths.length));
          const perPath = new Map<string, number>();
          for (const p of paths) perPath.set(p, (perPath.get(p) ?? 0) + 1);
          const capped = [...perPath.values()].reduce((a, n) => a + Math.min(n, per), 0);
          if (capped >= limit) {
            const counts = new Map<string, number>();
            for (const o of out) counts.set(o.path, (counts.get(o.path) ?? 0) + 1);
            expect(Math.max(0, ...counts.values())).toBeLessThanOrEqual(per);
          }
        },
      ),
    );
  });
});

describe("dropStragglers", () => {
  it("keeps hits at least ratio × the best score", () => {
    expect(dropStragglers([h("a", 0.52), h("b", 0.3), h("c", 0.2)], 0.5).map((x) => x.path)).toEqual(["a", "b"]);
    expect(dropStragglers([], 0.5)).toEqual([]);
  });
});

describe("fusion arithmetic", () => {
  it("RRF sums weight / (k + rank) with ranks from 1", () => {
    const out = rrf(
      [
        [
          { id: "a", score: 9 },
          { id: "b", score: 5 },
        ],
        [
          { id: "b", score: 1 },
          { id: "c", score: 0 },
        ],
      ],
      [1, 1],
      60,
    );
    expect(out.map((o) => o.id)).toEqual(["b", "a", "c"]);
    expect(out[0].score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(out[1].score).toBeCloseTo(1 / 61, 12);
    expect(out[2].score).toBeCloseTo(1 / 62, 12);
    const weighted = rrf([[{ id: "a", score: 1 }], [{ id: "b", score: 1 }]], [0.3, 0.7], 10);
    expect(weighted).toEqual([
      { id: "b", score: 0.7 / 11 },
      { id: "a", score: 0.3 / 11 },
    ]);
  });
  it("RRF of lists and the Search API's Rrf share one formula: rrf gives what it gave before, bit for bit (property)", () => {
    // the list fusion written out on its own, without rrfScore
    const before = (lists: { id: string; score: number }[][], weights: number[], k: number) => {
      const fused = new Map<string, number>();
      lists.forEach((list, li) =>
        list.forEach((r, rank) => fused.set(r.id, (fused.get(r.id) ?? 0) + weights[li] / (k + rank + 1))),
      );
      return [...fused]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    };
    const list = fc.array(
      fc.record({ id: fc.constantFrom("a", "b", "c", "d", "e", "f"), score: fc.double({ noNaN: true }) }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(
        fc.array(list, { minLength: 1, maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 100 }),
        (lists, weights, k) => {
          expect(rrf(lists, weights.slice(0, lists.length), k)).toEqual(before(lists, weights, k));
        },
      ),
    );
    expect(
      rrfScore(
        [
          { rank: 2, weight: 1 },
          { rank: 1, weight: 0.5 },
        ],
        60,
      ),
    ).toBe(1 / 62 + 0.5 / 61);
    expect(rrfScore([], 60)).toBe(0);
  });
  it("linear fusion min-max normalises each list and weights them", () => {
    const out = linearFusion(
      [
        [
          { id: "a", score: 10 },
          { id: "b", score: 5 },
          { id: "c", score: 0 },
        ],
        [
          { id: "c", score: 0.9 },
          { id: "b", score: 0.1 },
        ],
      ],
      [0.4, 0.6],
    );
    // a: 0.4·1; b: 0.4·0.5 + 0.6·0; c: 0.4·0 + 0.6·1
    expect(out).toEqual([
      { id: "c", score: 0.6 },
      { id: "a", score: 0.4 },
      { id: "b", score: 0.2 },
    ]);
    expect(linearFusion([[{ id: "x", score: 3 }]], [0.5])).toEqual([{ id: "x", score: 0.5 }]);
  });
  it("linear fusion scales a list from its floor when given one: its weakest entry counts above what it left out", () => {
    const keyword = [
      { id: "a", score: 4 },
      { id: "b", score: 2 },
    ];
    expect(linearFusion([keyword], [1], [0])).toEqual([
      { id: "a", score: 1 },
      { id: "b", score: 0.5 },
    ]);
    // without a floor the weakest entry scores 0, as a chunk the list never brought
    expect(linearFusion([keyword], [1])).toEqual([
      { id: "a", score: 1 },
      { id: "b", score: 0 },
    ]);
    // a floor above an entry is not a floor: the entry is
    expect(linearFusion([keyword], [1], [3])).toEqual(linearFusion([keyword], [1]));
  });
});

describe("hybrid fusion of a short keyword list", () => {
  const rec = (id: string, distance: number) => ({ id, text: id, distance, meta: meta({ path: `${id}.md` }) });
  it("ranks every chunk holding a rare word by its BM25 from 0, not from the weakest match: the dense list's best guess does not pass it", () => {
    // "Miri": three chunks hold it; the dense list (the pool's depth) holds chunks the model thinks near
    const dense = ["junk1", "junk2", "junk3", "m3", "junk4"].map((id, i) => rec(id, 0.6 + i * 0.05));
    const keyword = [rec("m1", -9), rec("m2", -8), rec("m3", -6)];
    const hits = fuse({ mode: "hybrid", fusion: "linear", alpha: 0.65, rrfK: 60 }, dense, keyword);
    expect(hits.slice(0, 3).map((h) => h.id)).toEqual(["m1", "m2", "m3"]);
    // a keyword list as deep as the dense one is scaled from its weakest entry
    const full = ["k1", "k2", "k3", "k4", "k5"].map((id, i) => rec(id, -9 + i));
    const fullHits = fuse({ mode: "hybrid", fusion: "linear", alpha: 0.65, rrfK: 60 }, dense, full);
    expect(fullHits.find((h) => h.id === "k5")!.score).toBeCloseTo(0, 10);
  });
});

describe("namedFirst", () => {
  const hit = (path: string, distance: number, title: string, aliases: string[] = []) => ({
    path,
    distance,
    score: 1 - distance,
    meta: { title, aliases },
  });
  it("puts the notes the whole question names (title, alias, file name) first, at the best distance", () => {
    const hits = [hit("git-log.md", 0.1, "git-log"), hit("git-clear.md", 0.2, "git-clear"), hit("git.md", 0.4, "git")];
    expect(namedFirst(hits, "git").map((h) => [h.path, h.distance])).toEqual([
      ["git.md", 0.1],
      ["git-log.md", 0.1],
      ["git-clear.md", 0.2],
    ]);
    // the moved hit is marked, so that --verbose can say why it ranks above its lists' places
    expect(namedFirst(hits, "git").map((h) => "named" in h)).toEqual([true, false, false]);
    // as a reader types the name: any case, spaces for its hyphens, an alias
    expect(namedFirst(hits, "Git Clear")[0].path).toBe("git-clear.md");
    expect(namedFirst([hit("a.md", 0.1, "a"), hit("n/2FA.md", 0.3, "Two-factor", ["2fa"])], "2FA")[0].path).toBe(
      "n/2FA.md",
    );
    // a question that names no note, or only words of a name, changes nothing
    // (a name the question holds among other words lifts its note: see titledFirst)
    expect(namedFirst(hits, "git history")[0].path).toBe("git.md");
    expect(namedFirst(hits, "log")).toBe(hits);
  });
});

describe("buildFilter and parseWhen", () => {
  const now = 1_800_000_000;
  it("returns undefined, a single clause, or an $and — never {} nor a one-clause $and", () => {
    expect(buildFilter({})).toBeUndefined();
    expect(buildFilter({ tags: ["#Pico"] })).toEqual({ tags: { $contains: "pico" } });
    expect(buildFilter({ tags: ["a", "b"], folder: "kitchen/", since: "2d" }, now)).toEqual({
      $and: [
        { tags: { $contains: "a" } },
        { tags: { $contains: "b" } },
        { folder: { $eq: "kitchen" } },
        { date: { $gte: now - 2 * 86400 } },
      ],
    });
    // --by mtime compares the file's date
    expect(buildFilter({ since: "2d", by: "mtime" }, now)).toEqual({ mtime: { $gte: now - 2 * 86400 } });
    expect(normaliseWhere(buildFilter({ topFolder: "robots", until: 1_700_000_000 }))).toBeDefined();
  });
  it("matches an accented folder or tag in both Unicode forms, and an ASCII one as written", () => {
    const composed = "Caf\u00e9";
    const decomposed = "Cafe\u0301";
    expect(buildFilter({ folder: composed })).toEqual({ folder: { $in: [composed, decomposed] } });
    expect(buildFilter({ topFolder: decomposed })).toEqual({ top_folder: { $in: [decomposed, composed] } });
    expect(buildFilter({ tags: [composed] })).toEqual({
      $or: [{ tags: { $contains: "caf\u00e9" } }, { tags: { $contains: "cafe\u0301" } }],
    });
    expect(buildFilter({ folder: "kitchen" })).toEqual({ folder: { $eq: "kitchen" } });
    // as a shell's completion writes it
    expect(buildFilter({ folder: "./kitchen/" })).toEqual({ folder: { $eq: "kitchen" } });
    // the vault's root, as a shell names the folder it is in; ".." and ".hidden" are names
    for (const root of [".", "./", "./.", "/"]) expect(buildFilter({ folder: root })).toEqual({ folder: { $eq: "" } });
    expect(buildFilter({ folder: "..x" })).toEqual({ folder: { $eq: "..x" } });
    expect(buildFilter({ folder: ".obsidian" })).toEqual({ folder: { $eq: ".obsidian" } });
  });
  it("parses durations, dates and ISO times into Unix seconds", () => {
    expect(parseWhen("90d", now)).toBe(now - 90 * 86400);
    expect(parseWhen("2w", now)).toBe(now - 14 * 86400);
    expect(parseWhen("12h", now)).toBe(now - 12 * 3600);
    expect(parseWhen("2026-06-01T12:00:00Z")).toBe(1_780_315_200);
    expect(parseWhen("2026-06-01")).toBe(Math.floor(new Date(2026, 5, 1).getTime() / 1000));
    // --until a date keeps that day: up to its last second
    expect(parseWhen("2026-06-01", now, true)).toBe(Math.floor(new Date(2026, 5, 2).getTime() / 1000) - 1);
    expect(parseWhen("2026-12-31", now, true)).toBe(Math.floor(new Date(2027, 0, 1).getTime() / 1000) - 1);
    expect(parseWhen("2026-06-01T12:00:00Z", now, true), "a time is that time").toBe(1_780_315_200);
    const day = Math.floor(new Date(2026, 5, 1, 15, 30).getTime() / 1000);
    expect(buildFilter({ since: "2026-06-01", until: "2026-06-01" })).toEqual({
      $and: [{ date: { $gte: parseWhen("2026-06-01") } }, { date: { $lte: parseWhen("2026-06-01", now, true) } }],
    });
    expect(parseWhen("2026-06-01") <= day && day <= parseWhen("2026-06-01", now, true)).toBe(true);
    expect(() => parseWhen("last tuesday")).toThrow(
      'vault-rag: cannot read the time "last tuesday" — use a duration like 90d, 2w or 12h, a date like 2026-06-01, or an ISO time',
    );
    expect(() => parseWhen("2026-02-31")).toThrow(/cannot read the time "2026-02-31"/);
    // a month past December, in a date or an ISO time, is no date in the next year
    expect(() => parseWhen("2026-13-01")).toThrow(/cannot read the time "2026-13-01"/);
    expect(() => parseWhen("2026-02-30T10:00")).toThrow(/cannot read the time "2026-02-30T10:00"/);
    expect(parseWhen("2026-02-28T10:00:00Z")).toBe(Date.UTC(2026, 1, 28, 10) / 1000);
    // a year under 100 is that year, not 19xx
    expect(new Date(parseWhen("0050-06-01") * 1000).getFullYear()).toBe(50);
    expect(parseWhen("2000y", now)).toBe(now - 2000 * 365 * 86400);
    // past the year 5138 a time would read as milliseconds: a filter goes no further
    for (const far of ["6000-01-01", "9999-12-31T23:59:59Z"]) {
      expect(parseWhen(far)).toBe(1e11 - 1);
      expect(normaliseWhere(buildFilter({ until: far }))).toEqual({
        kind: "cmp",
        field: "date",
        op: "$lte",
        value: 1e11 - 1,
      });
    }
    expect(() => parseWhen("99999999999d", now)).toThrow(
      'vault-rag: the duration "99999999999d" reaches back before the year 1 — use a shorter one, like 90d or 10y',
    );
  });
  it("never throws anything but a vault-rag error, and always returns seconds (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => {
        try {
          const t = parseWhen(s, now);
          expect(Number.isInteger(t)).toBe(true);
          expect(t).toBeLessThan(1e11);
        } catch (e) {
          expect((e as Error).message.startsWith("vault-rag: cannot read the time")).toBe(true);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1000) },
    );
  });
});
