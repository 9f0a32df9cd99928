import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headingText, scanBlocks, sectionText } from "../../src/vault/index.js";

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
    "| a | b |",
    "|---|---|",
    "| #cell | [[Cell link]] |",
    "> | q | r |",
    "\r",
    "a\0b",
    "$$",
    "$$ x = 1 $$",
    "a = b $$",
    "  $$",
    "> $$",
    "$$a$$ and more",
  ),
  fc.lorem({ maxCount: 12 }),
  fc.string({ maxLength: 30 }),
);

describe("block scan", () => {
  it("reads top-level blocks, heading levels and texts, and code-holding containers", () => {
    const scan = scanBlocks("# Hi\n\ntext #tag\n\n> note\n> ```\n> code\n> ```\n\n## Sub [[A]]\n");
    expect(scan.starts).toEqual([0, 2, 4, 9]);
    expect(scan.levels).toEqual([1, 0, 0, 2]);
    expect(scan.texts).toEqual(["Hi", "", "", "Sub A"]);
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

  it("reads $$ display math as one block: its = and --- lines are no headings, its blank lines no break, its # no tag", () => {
    const text = [
      "# Determinants",
      "The determinant is given by:",
      "$$",
      "\\det M",
      "=",
      "",
      "\\begin{vmatrix} a & #b \\end{vmatrix}",
      "---",
      "$$",
      "After the block.",
      "",
      "- an item",
      "  $$",
      "  x",
      "  =",
      "  $$",
      "> [!note] In a callout",
      "> $$ y = 2 $$",
      "",
      "## Next",
    ].join("\n");
    const scan = scanBlocks(text);
    // the heading, the paragraph, the math (it interrupts the paragraph), the paragraph after it,
    // the list and the callout, which hold math and so are kept whole, and the next heading
    expect(scan.starts).toEqual([0, 1, 2, 9, 11, 16, 19]);
    expect(scan.levels).toEqual([1, 0, 0, 0, 0, 0, 2]);
    expect(scan.atomic).toEqual([false, false, true, false, true, true, false]);
    expect(scan.refTexts).toEqual(["[!note] In a callout"]); // not the math's "#b"
  });

  it("reads a $$ that is never closed, or only after 200 lines, as text, and keeps the headings after it", () => {
    const unclosed = scanBlocks("$$ 5 a month\n\n# Budget\n\ntext\n");
    expect(unclosed.levels).toEqual([0, 1, 0]);
    expect(unclosed.atomic).toEqual([false, false, false]);
    const far = scanBlocks("$$\n" + "x\n".repeat(250) + "$$\n");
    expect(far.starts).toEqual([0]); // one paragraph of text
    expect(far.atomic).toEqual([false]);
    // inline math in a paragraph stays in the paragraph
    expect(scanBlocks("$$a$$ and more\n=\n").levels).toEqual([1]);
  });

  it("names a heading as a reader sees it: no {#id}, no inline HTML, emphasis, backticks or escapes", () => {
    const body = [
      "# Teleport {#teleport}",
      "## Basic Usage {: #basic .wide}",
      "text",
      '## Deferred Teleport <sup class="vt-badge" data-text="3.5+" />',
      "## `<script setup>` and **Props** and \\<Teleport> and [links](x.md)",
      "## C# & F# #real",
    ].join("\n");
    const scan = scanBlocks(body);
    expect(scan.texts.filter(Boolean)).toEqual([
      "Teleport",
      "Basic Usage",
      "Deferred Teleport",
      "<script setup> and Props and <Teleport> and links",
      "C# & F# #real",
    ]);
    // the tag scan reads headings without their ids
    expect(scan.refTexts).toEqual([
      "`<script setup>` and **Props** and \\<Teleport> and [links](x.md)",
      "C# & F# #real",
    ]);
    // a section is found by its heading as it reads, or as it is written
    expect(sectionText(body, "basic usage")).toBe("## Basic Usage {: #basic .wide}\ntext");
    expect(sectionText(body, "## Basic Usage {: #basic .wide}")).toBe("## Basic Usage {: #basic .wide}\ntext");
    expect(headingText("<br>")).toBe("<br>"); // nothing but markup: the heading as written
    // a hostile heading of 200,000 spaces reads as its words (the pattern is tried from the last "{" only)
    expect(headingText(`a${" ".repeat(200_000)}{#x}`)).toBe("a");
    expect(scanBlocks(`# a${" ".repeat(200_000)}b\n`).texts).toEqual(["a b"]); // white space read as one space
  });

  it("names a heading's wikilinks as Obsidian shows them: display text, else the note's name; embeds and code as they are", () => {
    const body = [
      "# [[Dynamic Programming]] (Bottom-up approach)",
      "## See [[algorithms/Graphs#BFS|breadth first]] and [[algorithms/Heaps]]",
      "## ![[diagram.png]] Diagram",
      "## `[[not a link]]` in code",
      "text",
    ].join("\n");
    expect(scanBlocks(body).texts.filter(Boolean)).toEqual([
      "Dynamic Programming (Bottom-up approach)",
      "See breadth first and Heaps",
      "Diagram",
      "[[not a link]] in code",
    ]);
    // found by its name as it reads, or as written
    expect(sectionText(body, "See breadth first and Heaps")).toBe(
      "## See [[algorithms/Graphs#BFS|breadth first]] and [[algorithms/Heaps]]",
    );
    expect(sectionText(body, "`[[not a link]]` in code")).toBe("## `[[not a link]]` in code\ntext");
  });

  it("gives every section of a heading the note has more than once, in order, and one inside another once", () => {
    const body = [
      "# Lookup",
      "## Details",
      "one",
      "# Modifiers",
      "## Details",
      "two",
      "### Details",
      "three",
      "# End",
    ].join("\n");
    expect(sectionText(body, "details")).toBe("## Details\none\n\n## Details\ntwo\n### Details\nthree");
    expect(sectionText(body, "Modifiers")).toBe("# Modifiers\n## Details\ntwo\n### Details\nthree");
    expect(sectionText(body, "nowhere")).toBeUndefined();
  });

  it("reads a note of unclosed $$ lines in slices as in one parse, cutting before each open $$ instead of reading it whole", () => {
    for (const text of [
      "$$a\n\n".repeat(3000),
      "- $$a\n".repeat(3000),
      "para\n$$\n" + "x\n".repeat(150) + "$$\n\n".repeat(50),
    ]) {
      const whole = structuredClone(scanBlocks(text, Number.MAX_SAFE_INTEGER));
      expect(scanBlocks(text, 1024)).toEqual(whole);
    }
  });

  it("reads one long list in slices cut at its items, as one block", () => {
    const text = "- item\n".repeat(20_000) + "- ```\n  code\n  ```\n\n# After\n";
    const scan = scanBlocks(text, 1024);
    expect(scan.starts).toEqual([0, 20_004]);
    expect(scan.atomic).toEqual([true, false]);
    expect(scan.texts[1]).toBe("After");
  });

  it("reads a table as one block, its cells' tags and links kept, whatever its size, inside a list or a callout too", () => {
    const rows = (n: number) => "| x | y |\n".repeat(n);
    const text = `# T\n\n| a | b |\n|---|---|\n${rows(3)}| #tag | [[Link]] |\n${rows(50_000)}\n## After #h\n\n- item\n\n  | c | d |\n  |---|---|\n  | [[In list]] | e |\n`;
    const scan = scanBlocks(text, 1024);
    expect(scan.starts).toEqual([0, 2, 50_009, 50_011]);
    expect(scan.tables).toEqual([false, true, false, false]);
    expect(scan.atomic).toEqual([false, true, false, true]);
    expect(scan.texts[2]).toBe("After #h");
    // only the cells that may hold a tag or link are read for them, in order
    expect(scan.refTexts).toEqual(["#tag", "[[Link]]", "After #h", "[[In list]]"]);
    expect(scan.lineCount).toBe(50_017);
    // in a callout: the callout is one block, kept whole, its cell's link read
    const callout = scanBlocks("> [!note] Parts\n> | a | b |\n> |---|---|\n> | [[Motor]] | x |\n\nAfter.\n", 16);
    expect(callout.starts).toEqual([0, 5]);
    expect(callout.atomic).toEqual([true, false]);
    expect(callout.refTexts).toEqual(["[!note] Parts", "[[Motor]]"]);
  });

  it("reads a block longer than a slice (a long fence) in growing slices", () => {
    const text = "```\n" + "x = 1\n".repeat(20_000) + "```\n\n# After\n";
    const scan = scanBlocks(text, 1024);
    expect(scan.starts).toEqual([0, 20_003]);
    expect(scan.atomic).toEqual([true, false]);
  });
});
