import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flatBody, highlightTerms, mathSpans, snippet, termPattern } from "../../src/shared/snippet-text.js";

/** Whether every `$` of a snippet belongs to a whole formula of it: none shows as a stray dollar sign. */
const dollarsInFormulas = (shown: string) => {
  const spans = mathSpans(shown);
  return [...shown.matchAll(/\$/g)].every((d) => spans.some((f) => f.start <= d.index && d.index < f.end));
};

describe("formulas in snippets ($…$ and $$…$$, as the web app renders them)", () => {
  it("finds inline and display formulas, not prices, code spans or escaped dollar signs", () => {
    expect(mathSpans("so $a \\rightarrow b$ and $$A = P D P^{-1}$$.")).toEqual([
      { start: 3, end: 20, tex: "a \\rightarrow b", display: false },
      { start: 25, end: 43, tex: "A = P D P^{-1}", display: true },
    ]);
    expect(mathSpans("from $5 to $10, and $ 3 $ apples")).toEqual([]);
    expect(mathSpans("run `echo $HOME:$PATH` then \\$x\\$ twice")).toEqual([]);
    // a dollar escaped inside a formula is part of it
    expect(mathSpans("cost $c = 5\\$$ each").map((f) => f.tex)).toEqual(["c = 5\\$"]);
  });

  it("keeps a formula as written while the Markdown around it is read", () => {
    expect(flatBody("For **all** $\\|A\\|_2 = \\max_i |\\lambda_i|$ and a\\_b")).toBe(
      "For all $\\|A\\|_2 = \\max_i |\\lambda_i|$ and a_b",
    );
    expect(flatBody("$$\n\\sum_{i=1}^n **x_i**\n$$\n\nthen [[Note|text]]")).toBe(
      "$$ \\sum_{i=1}^n **x_i** $$ then text",
    );
  });

  it("starts a snippet centred beyond a formula at the formula, not in its middle", () => {
    const formula =
      "$\\|A\\|_2 = \\max_i |\\lambda_i| \\quad \\text{over all the eigenvalues } \\lambda_i \\text{ of } A$";
    const text = `${"Some words before the formula. ".repeat(8)}For a symmetric matrix ${formula} which is the spectral radius.`;
    const shown = snippet(text, 140, { pattern: termPattern(highlightTerms("spectral radius")) });
    expect(shown.startsWith(`…${formula} which is the spectral radius`)).toBe(true);
  });

  it("ends a snippet before a formula it would cut, or after the formula when that is all it shows", () => {
    const text = "The eigenvalues are the roots of the polynomial $\\det(A - \\lambda I) = 0$ for a square matrix.";
    expect(snippet(text, 60)).toBe("The eigenvalues are the roots of the polynomial…");
    const long = "$\\det(A - \\lambda I) = \\prod_i (\\lambda_i - \\lambda) = 0$ always.";
    expect(snippet(long, 20)).toBe("$\\det(A - \\lambda I) = \\prod_i (\\lambda_i - \\lambda) = 0$…");
  });

  it("shows no stray dollar sign at any width or centre (property)", () => {
    const word = fc.constantFrom("matrix", "eigenvalue", "the", "of", "norm", "radius", "value");
    const formula = fc
      .array(fc.constantFrom("\\lambda", "A", "=", "x_i", "\\sum", "+", "\\text{ of }", "2"), {
        minLength: 1,
        maxLength: 12,
      })
      .map((parts) => `$${parts.join(" ")}$`);
    const text = fc
      .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: formula }), { maxLength: 60 })
      .map((parts) => parts.join(" "));
    fc.assert(
      fc.property(text, fc.integer({ min: 10, max: 200 }), word, (t, width, q) => {
        expect(dollarsInFormulas(snippet(t, width))).toBe(true);
        expect(dollarsInFormulas(snippet(t, width, { pattern: termPattern([q]) }))).toBe(true);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });
});
