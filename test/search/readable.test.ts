import { describe, expect, it } from "vitest";
import { searchProfile } from "../../src/embed/index.js";
import { fuse, modelCannotRead, readsEnglishOnly, unreadPassages, withSearchDefaults } from "../../src/search/index.js";
import type { ScoredRecord } from "../../src/store/index.js";

const MODEL = "universal-sentence-encoder-lite";

describe("what the bundled model cannot read, passage by passage", () => {
  it("is a passage in another language; a table of pins or a code block in English prose is read", () => {
    const french =
      "Recette de ma grand-mère : 250 g de farine, 4 œufs, 500 ml de lait, une pincée de sel et 50 g de beurre fondu.";
    expect(modelCannotRead(MODEL, french)).toBe(true);
    // acronyms are no language: the words around them are English
    const pins = [
      "| Pin | Name | Functions |",
      "| 1 | GP0 | UART0 TX, I2C0 SDA, SPI0 RX |",
      "| 2 | GP1 | UART0 RX, I2C0 SCL, SPI0 CSn |",
      "| 3 | GND | ground |",
    ].join("\n");
    expect(modelCannotRead(MODEL, pins)).toBe(false);
    // code is no language either, fenced or inline
    const code = [
      "```bash",
      "❯ git log --reverse --format='%an <%ae>' | awk '!seen[$0]++'",
      "Joel Hooks <joelhooks@gmail.com> johnlindquist <johnlindquist@gmail.com>",
      "```",
    ].join("\n");
    expect(modelCannotRead(MODEL, code)).toBe(false);
    expect(modelCannotRead(MODEL, `${code}\n\n${french}`)).toBe(true);
    expect(modelCannotRead(MODEL, "Run `relativeCoords xPos yPos lorem ipsum dolor` to see them")).toBe(false);
  });

  it("is judged per passage, and never for a model that reads other languages", () => {
    const passages = [
      { id: "a", text: "Il TCP garantisce la consegna ordinata dei pacchetti tra due host della rete." },
      { id: "b", text: "TCP resends the packets the other side did not acknowledge before the timeout." },
    ];
    expect([...unreadPassages(MODEL, passages)]).toEqual(["a"]);
    expect(unreadPassages("nomic-embed-text", passages).size).toBe(0);
  });
});

const rec = (id: string, distance: number): ScoredRecord =>
  ({ id, text: id, distance, meta: { path: `${id}.md`, title: id, section: "" } }) as unknown as ScoredRecord;

describe("which models the rule judges: the languages of each model's profile", () => {
  it("judges the models whose profile says English only, and trusts the others", () => {
    const italian = "Il protocollo TCP garantisce la consegna dei pacchetti nell'ordine in cui sono stati inviati";
    for (const model of [
      "universal-sentence-encoder-lite",
      "sentence-transformers/all-MiniLM-L6-v2",
      "Xenova/all-MiniLM-L6-v2",
    ]) {
      expect(searchProfile(model).languages, model).toEqual(["en"]);
      expect(readsEnglishOnly(model), model).toBe(true);
      expect(modelCannotRead(model, italian), model).toBe(true);
    }
    for (const model of ["Xenova/bge-m3", "nomic-embed-text:latest"]) {
      expect(searchProfile(model).languages, model).toBe("any");
      expect(readsEnglishOnly(model), model).toBe(false);
      expect(modelCannotRead(model, italian), model).toBe(false);
    }
  });
});

describe("a fusion with passages the model cannot read", () => {
  it("ranks them by their words alone, where the dense half would weigh nothing", () => {
    const dense = [rec("en1", 0.2), rec("en2", 0.3), rec("en3", 0.5)];
    // "it" is the keyword list's best match and in no dense list (it was set aside)
    const keyword = [rec("it", -10), rec("en2", -9), rec("en1", -1)];
    const o = withSearchDefaults();
    const plain = fuse(o, dense, keyword).map((h) => h.id);
    expect(plain[0]).toBe("en2"); // 0.35 × dense + 0.65 × keyword beats 0.65 × keyword alone
    const byWords = fuse(o, dense, keyword, undefined, { unreadIds: new Set(["it"]) });
    expect(byWords[0]).toMatchObject({ id: "it", score: 1 });
    expect(byWords.map((h) => h.id).slice(1)).toEqual(["en2", "en1", "en3"]);
  });
});
