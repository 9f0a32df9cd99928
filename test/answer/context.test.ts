import { describe, expect, it } from "vitest";
import {
  assembleContext,
  checkCitations,
  CONTEXT_DEFAULTS,
  estimateTokens,
  obsidianLink,
  SYSTEM_PROMPT,
} from "../../src/answer/index.js";
import type { Hit } from "../../src/search/index.js";
import { meta } from "../store/helpers.js";

const hit = (path: string, ordinal: number, text: string, label = `${path} > S${ordinal}`): Hit => ({
  id: `${path}#${ordinal}`,
  text,
  path,
  title: path,
  section: label,
  label,
  distance: 0.2,
  score: 0.8,
  meta: meta({ path, ordinal, start_line: ordinal * 10 + 1, end_line: ordinal * 10 + 9 }),
});

describe("context assembly", () => {
  it("numbers sources in rank order and merges adjacent chunks of one note, writing the overlap once", () => {
    const hits = [
      hit("a.md", 1, "one two three four five six"),
      hit("b.md", 0, "bread flour water"),
      hit("a.md", 2, "five six seven eight"),
    ];
    const { sources, prompt, system } = assembleContext("what?", hits);
    expect(system).toBe(SYSTEM_PROMPT);
    expect(sources.map((s) => [s.n, s.path, s.start_line, s.end_line])).toEqual([
      [1, "a.md", 11, 29],
      [2, "b.md", 1, 9],
    ]);
    expect(sources[0].text).toBe("one two three four five six\nseven eight");
    // the merged source is named for both passages, in its label and its section alike
    expect([sources[0].label, sources[0].section]).toEqual(["a.md > S1 · S2", "a.md > S1 · S2"]);
    expect(prompt).toBe(
      "Sources:\n\n[1] a.md > S1 · S2 — a.md\none two three four five six\nseven eight\n\n[2] b.md > S0 — b.md\nbread flour water\n\nQuestion: what?",
    );
    // the best of them ranked first, as it may be the second in the note: the span is in note order
    const later = assembleContext("what?", [hit("p.md", 3, "pins"), hit("p.md", 2, "power"), hit("p.md", 4, "pins")]);
    expect(later.sources[0].label).toBe("p.md > S2 · S3 · S4");
    // no heading is named under one it is not under: a subsection is held by its section, other runs go from … to
    const span = (...labels: string[]) =>
      assembleContext(
        "q",
        labels.map((l, i) => hit("t.md", i, `text ${i}`, l)),
      ).sources[0].label;
    expect(span("T", "T > A")).toBe("T > A");
    expect(span("T", "T > A", "T > B")).toBe("T > A · B");
    expect(span("T > A", "T > A > A1 > x")).toBe("T > A");
    expect(span("T > A > A1", "T > B")).toBe("T > A > A1 … T > B");
    expect(span("T > A", "T > A", "T > B")).toBe("T > A · B");
  });

  it("drops the weakest sources first to fit the budget and never cuts a source", () => {
    const long = (w: string) => Array.from({ length: 200 }, () => w).join(" ");
    const hits = [hit("a.md", 0, long("alpha")), hit("b.md", 0, long("beta")), hit("c.md", 0, long("gamma"))];
    const budget = estimateTokens(SYSTEM_PROMPT) + estimateTokens("q") + 2 * (estimateTokens(long("x")) + 12);
    const { sources, dropped } = assembleContext("q", hits, { budgetTokens: budget });
    expect(sources.map((s) => s.path)).toEqual(["a.md", "b.md"]);
    expect(dropped).toBe(1);
    expect(sources.every((s) => s.text.split(" ").length === 200)).toBe(true);
    // the best source always stays, whole: the prompt's estimate then says it is over the budget
    const one = assembleContext("q", hits, { budgetTokens: 10 });
    expect(one.sources).toHaveLength(1);
    expect(one.tokens).toBe(estimateTokens(SYSTEM_PROMPT) + estimateTokens("q") + estimateTokens(long("x")) + 12);
    expect(one.tokens).toBeGreaterThan(10);
  });

  it("keeps to the default budget when none is given, also as undefined (an ask without --budget)", () => {
    const long = (w: string) => Array.from({ length: 200 }, () => w).join(" ");
    // 20 sources of 200 words: about 5,700 tokens, over the 3,000 of the default
    const hits = Array.from({ length: 20 }, (_, i) => hit(`n${i}.md`, 0, long(`w${i}`)));
    for (const options of [{}, { budgetTokens: undefined }]) {
      const c = assembleContext("q", hits, options);
      expect(c.tokens).toBeLessThanOrEqual(CONTEXT_DEFAULTS.budgetTokens);
      expect(c.sources.length + c.dropped).toBe(20);
      expect(c.dropped).toBeGreaterThan(0);
    }
  });
});

describe("citations", () => {
  it("keeps valid citations in order of use and flags numbers that name no source", () => {
    expect(checkCitations("Two motors [1][3], see [7], and [2, 3] again [1].", 5)).toEqual({
      cited: [1, 3, 2],
      invalid: [7],
    });
    expect(checkCitations("No sources here.", 3)).toEqual({ cited: [], invalid: [] });
    expect(checkCitations("[0] is not a source", 3)).toEqual({ cited: [], invalid: [0] });
  });

  it("links to the note in Obsidian", () => {
    expect(obsidianLink("my vault", "robots/SMARS Quad.md")).toBe(
      "obsidian://open?vault=my%20vault&file=robots%2FSMARS%20Quad",
    );
  });
});
