import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder } from "../../src/embed/index.js";
import { installFromFolder, transformersCacheDir, withDtype } from "../../src/embed/hub-cache.js";
import { pullModel, type PullEvent } from "../../src/embed/hub-download.js";
import { folderFiles, startHubStandIn, STANDIN_COMMIT, type HubStandIn } from "../support/hub-standin.js";
import { expectedTinyVector, TINY_DIMS, writeTinyBert } from "./tiny-bert.js";

/**
 * `models pull`'s download, against a stand-in Hub on a loopback port (never the internet): the
 * tiny BERT model of tiny-bert.ts is served as `vault-rag/tiny-bert`, with its weights as both the
 * full-precision and the quantized file, and the pulled files are then loaded by the real
 * `@huggingface/transformers`, offline.
 */
const REPO = "vault-rag/tiny-bert";
let hub: HubStandIn;
let files: Map<string, Buffer>;
let tmp: string;
let cacheDir: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-hub-"));
  files = folderFiles(writeTinyBert(path.join(tmp, "src"), REPO));
  files.set("onnx/model_quantized.onnx", files.get("onnx/model.onnx")!);
  hub = await startHubStandIn();
  hub.add(REPO, files);
});
afterAll(async () => {
  await hub.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
afterEach(() => {
  hub.fetched.length = 0;
  fs.rmSync(cacheDir, { recursive: true, force: true });
});
const freshCache = () => (cacheDir = fs.mkdtempSync(path.join(tmp, "cache-")));

describe("models pull from a Hub stand-in", () => {
  it("fetches the config, the tokenizer and the q8 weights of one commit into the Transformers.js cache layout", async () => {
    const events: PullEvent[] = [];
    const s = await pullModel(REPO, { endpoint: hub.endpoint, cacheDir: freshCache(), onEvent: (e) => events.push(e) });
    const dir = path.join(cacheDir, "vault-rag", "tiny-bert");
    expect(s).toMatchObject({ model: REPO, spec: `transformers:${REPO}`, dtype: "q8", dir, commit: STANDIN_COMMIT });
    expect(s.files.map((f) => f.path)).toEqual([
      "config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "onnx/model_quantized.onnx",
    ]);
    expect(hub.fetched.map((f) => f.path)).toEqual(s.files.map((f) => f.path));
    expect(fs.readFileSync(path.join(dir, "onnx/model_quantized.onnx"))).toEqual(
      files.get("onnx/model_quantized.onnx"),
    );
    expect(fs.readFileSync(path.join(dir, "tokenizer.json"))).toEqual(files.get("tokenizer.json"));
    expect(fs.existsSync(path.join(dir, "onnx/model.onnx"))).toBe(false);
    // the config records the weights variant where Transformers.js reads it
    expect(JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"))["transformers.js_config"]).toEqual({
      dtype: "q8",
    });
    expect(fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".part"))).toEqual([]);
    expect(events[0]).toMatchObject({ kind: "listed", bytes: [...s.files].reduce((n, f) => n + f.bytes, 0) });
    expect(events.filter((e) => e.kind === "done").length).toBe(4);
    expect(s.downloaded).toBe(events[0].kind === "listed" ? events[0].bytes : -1);
  });

  it("keeps the files already there and intact: a second pull fetches only the config again", async () => {
    await pullModel(REPO, { endpoint: hub.endpoint, cacheDir: freshCache() });
    hub.fetched.length = 0;
    const again = await pullModel(REPO, { endpoint: hub.endpoint, cacheDir });
    expect(hub.fetched.map((f) => f.path)).toEqual(["config.json"]);
    expect(again.files.filter((f) => f.reused).map((f) => f.path)).toEqual([
      "tokenizer.json",
      "tokenizer_config.json",
      "onnx/model_quantized.onnx",
    ]);
  });

  it("resumes a part left by a stopped pull with a Range request, and checks the whole file", async () => {
    const dir = path.join(freshCache(), "vault-rag", "tiny-bert", "onnx");
    fs.mkdirSync(dir, { recursive: true });
    const weights = files.get("onnx/model.onnx")!;
    const half = Math.floor(weights.length / 2);
    fs.writeFileSync(path.join(dir, "model.onnx.part"), weights.subarray(0, half));
    const s = await pullModel(REPO, { endpoint: hub.endpoint, cacheDir, dtype: "fp32" });
    expect(hub.fetched.find((f) => f.path === "onnx/model.onnx")).toEqual({
      repo: REPO,
      path: "onnx/model.onnx",
      range: `bytes=${half}-`,
    });
    expect(s.files.find((f) => f.path === "onnx/model.onnx")?.resumedFrom).toBe(half);
    expect(fs.readFileSync(path.join(dir, "model.onnx"))).toEqual(weights);
    expect(fs.existsSync(path.join(dir, "model.onnx.part"))).toBe(false);
    // full precision is the library's default: the config is kept as published
    expect(fs.readFileSync(path.join(cacheDir, REPO, "config.json"))).toEqual(files.get("config.json"));
  });

  it("deletes a file whose checksum is not the one listed, and says so", async () => {
    const repo = "vault-rag/damaged";
    hub.add(repo, files);
    hub.misreport(repo, "onnx/model_quantized.onnx", "0".repeat(64));
    await expect(pullModel(repo, { endpoint: hub.endpoint, cacheDir: freshCache() })).rejects.toThrow(
      /^vault-rag: onnx\/model_quantized\.onnx arrived damaged \(checksum sha256 [0-9a-f]{64} where the Hub lists 0{64}\) and was deleted — run the same command to fetch it again$/,
    );
    const onnx = path.join(cacheDir, repo, "onnx");
    expect(fs.readdirSync(onnx)).toEqual([]);
  });

  it("says a name the Hub does not have is not found (404)", async () => {
    await expect(
      pullModel("vault-rag/absent", { endpoint: hub.endpoint, cacheDir: freshCache() }),
    ).rejects.toMatchObject({
      code: "not_found",
      message: `vault-rag: model "vault-rag/absent" was not found on the Hugging Face Hub at ${hub.endpoint} (its file list: 404) — check the name (owner/name, e.g. Xenova/bge-small-en-v1.5)`,
    });
  });

  it("names the weights a model has when it lacks the ones asked for", async () => {
    await expect(pullModel(REPO, { endpoint: hub.endpoint, cacheDir: freshCache(), dtype: "fp16" })).rejects.toThrow(
      'vault-rag: model "vault-rag/tiny-bert" on the Hub has no onnx/model_fp16.onnx — it has onnx/model.onnx (--dtype fp32), onnx/model_quantized.onnx (--dtype q8)',
    );
  });

  it("says the Hub cannot be reached when nothing listens at the address", async () => {
    // a port that was free a moment ago: nothing listens there
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const endpoint = `http://127.0.0.1:${port}`;
    await expect(pullModel(REPO, { endpoint, cacheDir: freshCache() })).rejects.toMatchObject({
      code: "download_failed",
      message: `vault-rag: cannot reach the Hugging Face Hub at ${endpoint} (ECONNREFUSED) — check the network (offline?), set HF_ENDPOINT to a mirror, or install a copied folder with --from`,
    });
  });

  it("the pulled files load through the real Transformers.js provider, offline", async () => {
    await pullModel(REPO, { endpoint: hub.endpoint, cacheDir: freshCache() });
    const e = createEmbedder(`transformers:${REPO}`, { cacheDir, offline: true });
    const [v] = await e.embedDocuments(["Robot motors"]);
    expect(v).toHaveLength(TINY_DIMS);
    const want = expectedTinyVector("robot motors");
    for (let d = 0; d < TINY_DIMS; d++) expect(v[d]).toBeCloseTo(want[d], 5);
  });
});

