import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { denseOrder, inFolder, pendingPaths } from "../../src/indexing/dense-order.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** The rule written plainly: a rank per path, compared field by field. */
function reference(paths: string[], mtime: Map<string, number>, first: string[]): string[] {
  const rank = (p: string) => {
    let g = first.length;
    for (let k = first.length - 1; k >= 0; k--) if (p.startsWith(first[k] + "/")) g = k;
    return [g, -(mtime.get(p) ?? -Infinity), p] as const;
  };
  return [...paths].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    if (x[0] !== y[0]) return x[0] - y[0];
    if (x[1] !== y[1]) return x[1] < y[1] ? -1 : 1;
    return x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0;
  });
}

describe("denseOrder", () => {
  it("puts the listed folders first in their order, then the most recently changed", () => {
    const mtime = new Map([
      ["old.md", 10],
      ["new.md", 90],
      ["Inbox/a.md", 20],
      ["Projects/x/b.md", 5],
      ["Projects/c.md", 50],
      ["Projectsish.md", 99],
    ]);
    expect(denseOrder([...mtime.keys()], (p) => mtime.get(p), ["Projects", "Inbox"])).toEqual([
      "Projects/c.md",
      "Projects/x/b.md",
      "Inbox/a.md",
      "Projectsish.md",
      "new.md",
      "old.md",
    ]);
  });

  it("puts a note gone from disk (no time) last in its group", () => {
    const mtime = new Map([["a.md", 1]]);
    expect(denseOrder(["gone.md", "a.md"], (p) => mtime.get(p), [])).toEqual(["a.md", "gone.md"]);
  });

  it("agrees with the rule written plainly, for any paths, times and folders", () => {
    const seg = fc.constantFrom("a", "b", "ab", "Ä", "x y");
    const notePath = fc.array(seg, { minLength: 1, maxLength: 3 }).map((s) => `${s.join("/")}.md`);
    fc.assert(
      fc.property(
        fc.uniqueArray(notePath, { maxLength: 30 }),
        fc.array(fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }), { minLength: 30, maxLength: 30 }),
        fc.uniqueArray(
          fc.array(seg, { minLength: 1, maxLength: 2 }).map((s) => s.join("/")),
          { maxLength: 3 },
        ),
        (paths, times, first) => {
          const mtime = new Map<string, number>();
          paths.forEach((p, i) => times[i] !== undefined && mtime.set(p, times[i]!));
          expect(denseOrder(paths, (p) => mtime.get(p), first)).toEqual(reference(paths, mtime, first));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("matches a folder written composed against a path written decomposed", () => {
    expect(inFolder("Bu\u0308cher/a.md", "B\u00fccher")).toBe(true);
    expect(inFolder("Bücherei/a.md", "Bücher")).toBe(false);
  });
});

describe("pendingPaths", () => {
  it("reads every page the store gives, however many", async () => {
    const all = Array.from({ length: 9000 }, (_, i) => `n${String(i).padStart(5, "0")}.md`);
    const store = {
      async pendingVectorPaths(limit: number, after?: string) {
        const from = after === undefined ? 0 : all.indexOf(after) + 1;
        return all.slice(from, from + limit);
      },
    };
    expect(await pendingPaths(store)).toEqual(all);
  });
});
