import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINK_TEXT_REACH, linkSentences, type LinkSpan } from "../../src/vault/link-text.js";

const segmenter = new Intl.Segmenter("en", { granularity: "sentence" });

/** The rule as plainly as it reads: the sentences a link touches, cut to the reach on either side. */
function reference(plain: string, spans: LinkSpan[]) {
  const bounds = [...segmenter.segment(plain)].map((s) => [s.index, s.index + s.segment.length]);
  return spans.map((span) => {
    const first = bounds.find(([, b]) => b > span.start) ?? [0, plain.length];
    const last = bounds.find(([, b]) => b >= span.end) ?? [0, plain.length];
    const from = Math.max(first[0], span.start - LINK_TEXT_REACH);
    const to = Math.min(last[1], Math.min(span.end, span.start + LINK_TEXT_REACH) + LINK_TEXT_REACH);
    return {
      target: span.target,
      text: plain.slice(from, to).replace(/\s+/g, " ").trim(),
      display: plain.slice(span.start, span.end),
    };
  });
}

describe("linkSentences", () => {
  it("gives each link the sentences it touches, as the plain rule does, in short blocks and in long ones read around each link", () => {
    let long = 0;
    const piece = fc.constantFrom(
      "word ",
      "Two words. ",
      "Why? ",
      "x".repeat(400) + " ",
      "Done!\n\n",
      "Mr. Smith ",
      "e.g. ",
      "“Quoted.” ",
      "(Aside.) ",
      "終わり。",
      "3.5 ",
      "\n",
      "[L]",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 90, size: "max" }), (pieces) => {
        let plain = "";
        const spans: LinkSpan[] = [];
        for (const p of pieces) {
          if (p === "[L]") {
            spans.push({ start: plain.length, end: plain.length + 4, target: `t${spans.length}` });
            plain += "link";
          } else plain += p;
        }
        expect(linkSentences(plain, spans)).toEqual(reference(plain, spans));
        if (plain.length > 4000 && spans.length) long++;
      }),
      { numRuns: 200 },
    );
    expect(long).toBeGreaterThan(0); // blocks long enough to be read around each link came up
  });

  it("keeps a long display text to the reach", () => {
    const shown = "y".repeat(1000);
    const [one] = linkSentences(`See ${shown} now.`, [{ start: 4, end: 1004, target: "t" }]);
    expect(one.text).toBe(`See ${"y".repeat(2 * LINK_TEXT_REACH)}`);
  });
});
