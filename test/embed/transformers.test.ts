import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as transformers from "@huggingface/transformers";
import { createEmbedder, transformersEmbedder, type TransformersModule } from "../../src/embed/index.js";
import { BIN, exampleVaultCopy } from "../e2e/helpers.js";
import { expectedTinyVector, TINY_DIMS, writeTinyBert } from "./tiny-bert.js";

/**
 * The real `@huggingface/transformers` (a devDependency here; users install it themselves) runs a
 * tiny BERT-shaped model that tiny-bert.ts writes into a temporary folder, loaded as a user loads a
 * model copied by hand: `--model-dir` and `--offline`. Nothing reaches the network: the tests that
 * need a download to fail point the library's hub address at a loopback port.
 */
const real = transformers as unknown as TransformersModule & { env: { remoteHost: string } };
let modelDir: string;
beforeAll(() => {
  modelDir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-tiny-bert-"));
  writeTinyBert(modelDir, "vault-rag/tiny-bert");
});
afterAll(() => fs.rmSync(modelDir, { recursive: true, force: true }));

const norm = (v: Float32Array) => Math.hypot(...v);

describe("Transformers.js provider, with the real library and a tiny local model", () => {
  it("embeds through the real library: the model's own vectors, unit length, equal for equal texts", async () => {
    const e = createEmbedder("transformers:vault-rag/tiny-bert", { modelDir, offline: true });
    const [a, b, a2] = await e.embedDocuments(["Robot motors", "sourdough starter", "Robot motors"]);
    expect(e.id).toBe("transformers:vault-rag/tiny-bert");
    expect(e.dimensions).toBe(TINY_DIMS);
    expect(a).toHaveLength(TINY_DIMS);
    expect(norm(a)).toBeCloseTo(1, 6);
    expect(norm(b)).toBeCloseTo(1, 6);
    expect(Array.from(a2)).toEqual(Array.from(a));
    expect(Math.max(...a.map((x, i) => Math.abs(x - b[i])))).toBeGreaterThan(0.05);
    // WordPiece tokens, the ONNX graph and mean pooling, worked out without the library
    const want = expectedTinyVector("robot motors");
    for (let d = 0; d < TINY_DIMS; d++) expect(a[d]).toBeCloseTo(want[d], 5);
    // a query (no prefix for this model family) is embedded as the same text is as a document
    expect(Array.from(await e.embedQuery("sourdough starter"))).toEqual(Array.from(b));
  });

  it("in offline mode refuses a model missing from --model-dir with the product's error", async () => {
    const e = createEmbedder("transformers:vault-rag/absent", { modelDir, offline: true });
    await expect(e.embedQuery("x")).rejects.toThrow(
      `vault-rag: model "vault-rag/absent" is not in ${modelDir} and downloads are off — run once with network access without --offline, or copy the model folder into --model-dir`,
    );
  });

  it("explains a download that cannot connect (the hub address pointed at a closed loopback port)", async () => {
    const host = real.env.remoteHost;
    real.env.remoteHost = "http://127.0.0.1:9/";
    try {
      const e = transformersEmbedder("vault-rag/not-downloaded", { modelDir, load: async () => real });
      await expect(e.embedQuery("x")).rejects.toThrow(
        `vault-rag: cannot download model "vault-rag/not-downloaded" from the Hugging Face Hub (fetch failed) — check the network, or use --offline with a model already in ${modelDir}`,
      );
    } finally {
      real.env.remoteHost = host;
    }
  });

  it("explains a model name the hub does not have (a loopback server answering 404)", async () => {
    const server = http.createServer((_req, res) => res.writeHead(404).end("Entry not found"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const host = real.env.remoteHost;
    real.env.remoteHost = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      const e = transformersEmbedder("Xenova/bge-smal", { modelDir, load: async () => real });
      await expect(e.embedQuery("x")).rejects.toThrow(
        'vault-rag: model "Xenova/bge-smal" was not found on the Hugging Face Hub — check the name (e.g. Xenova/bge-small-en-v1.5)',
      );
    } finally {
      real.env.remoteHost = host;
      server.close();
    }
  });

  it("vault-rag index and search run on it, offline, from --model-dir", () => {
    const { vault, elsewhere } = exampleVaultCopy("vr-tiny-bert-cli-");
    const flags = ["--model", "transformers:vault-rag/tiny-bert", "--model-dir", modelDir, "--offline"];
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], {
        cwd: elsewhere,
        env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
        encoding: "utf8",
      });
    const index = cli(["index", vault, "--json", ...flags]);
    expect(index.status, index.stderr).toBe(0);
    expect(JSON.parse(index.stdout)).toMatchObject({ model: "transformers:vault-rag/tiny-bert" });
    const search = cli(["search", "--vault", vault, "--mode", "dense", "--json", "robot motors", ...flags]);
    expect(search.status, search.stderr).toBe(0);
    const hits = JSON.parse(search.stdout);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0].score).toBeGreaterThan(0);
    fs.rmSync(path.dirname(vault), { recursive: true, force: true });
  });

  it("a model the index names, not on this machine, is not downloaded unless VAULT_RAG_ALLOW_REMOTE names it", () => {
    const { vault, elsewhere } = exampleVaultCopy("vr-tiny-bert-consent-");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      VAULT_RAG_VAULT: "",
      VAULT_RAG_DB: "",
      VAULT_RAG_ALLOW_REMOTE: "",
    };
    delete env.HF_HUB_OFFLINE;
    delete env.TRANSFORMERS_OFFLINE;
    delete env.VAULT_RAG_MODEL_DIR;
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { cwd: elsewhere, env, encoding: "utf8" });
    const spec = "transformers:vault-rag/tiny-bert";
    const index = cli(["index", vault, "--model", spec, "--model-dir", modelDir, "--offline", "--quiet"]);
    expect(index.status, index.stderr).toBe(0);
    // the index names the model; the search names neither it nor a folder that holds it
    const search = cli(["search", "--vault", vault, "--mode", "dense", "robot motors"]);
    expect(search.status, search.stderr).not.toBe(0);
    expect(search.stderr).toContain(
      `model "vault-rag/tiny-bert", which the index names, is not in the Transformers.js cache, and nothing was downloaded — set VAULT_RAG_ALLOW_REMOTE=${spec} or give --model ${spec}`,
    );
    expect(search.stderr.trim().split("\n")).toHaveLength(1);
    fs.rmSync(path.dirname(vault), { recursive: true, force: true });
  });

  it("reads the window from the model folder and counts word pieces as the library's tokenizer does", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-tiny-window-"));
    try {
      writeTinyBert(dir, "vault-rag/tiny-256");
      fs.writeFileSync(path.join(dir, "vault-rag/tiny-256/sentence_bert_config.json"), '{"max_seq_length": 256}');
      const e = createEmbedder("transformers:vault-rag/tiny-256", { modelDir: dir, offline: true });
      expect(e.maxTokens).toBe(254);
      expect(createEmbedder("transformers:vault-rag/tiny-bert", { modelDir, offline: true }).maxTokens).toBe(510);
      const tok = await transformers.AutoTokenizer.from_pretrained(path.join(dir, "vault-rag/tiny-256"));
      for (const text of [
        "Robots sleeping",
        "how do I save power? (battery, sleep)",
        "Sourdough starter: flour + water",
        "zzz qqq",
      ]) {
        const ids = tok.encode(text) as number[];
        expect(e.countTokens!(text), text).toBe(ids.length - 2);
      }
      expect(e.unknownShare!("zzz qqq")).toBe(1);
      expect(e.unknownShare!("robot motors")).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("embeds a batch of unlike lengths in the caller's order", async () => {
    const e = createEmbedder("transformers:vault-rag/tiny-bert", { modelDir, offline: true });
    const texts = ["the robot motors and the wheel battery power", "bread", "sourdough starter flour"];
    const together = await e.embedDocuments(texts);
    for (let i = 0; i < texts.length; i++)
      expect(Array.from(together[i])).toEqual(Array.from((await e.embedDocuments([texts[i]]))[0]));
  });

  it("explains that the optional package is not installed (a real import that Node cannot resolve)", async () => {
    const e = transformersEmbedder("Xenova/bge-small-en-v1.5", {
      load: () => import("@huggingface/transformers-not-installed" as string) as Promise<TransformersModule>,
    });
    await expect(e.embedQuery("x")).rejects.toThrow(
      "vault-rag: the transformers provider needs the @huggingface/transformers package — install it with `npm install @huggingface/transformers --ignore-scripts` (the skipped script only downloads optional GPU libraries)",
    );
  });
});

