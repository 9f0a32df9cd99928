import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { highlightTerms, nothingToShow, snippet, termPattern } from "../../src/shared/snippet-text.js";
import { STOPWORDS } from "../../src/shared/stopwords.js";

/** The text a pattern marks, in order. */
const marked = (text: string, query: string) => text.match(termPattern(highlightTerms(query))!) ?? [];

describe("highlighting and snippets of CJK text (shared by the CLI and the web app)", () => {
  it("marks the bigrams the keyword index matched, not only the whole query", () => {
    // the passage holds 图片 and 整理 apart, never 图片整理 as written
    expect(marked("这里是旅行的图片，下次再说。", "图片整理")).toEqual(["图片"]);
    expect(marked("整理图片的方法", "图片整理")).toEqual(["整理", "图片"]);
    // the whole run, where it is written so, is one mark
    expect(marked("如何图片整理呢", "图片整理")).toEqual(["图片整理"]);
    // Japanese: the bigrams the keyword query ranks by, not the particle から
    expect(marked("東京の天気と京都の旅", "京都から東京へ")).toEqual(["東京", "京都"]);
  });

  it("centres a long passage's snippet on the part of the query it matched", () => {
    const text = `## 旅行\n\n${"今天天气很好，我们去公园散步。".repeat(12)}最后把所有图片放进相册。`;
    const shown = snippet(text, 60, { pattern: termPattern(highlightTerms("图片整理")) });
    expect(shown.startsWith("…")).toBe(true);
    expect(shown).toContain("图片");
  });

  it("never shows an empty snippet: a heading and images read as the breadcrumb", () => {
    const text = "## 敏捷组织\n\n![](assets/team-1.png)\n![](assets/team-2.png)\n";
    expect(snippet(text, 100, { fallback: "组织 > 敏捷组织" })).toBe("组织 > 敏捷组织");
    // no breadcrumb given: the passage's own headings
    expect(snippet(text, 100)).toBe("敏捷组织");
  });

  it("shows the note's first words where the passage, its headings and its breadcrumb show nothing", () => {
    const images = "![](assets/team-1.png)\n![](assets/team-2.png)\n";
    const lead = "团队照片，2024 年春天。";
    // a blank title: the breadcrumb is a zero-width space, nothing a reader sees
    expect(nothingToShow(images, "\u200b")).toBe(true);
    expect(snippet(images, 100, { fallback: "\u200b", lead })).toBe(lead);
    expect(snippet(images, 100, { fallback: "", lead })).toBe(lead);
    // a breadcrumb or a heading to show comes first
    expect(nothingToShow(images, "组织")).toBe(false);
    expect(snippet(images, 100, { fallback: "组织", lead })).toBe("组织");
    expect(snippet(`## 敏捷组织\n\n${images}`, 100, { fallback: "", lead })).toBe("敏捷组织");
  });
});

describe("the ASCII paths of highlighting and snippets, against the Unicode-class reference", () => {
  // the reference: every query read with Unicode property classes, as any non-ASCII query is
  const referenceWords = (query: string) =>
    query
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? [];
  const asciiText = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) });

  it("reads an ASCII query's terms as the Unicode classes read them", () => {
    // the reference: sized words, stop words dropped unless nothing else is left, each once, 64 at most
    const reference = (query: string) => {
      const sized = referenceWords(query).filter((w) => w.length > 1 && w.length <= 64);
      const kept = sized.filter((w) => !STOPWORDS.has(w));
      return [...new Set(kept.length ? kept : sized)].slice(0, 64);
    };
    fc.assert(
      fc.property(asciiText, (query) => {
        expect(highlightTerms(query)).toEqual(reference(query));
      }),
    );
    expect(highlightTerms("Motor-driver's 2 DRV8833 boards")).toEqual(["motor-driver", "drv8833", "boards"]);
  });

  it("finds a passage visible or blank as the Unicode classes do", () => {
    const blankish = fc.string({ unit: fc.constantFrom(" ", "\n", "\t", "\u00a0", "\u200b", "!", "é", "#", "a") });
    fc.assert(
      fc.property(blankish, (text) => {
        const shown = snippet(text, Infinity);
        expect(nothingToShow(text)).toBe(!/[\p{L}\p{N}\p{P}\p{S}]/u.test(shown));
      }),
    );
  });

  it("marks an ASCII term as a word, and a CJK term anywhere", () => {
    expect("Two motors, one motorway".match(termPattern(["motor"])!)).toEqual(["motors"]);
    expect("整理图片的方法 and photos".match(termPattern(["图片", "photo"])!)).toEqual(["图片", "photos"]);
  });
});
