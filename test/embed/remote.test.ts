import { describe, expect, it } from "vitest";
import { createEmbedder } from "../../src/embed/index.js";
import {
  indexModelOptions,
  indexModelRefusal,
  modelPlace,
  refusingEmbedder,
  remoteAllowed,
} from "../../src/embed/remote.js";
import { cliFix, libraryFix } from "../../src/render/fix.js";

describe("where a model runs", () => {
  it("is local for the bundled and Transformers.js models, and for Ollama at a loopback address", () => {
    expect(modelPlace("use-lite", {}, {})).toEqual({ network: false, where: "local" });
    expect(modelPlace("transformers:Xenova/bge-small-en-v1.5", {}, {})).toEqual({ network: false, where: "local" });
    expect(modelPlace("ollama:nomic-embed-text", {}, {})).toEqual({
      network: false,
      where: "ollama at 127.0.0.1:11434",
    });
    for (const host of ["localhost:11434", "127.0.0.2", "http://[::1]:8080"])
      expect(modelPlace("ollama:nomic-embed-text", {}, { OLLAMA_HOST: host }).network, host).toBe(false);
  });

  it("is the network for Ollama at another address and for every openai: model", () => {
    expect(modelPlace("ollama:nomic-embed-text", {}, { OLLAMA_HOST: "10.0.0.5" })).toEqual({
      network: true,
      where: "ollama at 10.0.0.5:11434",
    });
    expect(modelPlace("openai:text-embedding-3-small", {}, {})).toEqual({
      network: true,
      where: "openai-compatible at https://api.openai.com/v1",
    });
    expect(modelPlace("openai:m", {}, { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1/" }).where).toBe(
      "openai-compatible at http://127.0.0.1:8080/v1",
    );
  });
});

describe("an index's own network model", () => {
  const env = { OLLAMA_HOST: "10.0.0.5" };
  it("is refused, with the variable that allows it, unless VAULT_RAG_ALLOW_REMOTE names it or its provider", () => {
    const refusal = indexModelRefusal("/v/.vault-rag/index.db", "ollama:nomic-embed-text", {}, env);
    expect(refusal?.code).toBe("remote_model");
    expect(refusal?.message).toContain("to 10.0.0.5:11434 — nothing was sent");
    expect(refusal?.message).toContain("set VAULT_RAG_ALLOW_REMOTE=ollama:nomic-embed-text");
    for (const allow of ["ollama:nomic-embed-text", "openai:x, ollama:nomic-embed-text", "ollama:*"])
      expect(
        indexModelRefusal("/v/i.db", "ollama:nomic-embed-text", {}, { ...env, VAULT_RAG_ALLOW_REMOTE: allow }),
      ).toBeUndefined();
    for (const allow of ["", "ollama:bge-m3", "openai:*", "nomic-embed-text"])
      expect(remoteAllowed("ollama:nomic-embed-text", { VAULT_RAG_ALLOW_REMOTE: allow }), allow).toBe(false);
    expect(indexModelRefusal("/v/i.db", "use-lite", {}, {})).toBeUndefined();
    expect(indexModelRefusal("/v/i.db", "ollama:nomic-embed-text", {}, {})).toBeUndefined();
  });

  it("refused, embeds nothing: every embedding rejects with the refusal", async () => {
    const refusal = indexModelRefusal("/v/i.db", "openai:text-embedding-3-small", {}, {})!;
    const e = refusingEmbedder(createEmbedder("openai:text-embedding-3-small"), refusal);
    expect(e.id).toBe("openai:text-embedding-3-small");
    await expect(e.embedQuery("a question")).rejects.toBe(refusal);
    await expect(e.embedDocuments(["a note"])).rejects.toBe(refusal);
  });
});

describe("the refusal's fix and the index's own transformers model", () => {
  it("the refusal carries a structured fix, and its words name no interface's command", () => {
    const refusal = indexModelRefusal("/v/.vault-rag/index.db", "openai:text-embedding-3-small", {}, {})!;
    expect(refusal.fix).toEqual({
      kind: "allow_model",
      model: "openai:text-embedding-3-small",
      env: "VAULT_RAG_ALLOW_REMOTE",
      instead: "use-lite",
      db: "/v/.vault-rag/index.db",
    });
    expect(refusal.message).not.toMatch(/vault-rag index|--model|--full/);
    expect(cliFix(refusal.fix!)).toContain("`vault-rag index /v --full --model use-lite`");
    expect(cliFix(refusal.fix!)).toContain("or give --model openai:text-embedding-3-small");
    expect(libraryFix(refusal.fix!)).toContain('open the vault with { model: "openai:text-embedding-3-small" }');
  });

  it("a transformers model the index names is read offline unless VAULT_RAG_ALLOW_REMOTE names it", () => {
    const spec = "transformers:Xenova/bge-small-en-v1.5";
    expect(indexModelOptions(spec, {}, {})).toEqual({ offline: true, offlineBecause: "index_model" });
    expect(indexModelOptions(spec, {}, { VAULT_RAG_ALLOW_REMOTE: spec })).toEqual({});
    expect(indexModelOptions(spec, {}, { VAULT_RAG_ALLOW_REMOTE: "transformers:*" })).toEqual({});
    expect(indexModelOptions("use-lite", {}, {})).toEqual({});
    expect(indexModelOptions(spec, { offline: true }, {})).toEqual({ offline: true });
  });
});
