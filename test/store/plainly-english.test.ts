import { beforeAll, describe, expect, it } from "vitest";
import { detectLanguage, loadLanguageDetector, plainlyEnglish } from "../../src/store/language.js";
import { passageLanguage } from "../../src/store/sqlite/fts-text.js";

/** Passages of six languages, with the language the detector tells for each. */
const PASSAGES: readonly [lang: string, text: string][] = [
  ["en", "The chain should be oiled every 300 km, and the wear is measured with a gauge before it stretches too far."],
  [
    "en",
    "Gradient descent moves the weights against the gradient of the loss; with a learning rate that is too high it diverges.",
  ],
  ["de", "Ein synchroner Zähler besteht aus mehreren Flip-Flops, die alle am selben Takt hängen und gemeinsam zählen."],
  ["de", "Die Kette alle 300 km ölen und den Verschleiß mit einer Lehre messen, bevor sie sich zu weit dehnt."],
  ["fr", "La chaîne doit être huilée tous les 300 km, et son usure mesurée avec une jauge avant qu'elle ne s'allonge."],
  ["es", "La cadena debe engrasarse cada 300 km y su desgaste se mide con una galga antes de que se estire demasiado."],
  ["it", "La catena va oliata ogni 300 km e la sua usura misurata con un calibro prima che si allunghi troppo."],
  ["nl", "De ketting moet elke 300 km worden geolied en de slijtage wordt gemeten voordat hij te ver uitrekt."],
];

beforeAll(() => loadLanguageDetector());

describe("plainlyEnglish", () => {
  it("calls English prose English and no passage of another language English", () => {
    for (const [lang, text] of PASSAGES) {
      expect(detectLanguage(text), text).toBe(lang);
      expect(plainlyEnglish(text), text).toBe(lang === "en");
    }
  });

  it("reads no code: German prose around English code stays German", () => {
    const text = [
      "Der Zähler wird mit dieser Funktion gelesen, sobald der Takt steigt und das Register gefüllt ist.",
      "```python",
      "for bit in the_register: if bit is not None and the_flag: return the_value from the_state",
      "```",
      "Danach wird der Wert in den Speicher geschrieben und die Anzeige neu gezeichnet.",
    ].join("\n");
    expect(plainlyEnglish(text)).toBe(false);
    expect(passageLanguage("Zähler", "Zähler lesen", text)).toBe("de");
  });

  it("needs eight words: a short English line is not plainly English", () => {
    expect(plainlyEnglish("the chain and the gear")).toBe(false);
  });

  it("leaves a passage's stemming language as the detector tells it, on every passage above", () => {
    for (const [lang, text] of PASSAGES) {
      expect(passageLanguage("Kette", "Pflege", text) ?? "en", text).toBe(lang);
    }
  });
});