/**
 * What the real library cannot show without a hub: how the provider sets `env` and which pooling
 * and prefixes each model family gets. A stand-in with the library's documented surface records it.
 */
function standIn(behaviour: { dims?: number } = {}) {
  const calls: {
    task: string;
    model: string;
    options?: Record<string, unknown>;
    run: { texts: string[]; options: unknown }[];
  }[] = [];
  const mod: TransformersModule = {
    env: { allowRemoteModels: true, allowLocalModels: true, localModelPath: "/models/", cacheDir: null },
    async pipeline(task, model, options) {
      const call = { task, model, options, run: [] as { texts: string[]; options: unknown }[] };
      calls.push(call);
      return async (texts, opts) => {
        call.run.push({ texts, options: opts });
        return {
          tolist: () => texts.map((t) => Array.from({ length: behaviour.dims ?? 4 }, (_, i) => (t.length + i) / 100)),
        };
      };
    },
  };
  return { mod, calls };
}

describe("Transformers.js provider, configuration (a stand-in records it)", () => {
  it("configures env as documented and uses the model's pooling and prefixes", async () => {
    const { mod, calls } = standIn();
    const e = transformersEmbedder("Xenova/bge-small-en-v1.5", {
      offline: true,
      cacheDir: "/tmp/hf-cache",
      modelDir: "/srv/models",
      dtype: "q8",
      load: async () => mod,
    });
    const [v] = await e.embedDocuments(["Sourdough starter"]);
    await e.embedQuery("bread");
    expect(mod.env).toMatchObject({
      allowRemoteModels: false,
      allowLocalModels: true,
      localModelPath: "/srv/models",
      cacheDir: "/tmp/hf-cache",
    });
    expect(calls).toHaveLength(1); // loaded once
    expect(calls[0]).toMatchObject({
      task: "feature-extraction",
      model: "Xenova/bge-small-en-v1.5",
      options: { dtype: "q8" },
    });
    expect(calls[0].run[0]).toEqual({ texts: ["Sourdough starter"], options: { pooling: "cls", normalize: true } });
    expect(calls[0].run[1].texts).toEqual(["Represent this sentence for searching relevant passages: bread"]);
    expect(v).toHaveLength(4);
    expect(e.dimensions).toBe(4);
    const nomic = standIn();
    const n = transformersEmbedder("nomic-ai/nomic-embed-text-v1.5", { load: async () => nomic.mod });
    await n.embedDocuments(["a"]);
    expect(nomic.calls[0].run[0]).toEqual({
      texts: ["search_document: a"],
      options: { pooling: "mean", normalize: true },
    });
    expect(nomic.mod.env.allowRemoteModels).toBe(true);
  });
});
