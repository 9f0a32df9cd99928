import { describe, expect, it } from "vitest";
import { rememberQueries, useLiteEmbedder, type Embedder } from "../../src/embed/index.js";

/** An embedder whose query vectors are [length of text, call number]; it counts calls per text. */
function counting(fail = new Set<string>()) {
  const calls: string[] = [];
  const e: Embedder = {
    id: "count:test",
    provider: "count",
    model: "test",
    dimensions: 2,
    maxTokens: 100,
    documentPrefix: "",
    queryPrefix: "",
    normalized: false,
    embedDocuments: async (texts) => texts.map(() => new Float32Array(2)),
    async embedQuery(text) {
      calls.push(text);
      await new Promise((r) => setTimeout(r, 5));
      if (fail.delete(text)) throw new Error(`failed on ${text}`);
      return Float32Array.from([text.length, calls.length]);
    },
  };
  return { e, calls };
}

describe("rememberQueries", () => {
  it("embeds a query asked again only once, and gives each caller its own copy", async () => {
    const { e, calls } = counting();
    const r = rememberQueries(e);
    const a = await r.embedQuery("motor driver");
    a[0] = 99;
    const b = await r.embedQuery("motor driver");
    expect(calls).toEqual(["motor driver"]);
    expect([...b]).toEqual([12, 1]);
    expect(r.id).toBe("count:test");
    expect(r.dimensions).toBe(2);
  });

  it("forgets the least recently used query beyond its size", async () => {
    const { e, calls } = counting();
    const r = rememberQueries(e, 2);
    for (const q of ["a", "b", "a", "c", "a", "b"]) await r.embedQuery(q);
    // a stays (used again before c came), b was the oldest when c came, so b is embedded twice
    expect(calls).toEqual(["a", "b", "c", "b"]);
  });

  it("shares one embedding between concurrent calls for the same text", async () => {
    const { e, calls } = counting();
    const r = rememberQueries(e);
    const [x, y] = await Promise.all([r.embedQuery("sourdough"), r.embedQuery("sourdough")]);
    expect(calls).toEqual(["sourdough"]);
    expect([...x]).toEqual([...y]);
  });

  it("does not keep a failed embedding: the next call tries again", async () => {
    const { e, calls } = counting(new Set(["flaky"]));
    const r = rememberQueries(e);
    await expect(r.embedQuery("flaky")).rejects.toThrow("failed on flaky");
    await expect(r.embedQuery("flaky")).resolves.toBeInstanceOf(Float32Array);
    expect(calls).toEqual(["flaky", "flaky"]);
  });

  it("gives the bundled model's own vector for a remembered query", async () => {
    const plain = useLiteEmbedder();
    const r = rememberQueries(useLiteEmbedder());
    const want = await plain.embedQuery("how do I keep my sourdough starter alive");
    await r.embedQuery("how do I keep my sourdough starter alive");
    const got = await r.embedQuery("how do I keep my sourdough starter alive");
    expect(got.length).toBe(512);
    expect([...got]).toEqual([...want]);
  });
});
