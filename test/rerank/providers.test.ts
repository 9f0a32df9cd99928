import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createReranker,
  CROSS_ENCODER_BATCH,
  crossEncoderReranker,
  rerankEndpoint,
  rerankerKind,
  rerankerSendsText,
  type CrossEncoderModule,
} from "../../src/rerank/index.js";
import { expectedTinyScore, writeTinyBert, writeTinyCrossEncoder } from "../embed/tiny-bert.js";

/**
 * The rerankers' providers, each on real parts: the real `@huggingface/transformers` running a tiny
 * cross-encoder that tiny-bert.ts writes into a temporary folder, and a loopback HTTP server that
 * speaks `/v1/rerank` as llama.cpp's and vLLM's do. Nothing reaches the network.
 */
let modelDir: string;
beforeAll(() => {
  modelDir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-tiny-rerank-"));
  writeTinyCrossEncoder(modelDir, "vault-rag/tiny-rerank");
  writeTinyBert(modelDir, "vault-rag/tiny-bert");
});
afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

describe("the local cross-encoder, through the real library", () => {
  it("scores each query/passage pair as the model's graph does, in the passages' order", async () => {
    const r = createReranker("transformers:vault-rag/tiny-rerank", { modelDir });
    const passages = ["robot motors", "bread flour water oven", "the robot battery power", "motors motors robot wheel"];
    const scores = await r.rerank("robot motors", passages);
    expect(r.id).toBe("transformers:vault-rag/tiny-rerank");
    expect(scores).toHaveLength(passages.length);
    passages.forEach((p, i) => expect(scores[i]).toBeCloseTo(expectedTinyScore("robot motors", p), 6));
    // the passage that shares both words in the fewest words is first; the one that shares none, last
    expect(scores[0]).toBeGreaterThan(scores[3]);
    expect(scores[1]).toBe(0);
  });

  it("scores more passages than one batch holds, of mixed lengths, each in its place", async () => {
    const r = createReranker("transformers:vault-rag/tiny-rerank", { modelDir });
    const words = ["robot", "bread", "motors", "garden", "power", "sleep"];
    const passages = Array.from({ length: CROSS_ENCODER_BATCH * 2 + 3 }, (_, i) =>
      Array.from({ length: 1 + ((i * 7) % 11) }, (_, j) => words[(i + j) % words.length]).join(" "),
    );
    const scores = await r.rerank("robot power", passages);
    expect(scores).toHaveLength(passages.length);
    passages.forEach((p, i) => expect(scores[i]).toBeCloseTo(expectedTinyScore("robot power", p), 6));
  });

  it("refuses a model missing from --model-dir in one line", async () => {
    const r = createReranker("transformers:vault-rag/absent", { modelDir });
    await expect(r.rerank("x", ["y"])).rejects.toThrow(
      `vault-rag: reranker model "vault-rag/absent" is not in ${modelDir} (a search never downloads one) — copy its folder (config.json, tokenizer.json, onnx/model.onnx) to <dir>/vault-rag/absent and give --model-dir <dir>`,
    );
  });

  it("reads a model from the cache folder, and refuses one missing there without a request to the hub", async () => {
    const cached = createReranker("transformers:vault-rag/tiny-rerank", { cacheDir: modelDir });
    expect(await cached.rerank("robot motors", ["robot motors"])).toEqual(
      [expectedTinyScore("robot motors", "robot motors")].map((x) => expect.closeTo(x, 6)),
    );
    // the hub pointed at a loopback server that counts what it is asked
    const real = (await import("@huggingface/transformers")) as unknown as { env: { remoteHost: string } };
    const asked: string[] = [];
    const hub = http.createServer((req, res) => (asked.push(req.url!), res.writeHead(404).end()));
    await new Promise<void>((resolve) => hub.listen(0, "127.0.0.1", resolve));
    const host = real.env.remoteHost;
    real.env.remoteHost = `http://127.0.0.1:${(hub.address() as { port: number }).port}/`;
    try {
      const missing = createReranker("transformers:vault-rag/not-cached", { cacheDir: modelDir });
      await expect(missing.rerank("x", ["y"])).rejects.toThrow(
        `vault-rag: reranker model "vault-rag/not-cached" is not in ${modelDir} (a search never downloads one)`,
      );
      expect(asked).toEqual([]);
    } finally {
      real.env.remoteHost = host;
      hub.close();
    }
  });

  it("refuses an embedding model (no logits) as no cross-encoder", async () => {
    const r = createReranker("transformers:vault-rag/tiny-bert", { modelDir });
    await expect(r.rerank("robot", ["robot motors"])).rejects.toThrow(
      'vault-rag: reranker model "vault-rag/tiny-bert" gave no logits for 1 pairs — it is no cross-encoder (a sequence-classification model), e.g. Xenova/ms-marco-MiniLM-L-6-v2',
    );
  });

  it("loads nothing until the first rerank, and reads a model with two labels as relevant minus not", async () => {
    const loads: string[] = [];
    const mod: CrossEncoderModule = {
      env: { allowLocalModels: false, allowRemoteModels: true, localModelPath: "/models/", cacheDir: null },
      AutoTokenizer: {
        async from_pretrained(model, options) {
          loads.push(`tokenizer ${model} ${JSON.stringify(options)} remote ${mod.env.allowRemoteModels}`);
          return (texts, o) => ({ texts, pairs: o.text_pair });
        },
      },
      AutoModelForSequenceClassification: {
        async from_pretrained(model) {
          loads.push(`model ${model}`);
          return async (inputs) => {
            const pairs = inputs.pairs as string[];
            return { logits: { dims: [pairs.length, 2], data: pairs.flatMap((p) => [0.5, p.length]) } };
          };
        },
      },
    };
    const r = crossEncoderReranker("owner/two-labels", {
      modelDir: "/srv/models",
      cacheDir: "/tmp/c",
      load: async () => mod,
    });
    expect(loads).toEqual([]);
    expect(await r.rerank("q", ["abc", "a"])).toEqual([2.5, 0.5]);
    expect(loads).toEqual([
      "model owner/two-labels",
      'tokenizer owner/two-labels {"local_files_only":true,"cache_dir":"/tmp/c"} remote false',
    ]);
    // remote models were off while it loaded, and are as they were after
    expect(mod.env).toEqual({
      allowLocalModels: true,
      allowRemoteModels: true,
      localModelPath: "/srv/models",
      cacheDir: "/tmp/c",
    });
  });

  it("says how to install the library when it is not installed (a real import Node cannot resolve)", async () => {
    const r = crossEncoderReranker("Xenova/ms-marco-MiniLM-L-6-v2", {
      load: () => import("@huggingface/transformers-not-installed" as string) as Promise<CrossEncoderModule>,
    });
    await expect(r.rerank("x", ["y"])).rejects.toThrow(
      /^vault-rag: a transformers: reranker needs the @huggingface\/transformers package — install it/,
    );
  });
});

