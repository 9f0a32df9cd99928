import { describe, expect, it } from "vitest";
import { createEmbedder, transformersEmbedder, type TransformersModule } from "../../src/embed/index.js";

/**
 * The library itself is an optional install (≈470 MB with its ONNX runtime), so these tests load it
 * for real only to prove its absence is explained, and otherwise use a stand-in with the documented
 * surface (`env`, `pipeline`, `tolist()`) to check configuration and error translation.
 */
function standIn(behaviour: { fail?: Error; dims?: number } = {}) {
  const calls: {
    task: string;
    model: string;
    options?: Record<string, unknown>;
    run: { texts: string[]; options: unknown }[];
  }[] = [];
  const mod: TransformersModule = {
    env: { allowRemoteModels: true, allowLocalModels: true, localModelPath: "/models/", cacheDir: null },
    async pipeline(task, model, options) {
      if (behaviour.fail) throw behaviour.fail;
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

describe("Transformers.js provider", () => {
  it("explains that the optional package is not installed", async () => {
    const e = createEmbedder("transformers:Xenova/bge-small-en-v1.5");
    await expect(e.embedQuery("x")).rejects.toThrow(
      "vault-rag: the transformers provider needs the @huggingface/transformers package — install it with `npm install @huggingface/transformers --ignore-scripts` (the skipped script only downloads optional GPU libraries)",
    );
  });

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

  it("says what to do when the model is missing offline, the network is down, or the name is wrong", async () => {
    const missing = standIn({
      fail: new Error(
        '`local_files_only=true` or `env.allowRemoteModels=false` and file was not found locally at "/tmp/hf-cache/Xenova/bge-small-en-v1.5/config.json".',
      ),
    });
    await expect(
      transformersEmbedder("Xenova/bge-small-en-v1.5", {
        offline: true,
        cacheDir: "/tmp/hf-cache",
        load: async () => missing.mod,
      }).embedQuery("x"),
    ).rejects.toThrow(
      'vault-rag: model "Xenova/bge-small-en-v1.5" is not in the cache at /tmp/hf-cache and downloads are off — run once with network access without --offline, or copy the model folder into --model-dir',
    );
    const down = standIn({ fail: new TypeError("fetch failed") });
    await expect(
      transformersEmbedder("Xenova/bge-small-en-v1.5", { load: async () => down.mod }).embedQuery("x"),
    ).rejects.toThrow(
      'vault-rag: cannot download model "Xenova/bge-small-en-v1.5" from the Hugging Face Hub (fetch failed) — check the network, or use --offline with a model already in the Transformers.js cache',
    );
    const typo = standIn({
      fail: new Error("Could not locate file: https://huggingface.co/Xenova/bge-smal/resolve/main/config.json"),
    });
    await expect(
      transformersEmbedder("Xenova/bge-smal", { load: async () => typo.mod }).embedQuery("x"),
    ).rejects.toThrow(
      'vault-rag: model "Xenova/bge-smal" was not found on the Hugging Face Hub — check the name (e.g. Xenova/bge-small-en-v1.5)',
    );
  });
});
