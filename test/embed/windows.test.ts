import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { passageWindows, useLiteEmbedder, windowOptions } from "../../src/embed/index.js";
import { loadTokenizer } from "../../src/embed/use-lite/model.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const tokenizer = loadTokenizer();
const count = (t: string) => tokenizer.encode(t).length;
const words = (t: string) => t.split(/\s+/).filter(Boolean);

describe("passage windows", () => {
  it("gives a passage the model reads whole as it is", () => {
    const text = "Sourdough > Starter\nFeed the starter twice a day with equal weights of flour and water.";
    expect(passageWindows(text, { maxTokens: 128, countTokens: count })).toEqual([text]);
  });

  it("cuts a long passage into windows the bundled model reads whole, each opening with the breadcrumb", () => {
    const body = Array.from(
      { length: 60 },
      (_, i) => `Step ${i}: run \`git diff --exit-code README.md\` and check $? = ${i % 2}.`,
    ).join(" ");
    const text = `Check If A File Has Changed\n${body}`;
    expect(count(text)).toBeGreaterThan(128 * 3);
    const ws = passageWindows(text, { maxTokens: 128, countTokens: count, overlapTokens: 16 });
    expect(ws.length).toBeGreaterThan(3);
    for (const w of ws) {
      expect(count(w)).toBeLessThanOrEqual(128);
      expect(w.startsWith("Check If A File Has Changed\n")).toBe(true);
    }
    // consecutive windows overlap, and together they hold every word in order
    const seen = ws.map((w) => words(w.slice(w.indexOf("\n") + 1)));
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1]).toContain(seen[i][0]);
    expect([...new Set(seen.flat())].length).toBe(new Set(words(body)).size);
  });

  it("covers every word, in order, within the window, for any text (property)", () => {
    const word = fc.oneof(
      fc.constantFrom("a", "motor", "DRV8833", "`x`", "--flag", "über", "語", "3.3V;"),
      fc.string({ minLength: 1, maxLength: 12 }).filter((w) => !/\s/.test(w)),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 8, max: 64 }),
        fc.integer({ min: 0, max: 8 }),
        (ws, max, overlap) => {
          const text = `Head line\n${ws.join(" ")}`;
          const out = passageWindows(text, { maxTokens: max, countTokens: count, overlapTokens: overlap });
          const plain = (w: string) => (w.startsWith("Head line\n") ? w.slice("Head line\n".length) : w);
          // each window's words are a run of the passage's words that starts after the previous
          // window's start and no later than its end; together the runs reach the last word
          let prevStart = -1;
          let end = 0;
          for (const w of out) {
            const part = words(plain(w));
            let start = -1;
            for (let k = Math.min(end, ws.length - part.length); k > prevStart; k--) {
              const same = ws.slice(k, k + part.length).join("\u0000") === part.join("\u0000");
              // a word longer than the window is read as far as it fits
              const cut = part.length === 1 && ws[k].startsWith(part[0]);
              if (same || cut) {
                start = k;
                break;
              }
            }
            expect(start).toBeGreaterThan(prevStart);
            prevStart = start;
            end = Math.max(end, start + part.length);
            expect(count(w)).toBeLessThanOrEqual(max);
          }
          expect(end).toBe(ws.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("reads as much of a word longer than the window as fits, and does not crawl towards it word by word", () => {
    const url = "https://example.com/" + "a%20b".repeat(60);
    const text = `Pager\n${Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ")} ${url} the end.`;
    const ws = passageWindows(text, { maxTokens: 64, countTokens: count, overlapTokens: 16 });
    for (const w of ws) expect(count(w)).toBeLessThanOrEqual(64);
    expect(ws.some((w) => w.includes("https://example.com/a%20b"))).toBe(true);
    expect(ws.length).toBeLessThanOrEqual(Math.ceil(count(text) / (64 - 16)) + 2);
  });

  it("asks for windows only from a model with a local tokenizer", () => {
    expect(windowOptions(useLiteEmbedder())?.maxTokens).toBe(128);
    const server = { ...useLiteEmbedder(), countTokens: undefined };
    expect(windowOptions(server)).toBeUndefined();
  });
});