/** A loopback server that answers POSTs with `reply(body)`, recording each request. */
async function standIn(reply: (body: any, res: http.ServerResponse) => void) {
  const seen: { url: string; body: any }[] = [];
  const server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const body = JSON.parse(data);
      seen.push({ url: req.url!, body });
      reply(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A `/v1/rerank` reply as the servers give it: best first, each with the document's index. */
function cohereReply(body: { query: string; documents: string[] }, res: http.ServerResponse) {
  const results = body.documents
    .map((d, index) => ({ index, relevance_score: d.split(" ").filter((w) => body.query.includes(w)).length / 10 }))
    .sort((a, b) => b.relevance_score - a.relevance_score);
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ model: "x", results }));
}

describe("a /v1/rerank server (a loopback stand-in)", () => {
  it("sends the query and documents, and reads the scores back into the documents' order", async () => {
    const s = await standIn(cohereReply);
    try {
      const r = createReranker(`${s.url}#BAAI/bge-reranker-v2-m3`);
      const scores = await r.rerank("robot motors", ["bread", "robot motors", "robot"]);
      expect(scores).toEqual([0, 0.2, 0.1]);
      expect(s.seen).toEqual([
        {
          url: "/v1/rerank",
          body: {
            model: "BAAI/bge-reranker-v2-m3",
            query: "robot motors",
            documents: ["bread", "robot motors", "robot"],
            top_n: 3,
          },
        },
      ]);
    } finally {
      await s.close();
    }
  });

  it("says in one line that the server is down", async () => {
    const s = await standIn(cohereReply);
    await s.close();
    await expect(createReranker(s.url).rerank("q", ["a"])).rejects.toThrow(
      `vault-rag: the reranker server at ${s.url.slice(7)} is not reachable (${s.url}/v1/rerank) — start it (e.g. \`llama-server --reranking -m <model>.gguf\`), or choose another reranker`,
    );
  });

  it("refuses a reply that is not JSON, an HTTP error, no results list, and the wrong count of scores", async () => {
    const replies: ((res: http.ServerResponse) => void)[] = [
      (res) => res.writeHead(200).end("<html>hello</html>"),
      (res) => res.writeHead(500, { "content-type": "application/json" }).end('{"error":"model not loaded"}'),
      (res) => res.writeHead(200).end('{"data":[]}'),
      (res) => res.writeHead(200).end('{"results":[{"index":0,"relevance_score":1}]}'),
      (res) => res.writeHead(200).end('{"results":[{"index":0,"relevance_score":1},{"index":0,"relevance_score":2}]}'),
      (res) =>
        res.writeHead(200).end('{"results":[{"index":0,"relevance_score":"high"},{"index":1,"relevance_score":2}]}'),
    ];
    let next = 0;
    const s = await standIn((_body, res) => replies[next++](res));
    const at = `${s.url}/v1/rerank`;
    try {
      const r = createReranker(s.url);
      const fails = async () =>
        r.rerank("q", ["a", "b"]).then(
          () => "no error",
          (e: Error) => e.message,
        );
      expect(await fails()).toBe(`vault-rag: ${at} answered with something that is not JSON: <html>hello</html>`);
      expect(await fails()).toBe(`vault-rag: ${at} answered HTTP 500: model not loaded`);
      expect(await fails()).toBe(`vault-rag: ${at} answered without a "results" list — is it a /v1/rerank server?`);
      expect(await fails()).toBe(`vault-rag: ${at} returned 1 scores for 2 passages`);
      expect(await fails()).toBe(`vault-rag: ${at} returned a result with the index 0, not one of 0 to 1 once each`);
      expect(await fails()).toBe(`vault-rag: ${at} returned the relevance_score "high" for passage 0, not a number`);
    } finally {
      await s.close();
    }
  });
});

