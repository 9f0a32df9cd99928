import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateTarget } from "../../src/core/eval.js";
import { openVault, type VaultHandle } from "../../src/library.js";
import { rerankHits } from "../../src/search/index.js";
import type { Hit } from "../../src/search/index.js";
import { writeTinyCrossEncoder } from "../embed/tiny-bert.js";
import { tinyRerankOrder, writeRerankVault } from "./vault.js";

/**
 * A search that reranks, through the library: a real index of a five-note vault (the bundled
 * model), the real `@huggingface/transformers` running the tiny cross-encoder, and a loopback
 * `/v1/rerank` stand-in for the consent rule.
 */
const Q = "robot motors";
const TINY = "transformers:vault-rag/tiny-rerank";
let tmp = "";
let vault = "";
let modelDir = "";
let v: VaultHandle;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-rerank-"));
  vault = path.join(tmp, "vault");
  modelDir = path.join(tmp, "models");
  writeRerankVault(vault);
  writeTinyCrossEncoder(modelDir, "vault-rag/tiny-rerank");
  v = await openVault(vault, { modelDir });
  await v.index();
}, 120_000);
afterAll(async () => {
  await v?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("a search that reranks", () => {
  it("reorders the fused candidates by the cross-encoder's scores, and explains each hit's place before and after", async () => {
    const fused = await v.search(Q, { topK: 10 });
    const reranked = await v.search(Q, { topK: 10, rerank: TINY, explain: true });
    const before = fused.hits.map((h) => h.path);
    const after = reranked.hits.map((h) => h.path);
    expect(after).toEqual(tinyRerankOrder(Q, fused.hits));
    // the stemmed keyword match the fusion put second is no match to a model that reads whole words
    expect(before[1]).toBe("wheel.md");
    expect(after).not.toEqual(before);
    for (const [i, h] of reranked.hits.entries()) {
      expect(h.reranked).toMatchObject({ before: before.indexOf(h.path) + 1, after: i + 1 });
      // the reranker's scores lead: distances in order, the best hit at 0
      if (i) expect(h.distance).toBeGreaterThanOrEqual(reranked.hits[i - 1].distance);
    }
    expect(reranked.hits[0].distance).toBe(0);
    expect(reranked.reranked).toEqual({ model: TINY, candidates: 5 });
    expect(reranked.timings.rerankMs).toBeGreaterThan(0);
    const x = reranked.explain!.rerank!;
    expect(x).toMatchObject({ model: TINY, candidates: 5 });
    expect(x.hits.map((h) => [h.path, h.before, h.after])).toEqual(
      reranked.hits.map((h) => [h.path, before.indexOf(h.path) + 1, after.indexOf(h.path) + 1]),
    );
    // the hits' JSON shape is the one every interface gives: the places are not in it
    expect(Object.keys(reranked.hits[0])).not.toContain("reranked");
    expect(fused.reranked).toBeUndefined();
    expect(fused.hits[0].reranked).toBeUndefined();
  });

  it("reranks the sources of an answer too", async () => {
    const c = await v.askContext(Q, { rerank: TINY });
    expect(c.hits.map((h) => h.path)).toEqual((await v.search(Q, { rerank: TINY })).hits.map((h) => h.path));
    expect(c.hits[0].reranked).toBeDefined();
  });

  it("uses the vault's configured reranker unless a request turns it off", async () => {
    const w = await openVault(vault, { modelDir, rerank: TINY });
    try {
      expect((await w.search(Q)).reranked?.model).toBe(TINY);
      expect((await w.search(Q, { rerank: true })).reranked?.model).toBe(TINY);
      expect((await w.search(Q, { rerank: false })).reranked).toBeUndefined();
    } finally {
      await w.close();
    }
  });

  it("refuses a reranker that is not there in one line, and a spec of no known form as a usage error", async () => {
    await expect(v.search(Q, { rerank: "transformers:vault-rag/absent" })).rejects.toMatchObject({
      code: "rerank_failed",
      message: expect.stringMatching(/^vault-rag: reranker model "vault-rag\/absent" is not in [^\n]*$/),
    });
    await expect(v.search(Q, { rerank: "ollama:bge-reranker" })).rejects.toMatchObject({ code: "usage" });
  });

  it("over MCP or HTTP, a request may name only a server this machine names", async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const docs = JSON.parse(body).documents as string[];
        seen.push(req.url!);
        res.end(JSON.stringify({ results: docs.map((_, index) => ({ index, relevance_score: -index })) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const remote = await openVault(vault, { remote: true });
    const configured = await openVault(vault, { remote: true, rerank: url });
    try {
      await expect(remote.search(Q, { rerank: url })).rejects.toMatchObject({
        code: "remote_model",
        message: `vault-rag: the reranker ${url} would be sent the question and passages, and nothing on this machine names it — nothing was sent; name it in VAULT_RAG_ALLOW_REMOTE or VAULT_RAG_RERANK where this server runs`,
      });
      expect(seen).toEqual([]);
      // the configured server, by name or by `true`: the stand-in scores them in their fused order
      const fused = (await remote.search(Q)).hits.map((h) => h.path);
      expect((await configured.search(Q, { rerank: url })).hits.map((h) => h.path)).toEqual(fused);
      expect((await configured.search(Q, { rerank: true })).reranked?.model).toBe(url);
      expect(seen).toEqual(["/v1/rerank", "/v1/rerank"]);
    } finally {
      await remote.close();
      await configured.close();
      server.close();
    }
  });
});

describe("vault-rag eval with a reranker", () => {
  it("measures the default hybrid reranked at each depth, beside the modes", async () => {
    const file = path.join(tmp, "questions.jsonl");
    // garden.md is third in the fused list and second once reranked (see vault.ts)
    fs.writeFileSync(file, JSON.stringify({ question: Q, paths: ["garden.md"] }) + "\n");
    const { results } = await evaluateTarget(file, {
      vault,
      modes: "hybrid",
      rerank: TINY,
      rerankDepth: "1,5",
      modelDir,
    });
    expect(results.map((r) => r.setting.label)).toEqual([
      "hybrid (linear, α=0.65)",
      "hybrid + rerank@1",
      "hybrid + rerank@5",
    ]);
    expect(results.map((r) => r.questions[0].rank)).toEqual([3, 3, 2]);
    expect(results[2].metrics.ndcg10).toBeCloseTo(1 / Math.log2(3), 6);
    await expect(evaluateTarget(file, { vault, rerank: TINY, rerankDepth: "50,x" })).rejects.toThrow(
      'vault-rag: --rerank-depth takes whole numbers of at least 1, comma-separated (20,50,100), got "x"',
    );
  });
});

describe("rerankHits", () => {
  const hit = (id: string, distance: number): Hit =>
    ({
      id,
      path: `${id}.md`,
      text: id,
      label: "",
      title: id,
      section: "",
      distance,
      score: 1 - distance,
      meta: {},
    }) as Hit;

  it("reorders only the top `depth`, keeps ties in their fused order, and puts the rest after in theirs", async () => {
    const hits = ["a", "b", "c", "d", "e"].map((id, i) => hit(id, i / 10));
    const asked: string[][] = [];
    const reranker = {
      id: "by-letter",
      async rerank(_q: string, passages: string[]) {
        asked.push(passages);
        return passages.map((p) => ({ a: 1, b: 3, c: 3 })[p] ?? 0);
      },
    };
    const out = await rerankHits(hits, "q", reranker, 3);
    expect(asked).toEqual([["a", "b", "c"]]);
    expect(out.map((h) => h.id)).toEqual(["b", "c", "a", "d", "e"]);
    expect(out.map((h) => h.reranked)).toEqual([
      { before: 2, after: 1, score: 3 },
      { before: 3, after: 2, score: 3 },
      { before: 1, after: 3, score: 1 },
      undefined,
      undefined,
    ]);
    expect(out.map((h) => h.distance)).toEqual([0, 0, 1, 1.3, 1.4]);
    expect(out.map((h) => h.score)).toEqual([1, 1, 0, 0, 0]);
  });
});
