import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanBlocks } from "../../src/vault/index.js";

// lines that open, close or continue every kind of block whose end a slice boundary could move
const mdLine = fc.oneof(
  fc.constantFrom(
    "# Title",
    "## Sub",
    "### Deep #tag",
    "",
    "- item",
    "  - nested",
    "1. one",
    "> quote",
    "> [!note] callout",
    "> ```",
    "---",
    "===",
    "    indented code",
  ),
  fc.constantFrom(
    "```",
    "~~~",
    "````",
    "```js",
    "<div>",
    "</div>",
    "<!--",
    "-->",
    "<script>",
    "</script>",
    "[ref]: /url",
    "[[Link#Heading|alias]] #x/y",
    "\r",
    "a\0b",
  ),
  fc.lorem({ maxCount: 12 }),
  fc.string({ maxLength: 30 }),
);

describe("block scan", () => {
  it("reads top-level blocks, heading levels and texts, and code-holding containers", () => {
    const scan = scanBlocks("# Hi\n\ntext #tag\n\n> note\n> ```\n> code\n> ```\n\n## Sub [[A]]\n");
    expect(scan.starts).toEqual([0, 2, 4, 9]);
    expect(scan.levels).toEqual([1, 0, 0, 2]);
    expect(scan.texts).toEqual(["Hi", "", "", "Sub [[A]]"]);
    expect(scan.atomic).toEqual([false, false, true, false]);
    expect(scan.refTexts).toEqual(["text #tag", "Sub [[A]]"]);
    expect(scan.lineCount).toBe(11);
  });

  it("gives the same result in slices as in one parse, wherever the slices end (property)", () => {
    fc.assert(
      fc.property(
        fc.array(mdLine, { maxLength: 150 }),
        fc.constantFrom("\n", "\r\n"),
        fc.integer({ min: 1, max: 400 }),
        (lines, eol, slice) => {
          const text = lines.join(eol);
          const whole = structuredClone(scanBlocks(text, Number.MAX_SAFE_INTEGER));
          expect(scanBlocks(text, slice)).toEqual(whole);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 1000) },
    );
  });

  it("reads one long list in slices cut at its items, as one block", () => {
    const text = "- item\n".repeat(20_000) + "- ```\n  code\n  ```\n\n# After\n";
    const scan = scanBlocks(text, 1024);
    expect(scan.starts).toEqual([0, 20_004]);
    expect(scan.atomic).toEqual([true, false]);
    expect(scan.texts[1]).toBe("After");
  });

  it("reads a block longer than a slice (a long fence) in growing slices", () => {
    const text = "```\n" + "x = 1\n".repeat(20_000) + "```\n\n# After\n";
    const scan = scanBlocks(text, 1024);
    expect(scan.starts).toEqual([0, 20_003]);
    expect(scan.atomic).toEqual([true, false]);
  });
});
