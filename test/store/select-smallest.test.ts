import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectSmallest } from "../../src/store/sqlite/select-smallest.js";

/** The simple reference: sort every (score, position) pair and take the first `count`. */
function reference(scores: number[], positions: number[] | null, count: number): number[] {
  return scores
    .map((s, c) => ({ s, p: positions ? positions[c] : c }))
    .sort((a, b) => a.s - b.s || a.p - b.p)
    .slice(0, count)
    .map((x) => x.p);
}

describe("selectSmallest", () => {
  it("picks and orders what sorting every score would, ties to the lower position (property)", () => {
    // few distinct values, so that ties at the cut are common; positions shuffled and unique
    const cases = fc
      .record({
        scores: fc.array(
          fc.integer({ min: -6, max: 6 }).map((x) => x / 2),
          { maxLength: 300 },
        ),
        count: fc.integer({ min: 0, max: 320 }),
        shuffled: fc.boolean(),
        seed: fc.integer(),
      })
      .map(({ scores, count, shuffled, seed }) => {
        let positions: number[] | null = null;
        if (shuffled) {
          positions = scores.map((_, i) => i * 3);
          let r = seed;
          for (let i = positions.length - 1; i > 0; i--) {
            r = (r * 1103515245 + 12345) & 0x7fffffff;
            const j = r % (i + 1);
            [positions[i], positions[j]] = [positions[j], positions[i]];
          }
        }
        return { scores, count, positions };
      });
    fc.assert(
      fc.property(cases, ({ scores, count, positions }) => {
        // the arrays are longer than `length`, as the dense index's reused buffers are
        const buf = Float64Array.from([...scores, -100, -100]);
        const pos = positions ? Int32Array.from([...positions, -1, -1]) : null;
        const got = Array.from(selectSmallest(buf, pos, scores.length, count));
        expect(got).toEqual(reference(scores, positions, count));
        expect(Array.from(buf.subarray(0, scores.length))).toEqual(scores); // not reordered
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 2000) },
    );
  });

  it("handles nothing to pick from and nothing asked for", () => {
    expect(Array.from(selectSmallest(new Float64Array(0), null, 0, 5))).toEqual([]);
    expect(Array.from(selectSmallest(Float64Array.from([1, 2]), null, 2, 0))).toEqual([]);
  });
});
