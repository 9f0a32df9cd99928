import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelProfile, ollamaEmbedder, RETRIEVAL_INSTRUCTION, transformersEmbedder } from "../../src/embed/index.js";
import type { TransformersModule } from "../../src/embed/index.js";

/** What a provider sent: the texts of each call, and the pooling Transformers.js was asked for. */
interface Sent {
  texts: string[];
  pooling?: string;
}

/** A stand-in with Transformers.js's documented surface, recording what it is asked to embed. */
function transformersStandIn(sent: Sent[]): TransformersModule {
  return {
    env: { allowRemoteModels: true, allowLocalModels: true, localModelPath: "", cacheDir: null },
    async pipeline() {
      return async (texts: string[], o: { pooling: string }) => {
        sent.push({ texts, pooling: o.pooling });
        return { tolist: () => texts.map(() => [0.6, 0.8]) };
      };
    },
  };
}

let server: http.Server;
let host = "";
const ollamaSent: Sent[] = [];
beforeAll(async () => {
  // Ollama's /api/embed, recording the inputs
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const body = JSON.parse(raw);
      ollamaSent.push({ texts: body.input });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ embeddings: body.input.map(() => [0.6, 0.8]) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Embeds a document and a query with each provider, and returns what each was sent. */
async function sentFor(model: string) {
  const t: Sent[] = [];
  const e = transformersEmbedder(model, { load: async () => transformersStandIn(t) });
  await e.embedDocuments(["the motor driver"]);
  await e.embedQuery("why is it hot");
  ollamaSent.length = 0;
  const o = ollamaEmbedder(model.replace(/^.*\//, ""), { host });
  await o.embedDocuments(["the motor driver"]);
  await o.embedQuery("why is it hot");
  return { transformers: t, ollama: [...ollamaSent] };
}

describe("each recommended model family gets the prefixes and pooling of its model card", () => {
  it("nomic-embed-text: search_document: / search_query:, mean pooling", async () => {
    const s = await sentFor("nomic-ai/nomic-embed-text-v1.5");
    expect(s.transformers).toEqual([
      { texts: ["search_document: the motor driver"], pooling: "mean" },
      { texts: ["search_query: why is it hot"], pooling: "mean" },
    ]);
    expect(s.ollama.map((x) => x.texts)).toEqual([
      ["search_document: the motor driver"],
      ["search_query: why is it hot"],
    ]);
  });

  it("bge v1.5 (English): the retrieval instruction before a query only, CLS pooling", async () => {
    const s = await sentFor("Xenova/bge-small-en-v1.5");
    expect(s.transformers).toEqual([
      { texts: ["the motor driver"], pooling: "cls" },
      { texts: [`${RETRIEVAL_INSTRUCTION}why is it hot`], pooling: "cls" },
    ]);
    expect(s.ollama.map((x) => x.texts)).toEqual([["the motor driver"], [`${RETRIEVAL_INSTRUCTION}why is it hot`]]);
    expect(RETRIEVAL_INSTRUCTION).toBe("Represent this sentence for searching relevant passages: ");
  });

  it("bge-m3 (multilingual): no instruction on either side, CLS pooling", async () => {
    const s = await sentFor("Xenova/bge-m3");
    expect(s.transformers).toEqual([
      { texts: ["the motor driver"], pooling: "cls" },
      { texts: ["why is it hot"], pooling: "cls" },
    ]);
    expect(s.ollama.map((x) => x.texts)).toEqual([["the motor driver"], ["why is it hot"]]);
  });

  it("mxbai-embed-large and snowflake-arctic-embed: the retrieval instruction before a query, CLS pooling", async () => {
    for (const model of ["mixedbread-ai/mxbai-embed-large-v1", "Snowflake/snowflake-arctic-embed-m"]) {
      const s = await sentFor(model);
      expect(s.transformers, model).toEqual([
        { texts: ["the motor driver"], pooling: "cls" },
        { texts: [`${RETRIEVAL_INSTRUCTION}why is it hot`], pooling: "cls" },
      ]);
      expect(
        s.ollama.map((x) => x.texts),
        model,
      ).toEqual([["the motor driver"], [`${RETRIEVAL_INSTRUCTION}why is it hot`]]);
    }
  });

  it("e5 and multilingual-e5: passage: / query:, mean pooling", async () => {
    for (const model of ["Xenova/e5-small-v2", "Xenova/multilingual-e5-small"]) {
      const s = await sentFor(model);
      expect(s.transformers, model).toEqual([
        { texts: ["passage: the motor driver"], pooling: "mean" },
        { texts: ["query: why is it hot"], pooling: "mean" },
      ]);
      expect(
        s.ollama.map((x) => x.texts),
        model,
      ).toEqual([["passage: the motor driver"], ["query: why is it hot"]]);
    }
  });

  it("gte and unknown models: no prefixes, mean pooling", async () => {
    for (const model of ["Xenova/gte-small", "Xenova/all-MiniLM-L6-v2"]) {
      const s = await sentFor(model);
      expect(s.transformers, model).toEqual([
        { texts: ["the motor driver"], pooling: "mean" },
        { texts: ["why is it hot"], pooling: "mean" },
      ]);
    }
  });

  it("recognises a family by name whatever its owner, tag or case", () => {
    expect(modelProfile("ollama:bge-large").family).toBe("bge");
    expect(modelProfile("BAAI/BGE-base-en-v1.5").family).toBe("bge");
    expect(modelProfile("mxbai-embed-large:latest").family).toBe("mxbai");
    expect(modelProfile("bge-m3:567m").family).toBe("bge-m3");
    expect(modelProfile("nomic-embed-text:v1.5").family).toBe("nomic");
    // a name that merely holds the letters is not the family
    expect(modelProfile("sponge-embed").family).toBe("plain");
    expect(modelProfile("time5-embed").family).toBe("plain");
  });
});
