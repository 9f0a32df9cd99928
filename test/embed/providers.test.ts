import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ollamaBaseUrl, ollamaEmbedder, openAiEmbedder } from "../../src/embed/index.js";

/** A local server speaking Ollama's /api/embed and OpenAI's /v1/embeddings, with scripted failures. */
let server: http.Server;
let base = "";
const seen: { url: string; body: any; auth?: string }[] = [];
const fake = (text: string) => [text.length, 1, 0];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}");
      seen.push({ url: req.url!, body, auth: req.headers.authorization });
      res.setHeader("content-type", "application/json");
      if (req.url === "/api/embed") {
        if (body.model === "missing") {
          res.statusCode = 404;
          return res.end(JSON.stringify({ error: 'model "missing" not found, try pulling it first' }));
        }
        if (body.model === "nan")
          return res.end(JSON.stringify({ model: body.model, embeddings: body.input.map(() => [null, 1, 2]) }));
        return res.end(JSON.stringify({ model: body.model, embeddings: body.input.map(fake) }));
      }
      if (req.url === "/v1/embeddings") {
        if (req.headers.authorization !== "Bearer sk-test") {
          res.statusCode = 401;
          return res.end(
            JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }),
          );
        }
        // out of order, as the API allows: clients must sort by index
        const data = body.input
          .map((t: string, index: number) => ({ object: "embedding", index, embedding: fake(t) }))
          .reverse();
        return res.end(
          JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }),
        );
      }
      res.statusCode = 404;
      res.end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("Ollama provider", () => {
  it("reads OLLAMA_HOST as the Ollama CLI does", () => {
    expect(ollamaBaseUrl(undefined, {})).toBe("http://127.0.0.1:11434");
    expect(ollamaBaseUrl(undefined, { OLLAMA_HOST: "0.0.0.0" })).toBe("http://0.0.0.0:11434");
    expect(ollamaBaseUrl(undefined, { OLLAMA_HOST: "example.org:8080" })).toBe("http://example.org:8080");
    expect(ollamaBaseUrl("https://ollama.local", {})).toBe("https://ollama.local");
  });

  it("batches documents with the nomic prefixes and embeds queries with the query prefix", async () => {
    seen.length = 0;
    const e = ollamaEmbedder("nomic-embed-text", { host: base });
    const texts = Array.from({ length: 40 }, (_, i) => `doc ${i}`);
    const vs = await e.embedDocuments(texts);
    expect(vs).toHaveLength(40);
    expect(seen.map((s) => s.body.input.length)).toEqual([32, 8]);
    expect(seen[0].body.input[0]).toBe("search_document: doc 0");
    expect(seen[0].body.truncate).toBe(true);
    const q = await e.embedQuery("save power");
    expect(seen[2].body.input).toEqual(["search_query: save power"]);
    expect(Array.from(q)).toEqual(fake("search_query: save power"));
    expect(e.dimensions).toBe(3);
  });

  it("explains an unknown model, NaN vectors and a server that is not running", async () => {
    await expect(ollamaEmbedder("missing", { host: base }).embedQuery("x")).rejects.toThrow(
      `vault-rag: ${base}/api/embed answered HTTP 404: model "missing" not found, try pulling it first`,
    );
    await expect(
      ollamaEmbedder("nan", { host: base }).embedDocuments(["a"], undefined, ['"notes/a.md" (A)']),
    ).rejects.toThrow('vault-rag: Ollama model "nan" returned a vector with NaN or non-numbers for "notes/a.md" (A)');
    await expect(ollamaEmbedder("nomic-embed-text", { host: "http://127.0.0.1:9" }).embedQuery("x")).rejects.toThrow(
      "vault-rag: Ollama is not reachable at http://127.0.0.1:9 — start it with `ollama serve` or choose another model",
    );
  });
});

describe("OpenAI-compatible provider", () => {
  it("sends the key, sorts by index and reports bad keys in one line", async () => {
    const e = openAiEmbedder("text-embedding-3-small", { baseUrl: `${base}/v1`, apiKey: "sk-test" });
    const vs = await e.embedDocuments(["a", "bbb"]);
    expect(vs.map((v) => v[0])).toEqual([1, 3]);
    const bad = openAiEmbedder("text-embedding-3-small", { baseUrl: `${base}/v1`, apiKey: "nope" });
    await expect(bad.embedQuery("x")).rejects.toThrow(
      `vault-rag: ${base}/v1/embeddings answered HTTP 401: Incorrect API key provided`,
    );
  });
});