describe("reranker specs", () => {
  it("post to <url>/v1/rerank, <url>/rerank after /v1, or the URL given when it ends in /rerank", () => {
    expect(rerankEndpoint("http://127.0.0.1:8012")).toEqual({
      url: "http://127.0.0.1:8012/v1/rerank",
      host: "127.0.0.1:8012",
    });
    expect(rerankEndpoint("http://gpu:8000/v1/#m/x").url).toBe("http://gpu:8000/v1/rerank");
    expect(rerankEndpoint("http://gpu:8000/v1/#m/x").model).toBe("m/x");
    expect(rerankEndpoint("https://h/api/rerank").url).toBe("https://h/api/rerank");
  });

  it("refuse anything but transformers:<owner>/<name> and an http(s) URL, in one line", () => {
    const both =
      "use transformers:<owner>/<name> (a cross-encoder in --model-dir or the cache) or the URL of a /v1/rerank server, e.g. http://127.0.0.1:8012";
    for (const bad of [
      "ollama:bge-reranker",
      "transformers:../../etc",
      "transformers:a/b/c",
      "transformers:",
      "rerank",
    ])
      expect(() => rerankerKind(bad)).toThrow(`vault-rag: unknown reranker "${bad}" — ${both}`);
    expect(rerankerKind("transformers:Xenova/ms-marco-MiniLM-L-6-v2")).toEqual({
      kind: "transformers",
      model: "Xenova/ms-marco-MiniLM-L-6-v2",
    });
  });

  it("a server at an address other than loopback sends text off this machine; a local model never does", () => {
    expect(rerankerSendsText("http://127.0.0.1:8012")).toBe(false);
    expect(rerankerSendsText("http://localhost:8012")).toBe(false);
    expect(rerankerSendsText("http://[::1]:8012")).toBe(false);
    expect(rerankerSendsText("https://rerank.example.com")).toBe(true);
    expect(rerankerSendsText("transformers:Xenova/ms-marco-MiniLM-L-6-v2")).toBe(false);
  });
});