describe("models pull --from a folder copied by hand", () => {
  it("installs the files of the owner/name layout into the cache, with the weights recorded", () => {
    const r = installFromFolder(REPO, path.join(tmp, "src"), { cacheDir: freshCache(), dtype: "fp32" });
    expect(r.dir).toBe(path.join(cacheDir, "vault-rag", "tiny-bert"));
    expect(r.files.map((f) => f.path)).toEqual([
      "config.json",
      "tokenizer.json",
      "tokenizer_config.json",
      "onnx/model.onnx",
    ]);
    expect(fs.readFileSync(path.join(r.dir, "onnx/model.onnx"))).toEqual(files.get("onnx/model.onnx"));
  });

  it("refuses a folder without the weights asked for, naming what is missing", () => {
    expect(() => installFromFolder(REPO, path.join(tmp, "src", REPO), { cacheDir: freshCache() })).toThrow(
      `vault-rag: ${path.join(tmp, "src", REPO)} lacks onnx/model_quantized.onnx (the q8 weights; --dtype chooses others) — copy the model's whole folder`,
    );
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });
});

describe("the cache the provider reads", () => {
  it("follows TRANSFORMERS_CACHE, then HF_HOME/transformers, then the installed library's .cache", () => {
    expect(transformersCacheDir({ TRANSFORMERS_CACHE: "/a/tc", HF_HOME: "/a/hf" })).toBe("/a/tc");
    expect(transformersCacheDir({ HF_HOME: "/a/hf" })).toBe("/a/hf/transformers");
    // an empty TRANSFORMERS_CACHE is the provider's default too
    expect(transformersCacheDir({ TRANSFORMERS_CACHE: "", HF_HOME: "/a/hf" })).toBe(transformersCacheDir({}));
    expect(transformersCacheDir({})).toBe(path.resolve("node_modules/@huggingface/transformers/.cache"));
    cacheDir = fs.mkdtempSync(path.join(tmp, "cache-"));
  });

  it("records the weights variant unless the config names one", () => {
    expect(JSON.parse(withDtype('{"model_type":"bert"}', "q8"))).toEqual({
      model_type: "bert",
      "transformers.js_config": { dtype: "q8" },
    });
    const own = '{"transformers.js_config":{"dtype":"q4"}}';
    expect(withDtype(own, "q8")).toBe(own);
    expect(withDtype('{"a":1}', "fp32")).toBe('{"a":1}');
    cacheDir = fs.mkdtempSync(path.join(tmp, "cache-"));
  });
});
