import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { chunkNote, countWords } from "../../src/chunk/index.js";
import { lastWords, MAX_CHUNK_CHARS } from "../../src/chunk/chunker.js";
import { parseNote } from "../../src/vault/index.js";

const note = (text: string, p = "robots/SMARS.md") => parseNote(p, text, 1_760_000_000);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const md = new MarkdownIt();

describe("chunker", () => {
  it("cuts one chunk per section with breadcrumbs, metadata and source lines", () => {
    const text =
      "---\ntitle: SMARS Robot\ntags: [robots]\n---\n# SMARS\n\nIntro text about the robot that is long enough to stand on its own as a chunk here.\n\n## Motors\n\nTwo N20 motors drive the tracks, one per side, through a small gearbox.\n\n### Wiring\n\nThe DRV8833 takes four GPIO pins, two per motor, plus power and ground.\n";
    const chunks = chunkNote(note(text), { minWords: 0 });
    expect(chunks.map((c) => c.meta.section)).toEqual([
      "SMARS Robot > SMARS",
      "SMARS Robot > SMARS > Motors",
      "SMARS Robot > SMARS > Motors > Wiring",
    ]);
    // at the default minWords, sections this small are one passage, read as the section it opens
    // with, which holds the most of it
    expect(chunkNote(note(text)).map((c) => c.meta.section)).toEqual(["SMARS Robot > SMARS"]);
    expect(chunks[1].meta).toMatchObject({
      path: "robots/SMARS.md",
      folder: "robots",
      top_folder: "robots",
      tags: ["robots"],
      mtime: 1_760_000_000,
      ordinal: 1,
      start_line: 9,
      end_line: 11,
    });
    // the model reads the headings below the title; the title is a keyword field only
    expect(chunks[1].embedText.startsWith("SMARS > Motors\nTwo N20")).toBe(true);
    expect(chunks[1].embedText).not.toContain("SMARS Robot");
    expect(chunks.every((c) => !c.text.includes("title:"))).toBe(true);
  });

  it("embeds a passage of headings alone as its title and headings, so stubs do not share one empty vector", () => {
    const stub = (p: string, text: string) => chunkNote(parseNote(p, text, 0));
    const [knapsack] = stub("Knapsack Problem.md", "## Knapsack Problem\n");
    const [control] = stub("Transaction Control.md", "## Transaction Control\n");
    expect([knapsack.text, knapsack.embedText]).toEqual(["## Knapsack Problem", "Knapsack Problem\n"]);
    expect(control.embedText).toBe("Transaction Control\n");
    // a heading below the title is named after it
    expect(stub("Graphs.md", "# Graphs\n## Shortest paths\n")[0].embedText).toBe("Graphs > Shortest paths\n");
  });

  it("names a heading's wikilinks in the breadcrumb and the embedded headings as a reader sees them, the Markdown as written", () => {
    const text =
      "# Trees\n\n#### [[Breadth First Search|BFS]] on a [[algo/Queue]]\n\nVisit each level in turn, counting the children.\n";
    const [c] = chunkNote(parseNote("algo/Trees.md", text, 0), { minWords: 0 }).slice(-1);
    expect(c.meta.section).toBe("Trees > BFS on a Queue");
    expect(c.embedText.startsWith("BFS on a Queue\nVisit each level")).toBe(true);
    expect(c.text).toBe(
      "#### [[Breadth First Search|BFS]] on a [[algo/Queue]]\n\nVisit each level in turn, counting the children.",
    );
  });

  it("merges a heading with no text into its first subsection", () => {
    const chunks = chunkNote(
      note("# Top\n\n## Child\n\nSome words here that make the child section a proper chunk of text today.\n"),
    );
    expect(chunks).toHaveLength(1);
    expect(chunks[0].meta.section).toBe("SMARS > Top > Child");
    expect(chunks[0].text.startsWith("# Top")).toBe(true);
  });

  it("never splits fences of any kind, including ~~~, 4+ backticks and fences inside callouts", () => {
    const code = Array.from({ length: 200 }, (_, i) => `line ${i} of code`).join("\n");
    for (const [open, close] of [
      ["```", "```"],
      ["~~~", "~~~"],
      ["````js", "````"],
    ]) {
      const chunks = chunkNote(note(`# Code\n\n${open}\n${code}\n${close}\n\nAfter.\n`));
      const holder = chunks.filter((c) => c.text.includes("line 0 of code"));
      expect(holder).toHaveLength(1);
      expect(holder[0].text).toContain("line 199 of code");
    }
    const callout = `> [!note] Code\n> \`\`\`\n${Array.from({ length: 120 }, (_, i) => `> x${i} y z`).join("\n")}\n> \`\`\`\n`;
    const chunks = chunkNote(note(`# C\n\n${callout}`));
    expect(chunks.filter((c) => c.text.includes("x0 y z"))[0].text).toContain("x119 y z");
  });

  it("does not read # inside a fence as a heading", () => {
    const chunks = chunkNote(note("# Real\n\n```\n# not a heading\n```\n"));
    expect(chunks.map((c) => c.meta.section)).toEqual(["SMARS > Real"]);
  });

  it("splits long sections with overlap and keeps chunks near the size limit", () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about motors and wiring.`).join(
      " ",
    );
    const opts = { maxWords: 60, overlapWords: 15 };
    const chunks = chunkNote(note(`# Long\n\n${sentences}\n`), opts);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(c.meta.word_count).toBeLessThanOrEqual(opts.maxWords + opts.overlapWords);
    // overlap: the start of each later chunk repeats the end of the one before
    const lastWords = chunks[0].text.split(/\s+/).slice(-5).join(" ");
    expect(chunks[1].text).toContain(lastWords);
  });

  it("keeps paragraphs whole around a code block, and sentences whole when a paragraph is cut", () => {
    const para = (n: number) =>
      Array.from(
        { length: 6 },
        (_, i) => `Paragraph ${n} sentence ${i} says something about the motor driver and its pins.`,
      ).join(" ");
    const code = "```bash\n" + Array.from({ length: 30 }, (_, i) => `echo step ${i} of the build`).join("\n") + "\n```";
    const body = `# Build\n\n${para(1)}\n\n${code}\n\n${para(2)}\n\n${para(3)}\n\n${para(4)}\n`;
    const chunks = chunkNote(note(body));
    for (const n of [1, 2, 3, 4]) expect(chunks.filter((c) => c.text.includes(para(n)))).toHaveLength(1);
    expect(chunks.filter((c) => c.text.includes(code))).toHaveLength(1);
    // one paragraph longer than a chunk: cut at sentence ends only
    const long = Array.from(
      { length: 40 },
      (_, i) => `Sentence ${i} is about the DRV8833 and nothing else at all.`,
    ).join(" ");
    const cut = chunkNote(note(`# Long\n\n${long}\n`));
    expect(cut.length).toBeGreaterThan(1);
    for (const c of cut) expect(c.text.trim()).toMatch(/(^# Long\n\n)?Sentence \d+ .*\.$/s);
  });

  it("joins a short last run of a long section to the run before it, instead of a passage that says nothing", () => {
    const para = (n: number) =>
      Array.from(
        { length: 7 },
        (_, i) => `Paragraph ${n} sentence ${i} drops a commit in a rebase with an interactive edit.`,
      ).join(" ");
    // the heading and two 98-word paragraphs make 199 words: a 3-word paragraph after them would be cut off alone
    const body = `# Dropping commits\n\n${para(1)}\n\n${para(2)}\n\nh/t Jake Worth\n`;
    const chunks = chunkNote(note(body));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].meta.word_count).toBe(202);
    expect(chunks[0].text).toMatch(/interactive edit\.\n\nh\/t Jake Worth$/);
    expect(chunks[0].meta.end_line).toBe(7);
    // a last run of minWords (30) or more stands on its own
    const kept = chunkNote(note(body.replace("h/t Jake Worth", "h/t " + "Jake Worth ".repeat(15).trim())));
    expect(kept.map((c) => c.meta.word_count)).toEqual([199, 31]);
    expect(kept[1].text).toMatch(/^h\/t Jake/);
  });

  it("never leaves a heading with no text as a chunk of its own", () => {
    const big = Array.from(
      { length: 30 },
      (_, i) => `Sentence ${i} of a section long enough to fill a chunk by itself here.`,
    ).join(" ");
    const chunks = chunkNote(note(`# Top\n\n## A\n\n${big}\n\n## Empty\n\n## B\n\n${big}\n`));
    for (const c of chunks) expect(c.text.replace(/^#+ .*$/gm, "").trim()).not.toBe("");
    expect(chunks.some((c) => c.text.includes("## Empty"))).toBe(true);
    expect(chunks[0].text.startsWith("# Top")).toBe(true);
  });

  it("keeps a heading, or a sentence that opens a list, with the long block after it", () => {
    // an API page's section: a heading, then one list that holds code, over the size limit
    const code = Array.from({ length: 60 }, (_, i) => `  const value${i} = compute(${i}, options, more);`).join("\n");
    const list = `- **Details**\n\n  Memoize a sub-tree of the template.\n\n  \`\`\`js\n${code}\n  \`\`\`\n`;
    const chunks = chunkNote(note(`# Directives\n\n## v-memo {#v-memo}\n\n${list}`));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text.startsWith("# Directives\n\n## v-memo {#v-memo}\n\n- **Details**")).toBe(true);
    expect(chunks[0].meta.section).toBe("SMARS > Directives > v-memo");
    // a short sentence that opens a long list stays with it, in a section cut in runs
    const prose = Array.from({ length: 25 }, (_, i) => `Sentence ${i} of prose that fills the run.`).join(" ");
    const items = Array.from({ length: 40 }, (_, i) => `- limitation ${i} of the API, in a few words`).join("\n");
    const cut = chunkNote(note(`# Reactive\n\n${prose}\n\nThe API has a few limitations:\n\n${items}\n`));
    const opener = cut.find((c) => c.text.includes("The API has a few limitations:"))!;
    expect(opener.text).toContain("- limitation 0 of the API");
    expect(cut.every((c) => countWords(c.text.replace(/^#+ .*$/gm, "")) >= 30)).toBe(true);
  });
  it("cuts a long list that holds code between its items, keeping each item and its code whole", () => {
    // an API page: one list whose items each hold a code block, 600 words in all
    const item = (name: string) =>
      `- **${name}**\n\n  What ${name} does, in a sentence of plain words.\n\n  \`\`\`ts\n${Array.from(
        { length: 12 },
        (_, i) => `  const ${name}${i} = call(${i}, first, second, third, fourth);`,
      ).join("\n")}\n  \`\`\`\n`;
    const names = ["Type", "Details", "Example", "Caveats"];
    const text = `# watch()\n\n${names.map(item).join("\n")}`;
    const chunks = chunkNote(note(text));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.meta.word_count).toBeLessThanOrEqual(200 + 30);
    // every item, with its fence, lies in exactly one chunk, in order, and the chunks read as the note does
    for (const n of names)
      expect(chunks.filter((c) => c.text.includes(`- **${n}**`) && c.text.includes(`const ${n}11`))).toHaveLength(1);
    expect(chunks.map((c) => c.text).join("\n\n")).toBe(text.trim());
    // a short list with code stays one passage, written as it was
    const short = "# Setup\n\n- Install:\n  ```sh\n  npm i\n  ```\n- Run it.\n";
    expect(chunkNote(note(short)).map((c) => c.text)).toEqual([short.trim()]);
  });

  it("keeps a code block whole up to maxBlockWords and cuts a longer one at line ends", () => {
    const lines = Array.from({ length: 300 }, (_, i) => `step ${i} of code`);
    const chunks = chunkNote(note(`# C\n\n\`\`\`\n${lines.join("\n")}\n\`\`\`\n`), {
      maxWords: 200,
      maxBlockWords: 500,
    });
    expect(chunks.length).toBeGreaterThan(1);
    // under maxWords, or under maxWords + minWords where a short last piece joined the one before
    for (const c of chunks) expect(c.meta.word_count).toBeLessThanOrEqual(200 + 30);
    // every line is in exactly one chunk, whole
    for (const l of lines) expect(chunks.filter((c) => c.text.split("\n").includes(l))).toHaveLength(1);
    expect(() => chunkNote(note("x"), { maxWords: 200, maxBlockWords: 100 })).toThrow(
      "vault-rag: maxBlockWords must be an integer of at least maxWords (200), got 100",
    );
  });

  it("keeps a table whole up to maxBlockWords, in a note and in a callout, and its header with its rows", () => {
    const rows = Array.from(
      { length: 15 },
      (_, i) => `| Formula${i} | Number | The mean of all numbers from input values ${i}. |`,
    );
    const table = ["| Name | Input | Description |", "| --- | --- | --- |", ...rows].join("\n");
    expect(countWords(table)).toBeGreaterThan(200);
    const intro = "A paragraph before the table that says what the formulas are for, long enough to stand on its own.";
    for (const text of [
      `# T\n\n${intro}\n\n${table}\n`,
      `# T\n\n${intro}\n\n> [!note] Formulas\n${table.replace(/^/gm, "> ")}\n`,
    ]) {
      const chunks = chunkNote(note(text), { maxWords: 200 });
      const holding = chunks.filter((c) => c.text.includes("Formula"));
      expect(holding).toHaveLength(1);
      expect(holding[0].text).toContain("| Name | Input | Description |");
      expect(holding[0].text).toContain("Formula14");
    }
  });

  it("merges a tiny section only under its own parent, and names a merged sibling in the breadcrumb", () => {
    const long = (w: string) => Array.from({ length: 60 }, (_, i) => `${w}${i}`).join(" ") + ".";
    const tiny = "Run the check once a week.";
    // B follows a subsection of its sibling A: merged there, its line and breadcrumb would say A > A1
    const nested = chunkNote(
      note(`## A\n\n${long("a")}\n\n### A1\n\n${long("b")}\n\n## B\n\n${tiny}\n\n## C\n\n${long("c")}\n`),
    );
    // so it goes on into its next sibling, and the breadcrumb names both
    expect(nested.map((c) => c.meta.section)).toEqual(["SMARS > A", "SMARS > A > A1", "SMARS > B · C"]);
    expect(nested[2]).toMatchObject({ text: `## B\n\n${tiny}\n\n## C\n\n${long("c")}`, meta: { start_line: 9 } });
    // after a sibling: merged into it, and named
    const siblings = chunkNote(note(`## A\n\n${long("a")}\n\n## B\n\n${tiny}\n`));
    expect(siblings.map((c) => c.meta.section)).toEqual(["SMARS > A · B"]);
    expect(siblings[0].text).toContain(`## B\n\n${tiny}`);
  });

  it("never leaves a template's tag line and empty heading as a passage of their own", () => {
    const body = "The choice depends on what you monitor while training, and on how noisy each curve is. ".repeat(3);
    // a tag line, then an empty heading, then the note's first section (a template many vaults use)
    const chunks = chunkNote(note(`#seed\n###### upstream:\n\n### Details:\n\n${body}\n`));
    // named from the empty heading it opens with, on into the section it is merged with
    expect(chunks.map((c) => c.meta.section)).toEqual(["SMARS > upstream: · Details:"]);
    expect(chunks[0].text).toMatch(/^#seed\n+###### upstream:\n\n### Details:\n\nThe choice/);
    expect(chunks[0].meta.start_line).toBe(1);
  });

  it("reads a heading of two lines as one line, and names no empty heading in a breadcrumb", () => {
    const body = "Orders flow from the order service to the inventory service through a topic. ".repeat(4);
    const setext = chunkNote(note(`Order flow (OrderCompleted)\nInventoryService\n---\n\n${body}\n`));
    expect(setext.map((c) => c.meta.section)).toEqual(["SMARS > Order flow (OrderCompleted) InventoryService"]);
    const empty = chunkNote(note(`#\n\n## 核心产品\n\n${body}\n`));
    expect(empty.map((c) => c.meta.section)).toEqual(["SMARS > 核心产品"]);
    expect(empty[0].embedText.split("\n")[0]).toBe("核心产品");
  });

  it("merges a tiny section into its next sibling under that sibling's headings, named before it", () => {
    const w = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ") + ".";
    // B's subsection still finds B as its parent, and joins it
    const nested = chunkNote(note(`## A\n\n${w(5)}\n\n## B\n\n${w(35)}\n\n### B1\n\n${w(5)}\n\n## C\n\n${w(100)}\n`));
    expect(nested.map((c) => [c.meta.section, c.meta.start_line, c.meta.end_line])).toEqual([
      ["SMARS > A · B", 1, 11],
      ["SMARS > C", 13, 15],
    ]);
    // the model reads the larger part's heading, not the tiny one's
    const big = chunkNote(note(`## Tiny\n\n${w(8)}\n\n## Main topic\n\n${w(180)}\n`));
    expect(big.map((c) => c.meta.section)).toEqual(["SMARS > Tiny · Main topic"]);
    expect(big[0].embedText.split("\n")[0]).toBe("Main topic");
    // siblings named in front stay named when the passage goes on below them
    const deeper = chunkNote(note(`### H0\n\ncable.\n\n# H1\n\n## H2\n\n## H3\n\n${w(80)}\n`));
    expect(deeper.map((c) => c.meta.section)).toEqual(["SMARS > H0 · H1 > H2 · H3"]);
  });

  it("reads a note's opening text with a near-empty section after it as the note's, not as that section's", () => {
    const chunks = chunkNote(
      note(
        "Tags:\n- [[Databases]]\n---\n- Atomicity\n- Consistency\n- Isolation\n- Durability\n---\n## References\n- \n",
      ),
    );
    expect(chunks.map((c) => c.meta.section)).toEqual(["SMARS"]);
    expect(chunks[0].text).toContain("## References");
  });

  it("cuts a passage of a few enormous words into pieces of at most MAX_CHUNK_CHARS, losing no text", () => {
    const word = "QUJD".repeat(50_000); // one word of 200,000 characters
    const minified = `\`\`\`js\n${"var a=1;".repeat(10_000)}\n\`\`\``; // a code block of one 80,000-character line
    const text = `# Blob\n\nA word: ${word} and more.\n\n${minified}\n\nThe end.\n`;
    const chunks = chunkNote(note(text));
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(MAX_CHUNK_CHARS);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil((word.length + minified.length) / MAX_CHUNK_CHARS));
    // every character but white space is there, in order
    const squeeze = (t: string) => t.replace(/\s+/g, "");
    expect(squeeze(chunks.map((c) => c.text).join(""))).toBe(squeeze(text));
    for (const c of chunks) {
      expect(c.meta.start_line).toBeGreaterThanOrEqual(1);
      expect(c.meta.end_line).toBeLessThanOrEqual(text.split("\n").length);
      expect(c.meta.start_line).toBeLessThanOrEqual(c.meta.end_line);
    }
  });

  it("keeps a numbered item's number with its text when a long list is cut", () => {
    // items of one 60-word sentence: a run of 200 words fills after the fourth item's number
    const item = (i: number) =>
      `${i}.  **Optimizer ${i}**: it adapts the learning rate of each parameter ${"from the gradients seen so far ".repeat(9)}` +
      "which suits sparse data.\n    ";
    const chunks = chunkNote(
      note(`## Optimizers\n\n${Array.from({ length: 12 }, (_, i) => item(i + 1)).join("\n")}\n`),
    );
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text).not.toMatch(/(^|\n)\s*\d+\.\s*$/); // no passage ends with a bare number
      expect(c.text.replace(/^## Optimizers\n\n/, "")).toMatch(/^(\d+\.\s+\*\*|\S)/);
    }
    expect(chunks.some((c) => /^\d+\.\s+\*\*Optimizer/m.test(c.text) && c.meta.start_line > 3)).toBe(true);
  });

  it("sizes Chinese and Japanese passages by their characters, and cuts them only at a sentence's end", () => {
    // six sections of about 75 characters: each a passage of its own, as sections of 37 English words
    // are (counted as space-separated words, each section would be one word, and all six one passage)
    const sentence = (i: number) => `ハラスメントには攻撃的な発言が含まれます（例${i}）。`;
    const three = (i: number) => sentence(i) + sentence(i + 10) + sentence(i + 20);
    const sections = Array.from({ length: 6 }, (_, i) => `## 規則${i}\n\n${three(i)}`).join("\n\n");
    expect(chunkNote(note(`# 行動規範\n\n${sections}\n`)).map((c) => c.meta.section)).toEqual(
      Array.from({ length: 6 }, (_, i) => `SMARS > 行動規範 > 規則${i}`),
    );
    // one paragraph of 40 sentences and no spaces: cut between sentences, each piece as written
    const paragraph = Array.from({ length: 40 }, (_, i) => sentence(i)).join("");
    const chunks = chunkNote(note(`# 長い段落\n\n${paragraph}\n`), { maxWords: 100 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      const body = c.text.replace(/^# .*\n\n/, "");
      expect(paragraph).toContain(body);
      expect(body.endsWith("。")).toBe(true);
      expect(c.meta.word_count).toBeLessThanOrEqual(100 + 30);
    }
  });

  it("cuts a table over maxBlockWords between rows, each piece under the table's header, and a row over it between words", () => {
    const header = "| Name | Value | Note |\n| --- | --- | --- |";
    const rows = Array.from({ length: 400 }, (_, i) => `| row${i} | value ${i} | some more words here |`);
    const chunks = chunkNote(note(`# T\n\n${header}\n${rows.join("\n")}\n`), { maxWords: 200, maxBlockWords: 500 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.text).toContain(header);
      expect(c.meta.word_count).toBeLessThanOrEqual(200 + 30);
    }
    // every row in exactly one piece, and the piece's lines are the rows' own (the header is repeated, not claimed)
    for (const r of rows) expect(chunks.filter((c) => c.text.includes(`${r}\n`) || c.text.endsWith(r))).toHaveLength(1);
    expect(chunks[1].meta.start_line).toBeGreaterThan(4);
    // one row of 50,000 columns: cut between words, not one passage of 100,000 words
    const wide = `| ${Array.from({ length: 50_000 }, (_, i) => `c${i}`).join(" | ")} |`;
    const cut = chunkNote(note(`# W\n\n${wide}\n| ${"--- | ".repeat(50_000)}\n`), {
      maxWords: 200,
      maxBlockWords: 500,
    });
    expect(Math.max(...cut.map((c) => c.meta.word_count))).toBeLessThanOrEqual(200 + 30);
  });

  it("cuts Chinese or Japanese without sentence marks every maxWords, and keeps runs of marks with their sentence", () => {
    const run = "漢字かな".repeat(5_000); // 20,000 characters and no 。
    const chunks = chunkNote(note(`# 長い\n\n${run}\n`), { maxWords: 200 });
    expect(chunks.length).toBeGreaterThan(40);
    for (const c of chunks) expect(c.meta.word_count).toBeLessThanOrEqual(200 + 30);
    expect(chunks.map((c) => c.text.replace(/^# 長い\n\n/, "")).join("")).toBe(run);
    // a sentence with a run of marks is one passage, not one per mark
    expect(chunkNote(note(`# 文\n\n${"漢".repeat(100)}${"。".repeat(10_000)}\n`))).toHaveLength(1);
  });

  it("puts an empty heading with its next sibling, and tells apart two headings that read alike", () => {
    const long = (w: string) => `${w} `.repeat(60).trim();
    // # B has no text: it goes with # C, not at the end of A > A1
    const bare = chunkNote(note(`# A\n\n${long("a")}\n\n## A1\n\n${long("b")}\n\n# B\n\n# C\n\n${long("c")}\n`));
    expect(bare.map((c) => [c.meta.section, c.meta.start_line])).toEqual([
      ["SMARS > A", 1],
      ["SMARS > A > A1", 5],
      ["SMARS > C", 9],
    ]);
    // the second # A is another section: its tiny ## Y is no sibling of the first A's ## X
    const twice = chunkNote(note(`# A\n\n${long("a")}\n\n## X\n\n${long("x")}\n\n# A\n\n## Y\n\nA short line.\n`));
    expect(twice.map((c) => [c.meta.section, c.meta.start_line])).toEqual([
      ["SMARS > A", 1],
      ["SMARS > A > X", 5],
      ["SMARS > A > Y", 9],
    ]);
    // at most five merged siblings are named
    let many = `## A\n\n${long("a")}\n\n`;
    for (let i = 0; i < 30; i++) many += `## H${i}\n\nshort ${i}.\n\n`;
    expect(chunkNote(note(many))[0].meta.section).toBe("SMARS > A · H0 · H1 · H2 · H3 · H4 · 25 more");
  });

  it("reads a first heading that repeats the file name as the note's own title in the breadcrumb", () => {
    const n = parseNote(
      "git/check-if-a-file-has-changed.md",
      "# Check If A File Has Changed\n\nSome text here about git diff and its exit code.\n\n## With quiet\n\nMore about the --quiet flag, which implies --exit-code.\n",
      0,
    );
    expect(chunkNote(n, { minWords: 0 }).map((c) => c.meta.section)).toEqual([
      "Check If A File Has Changed",
      "Check If A File Has Changed > With quiet",
    ]);
    // a file name with a decomposed accent (as macOS may write it) and its heading typed composed
    const accented = parseNote(
      "Cafe\u0301 notes.md",
      "# Caf\u00e9 notes\n\nEspresso, and the grinder's settings.\n",
      0,
    );
    expect(chunkNote(accented).map((c) => c.meta.section)).toEqual(["Caf\u00e9 notes"]);
  });

  it("handles empty notes, frontmatter-only notes and CRLF", () => {
    expect(chunkNote(note(""))).toEqual([]);
    expect(chunkNote(note("---\n\n---\n"))).toEqual([]);
    // a note of properties alone is one chunk of them, as written, with their lines
    const props = chunkNote(note('---\r\n\r\ntags: [a]\r\nauthor: "[[Kevin Kelly]]"\r\nyear: 1994\r\n\r\n---\r\n'));
    expect(props.map((c) => [c.text, c.meta.section, c.meta.start_line, c.meta.end_line, c.meta.word_count])).toEqual([
      ['tags: [a]\nauthor: "[[Kevin Kelly]]"\nyear: 1994', "SMARS", 3, 5, 7],
    ]);
    expect(props[0].embedText).toBe('\ntags: [a]\nauthor: "[[Kevin Kelly]]"\nyear: 1994');
    // long properties are cut as a body is: runs of whole lines, a long line in runs of its words
    const long = Array.from({ length: 450 }, (_, i) => `w${i}`).join(" ");
    const cut = chunkNote(note(`---\ntitle: Dune\ndescription: ${long}\nyear: 1965\n---\n`));
    expect(cut.map((c) => [c.meta.start_line, c.meta.word_count])).toEqual([
      [2, 2],
      [3, 200],
      [3, 200],
      [3, 51],
      [4, 2],
    ]);
    expect(cut.map((c) => c.text).join(" ")).toBe(`title: Dune description: ${long} year: 1965`);
    // invalid YAML is no text (the note is indexed without it), and properties beside a body are not chunk text
    expect(chunkNote(note("---\ntags: [a\n---\n"))).toEqual([]);
    expect(chunkNote(note("---\ntags: [a]\n---\nThe body.\n")).map((c) => c.text)).toEqual(["The body."]);
    const crlf = chunkNote(
      note("# A\r\n\r\nText of section A here.\r\n\r\n# B\r\n\r\nText of section B here that is long enough.\r\n"),
    );
    expect(crlf.every((c) => !c.text.includes("\r"))).toBe(true);
    expect(crlf.map((c) => c.meta.start_line)).toEqual([1]);
  });

  it("chunks a 5 MB note completely (its time is measured by npm run bench)", () => {
    let s = "";
    let i = 0;
    while (s.length < 5_000_000)
      s += `## Section ${i++}\n\nSome text about motors and wiring with a few more words in it. Another sentence follows.\n\n- item\n- item\n\n`;
    const chunks = chunkNote(note(s), { minWords: 0 });
    expect(chunks.length).toBe(i);
    expect(chunks[i - 1].meta.section).toBe(`SMARS > Section ${i - 1}`);
    expect(chunks[i - 1].meta.end_line).toBe(i * 7 - 1);
  });

  it("counts words as /\\S+/ does, and Chinese or Japanese at one word per two characters (property)", () => {
    const CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f";
    const segment = new RegExp(`[${CJK}]+|[^${CJK}]+`, "g");
    // the reference: punctuation of those scripts is a space; in each word, a run of their
    // characters counts half its length (rounded up), and each other stretch one
    const reference = (s: string) =>
      (s.replace(/[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]/g, " ").match(/\S+/g) ?? []).reduce(
        (n, word) =>
          n +
          (word.match(segment) ?? []).reduce(
            (m, seg) => m + (new RegExp(`^[${CJK}]`).test(seg) ? Math.ceil(seg.length / 2) : 1),
            0,
          ),
        0,
      );
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(..."a é \t \n \u00a0 \u3000 \u2003 \u0085 語 ラ 。 ！ \ufeff".split(" "), " "),
          maxLength: 40,
        }),
        (s) => {
          expect(countWords(s)).toBe(reference(s));
        },
      ),
      { numRuns: RUNS },
    );
    expect(countWords("two  words\n")).toBe(2);
    expect(countWords("醤油ラーメン is good")).toBe(5);
  });

  it("takes the last words for overlap exactly as split-and-join does (property)", () => {
    const unit = fc.constantFrom(
      "a",
      "é",
      " ",
      " ",
      "\t",
      "\n",
      "\u00a0",
      "\u3000",
      "\u2003",
      "\u0085",
      "語",
      "\ufeff",
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.integer({ min: 1, max: 8 }), (s, n) => {
        const words = s.split(/\s+/).filter(Boolean);
        const tail = words.slice(Math.max(0, words.length - n));
        expect(lastWords(s, n)).toEqual({
          tail: tail.join(" "),
          count: tail.length,
          all: tail.length === words.length,
        });
      }),
      { numRuns: RUNS * 10 },
    );
  });

  it("gives the same ids for the same text and different ids for other text", () => {
    const a = chunkNote(note("# A\n\nHello world of notes.\n"));
    const b = chunkNote(note("# A\n\nHello world of notes.\n"));
    const c = chunkNote(note("# A\n\nHello other world.\n"));
    expect(a.map((x) => x.id)).toEqual(b.map((x) => x.id));
    expect(a[0].id).not.toBe(c[0].id);
  });
});

const mdLine = fc.oneof(
  fc.constantFrom(
    "# Title",
    "## Sub",
    "### Deep",
    "",
    "- item",
    "> quote",
    "> [!note] callout",
    "| a | b |",
    "---",
    "1. one",
    "    indented code",
  ),
  fc.lorem({ maxCount: 30 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom("```", "~~~", "````", "```js"),
);

describe("chunker properties", () => {
  it("never throws, covers every non-whitespace character, never splits inside a fence, ids deterministic", () => {
    let fencesChecked = 0;
    fc.assert(
      // at the defaults, and at a size small enough that most fences are larger than a chunk (a fence
      // under maxWords could not be split even if fences were not kept whole)
      fc.property(fc.array(mdLine, { maxLength: 120 }), fc.constantFrom({}, { maxWords: 8 }), (lines, opts) => {
        const body = lines.join("\n");
        const n = note(body);
        const chunks = chunkNote(n, opts);
        // coverage: every body line (whitespace aside) appears in the chunks, in order (overlap may repeat text)
        const joined = chunks.map((c) => c.text.replace(/\s+/g, "")).join("");
        let at = 0;
        for (const line of n.body.split("\n")) {
          for (const ch of line.replace(/\s+/g, "")) {
            const found = joined.indexOf(ch, at);
            expect(found, `body line ${JSON.stringify(line)} is missing or out of order`).toBeGreaterThanOrEqual(0);
            at = found + 1;
          }
        }
        // fences: the code of every closed top-level fence is whole in one chunk
        for (const t of md.parse(n.body, {})) {
          if (t.type !== "fence" || t.level !== 0 || !t.content.trim()) continue;
          expect(
            chunks.some((c) => c.text.includes(t.content.trimEnd())),
            `fence split: ${JSON.stringify(t.content.slice(0, 60))}`,
          ).toBe(true);
          fencesChecked++;
        }
        expect(chunkNote(n, opts).map((c) => c.id)).toEqual(chunks.map((c) => c.id));
      }),
      { numRuns: RUNS },
    );
    expect(fencesChecked, "the generated notes held closed fences").toBeGreaterThan(0);
  });

  it("keeps a closed fence whole in exactly one chunk", () => {
    fc.assert(
      fc.property(
        fc.array(fc.lorem({ maxCount: 20 }), { minLength: 1, maxLength: 40 }),
        // up to 600 one-word lines: often over maxWords (200), where only keeping fences whole stops a
        // split, and always under maxBlockWords (1,000)
        fc.integer({ min: 1, max: 600 }),
        (paras, codeLines) => {
          const code = Array.from({ length: codeLines }, (_, i) => `c${i}x`).join("\n");
          const mid = Math.floor(paras.length / 2);
          const body = [...paras.slice(0, mid), "```", code, "```", ...paras.slice(mid)].join("\n\n");
          const chunks = chunkNote(note(body));
          const holders = chunks.filter((c) => c.text.includes("c0x\n") || c.text.includes("c0x"));
          const full = holders.filter((c) => c.text.includes(`c${codeLines - 1}x`));
          expect(full).toHaveLength(1);
          for (const c of chunks) expect((c.text.match(/^```/gm) ?? []).length % 2).toBe(0);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("labels every passage by headings its lines lie under: their own, an ancestor's, or a sibling it names (property)", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ") + ".";
    const section = fc.record({
      level: fc.integer({ min: 1, max: 4 }),
      words: fc.constantFrom(0, 1, 3, 10, 29, 35, 80, 199, 230),
    });
    fc.assert(
      fc.property(fc.constantFrom(0, 2, 40), fc.array(section, { minLength: 1, maxLength: 8 }), (lead, sections) => {
        const text = [
          ...(lead ? [words(lead), ""] : []),
          ...sections.flatMap((x, i) => [`${"#".repeat(x.level)} H${i}`, "", ...(x.words ? [words(x.words), ""] : [])]),
        ].join("\n");
        const lines = text.split("\n");
        // the reference: each line's headings, as a reader of the note sees them
        const stacks: string[][] = [];
        const open: { level: number; name: string }[] = [];
        for (const line of lines) {
          const m = /^(#+) (.*)$/.exec(line);
          if (m) {
            while (open.length && open[open.length - 1].level >= m[1].length) open.pop();
            open.push({ level: m[1].length, name: m[2] });
          }
          stacks.push(m ? [] : open.map((h) => h.name));
        }
        for (const c of chunkNote(note(text, "n/zzz.md"))) {
          // each place of the breadcrumb names its heading and the siblings merged with it
          const places = c.meta.section
            .split(" > ")
            .slice(1)
            .map((p) => p.split(" · "));
          for (let ln = c.meta.start_line; ln <= c.meta.end_line; ln++) {
            const st = stacks[ln - 1];
            if (!st.length || !lines[ln - 1].trim()) continue;
            let k = 0;
            while (k < st.length && k < places.length && places[k].includes(st[k])) k++;
            // an ancestor's text, the section's own or a subsection's, or a named sibling's
            expect(
              k === st.length || k === places.length,
              `${c.meta.section}: line ${ln} under ${st.join(" > ")}`,
            ).toBe(true);
          }
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });
});
