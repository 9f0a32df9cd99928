import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { writeTinyBert } from "../embed/tiny-bert.js";
import { spawnChild, stopChildren, until } from "../support/children.js";
import { folderFiles, startHubStandIn, type HubStandIn } from "../support/hub-standin.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

/**
 * `vault-rag models pull` as a user runs it, against a stand-in Hub (HF_ENDPOINT on a loopback
 * port) and a cache of the test's own (HF_HOME): Ctrl-C in the middle of the weights and the same
 * command again, `--from` and `--use`, and the one-line errors.
 */
const REPO = "vault-rag/tiny-bert";
let hub: HubStandIn;
let tmp: string;
let weights: Buffer;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-pull-"));
  const files = folderFiles(writeTinyBert(path.join(tmp, "src"), REPO));
  weights = files.get("onnx/model.onnx")!;
  files.set("onnx/model_quantized.onnx", weights);
  hub = await startHubStandIn();
  hub.add(REPO, files);
});
afterAll(async () => {
  await hub.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
afterEach(stopChildren);

function envFor(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HF_ENDPOINT: hub.endpoint,
    HF_HOME: home,
    VAULT_RAG_VAULT: "",
    VAULT_RAG_DB: "",
    NO_COLOR: "1",
  };
  delete env.TRANSFORMERS_CACHE;
  delete env.HF_HUB_OFFLINE;
  return env;
}
/** Runs the CLI to its end. Never `spawnSync`: the stand-in Hub answers from this process. */
function cli(args: string[], home: string, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawnChild(process.execPath, [BIN, ...args], {
      cwd: tmp,
      env: { ...envFor(home), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("vault-rag models pull", () => {
  it("stops at Ctrl-C in the middle of the weights, keeps the part, and the same command resumes it", async () => {
    const home = fs.mkdtempSync(path.join(tmp, "home-"));
    const part = path.join(home, "transformers", REPO, "onnx", "model_quantized.onnx.part");
    const half = hub.hold("onnx/model_quantized.onnx");
    const child = spawnChild(process.execPath, [BIN, "models", "pull", REPO], {
      cwd: tmp,
      env: envFor(home),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    let exit: number | null | undefined;
    const exited = new Promise<void>((r) => child.on("close", (code) => ((exit = code), r())));
    const gone = () => (exit !== undefined ? `the pull exited with ${exit}: ${stderr}` : undefined);
    const sent = await half;
    await until(
      "the first half of the weights written to the part",
      () => fs.statSync(part, { throwIfNoEntry: false })?.size === sent,
      gone,
    );
    child.kill("SIGINT");
    await exited;
    hub.release();
    expect(exit, stderr).toBe(130);
    expect(stderr).toContain(
      "vault-rag: the download was stopped — what was fetched is kept; the same command resumes it",
    );
    expect(fs.statSync(part).size).toBe(sent);

    hub.fetched.length = 0;
    const again = await cli(["models", "pull", REPO], home);
    expect(again.status, again.stderr).toBe(0);
    expect(hub.fetched.find((f) => f.path === "onnx/model_quantized.onnx")?.range).toBe(`bytes=${sent}-`);
    expect(fs.readFileSync(part.replace(/\.part$/, ""))).toEqual(weights);
    expect(fs.existsSync(part)).toBe(false);
    expect(again.stdout).toContain(
      `pulled ${REPO} (q8 weights) into ${path.join(home, "transformers", REPO)} — 4 files`,
    );
    expect(again.stdout).toContain(`switch: vault-rag index --full --model transformers:${REPO}`);
  }, 120_000);

  it("with --use rebuilds the index with the pulled model, which then answers searches offline", async () => {
    const home = fs.mkdtempSync(path.join(tmp, "home-"));
    const { vault } = exampleVaultCopy("vr-pull-use-");
    try {
      expect((await cli(["index", vault, "--quiet"], home)).status).toBe(0);
      const r = await cli(["models", "pull", REPO, "--use", "--vault", vault, "--quiet"], home);
      expect(r.status, r.stderr).toBe(0);
      const status = await cli(["status", "--vault", vault, "--json"], home);
      expect(JSON.parse(status.stdout).model).toBe(`transformers:${REPO}`);
      const search = await cli(["search", "--vault", vault, "--mode", "dense", "--json", "robot motors"], home);
      expect(search.status, search.stderr).toBe(0);
      expect(JSON.parse(search.stdout).length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(path.dirname(vault), { recursive: true, force: true });
    }
  }, 120_000);

  it("--from installs a folder copied by hand without the network, and refuses one that lacks the weights", async () => {
    const home = fs.mkdtempSync(path.join(tmp, "home-"));
    // the Hub's address points where nothing listens: nothing is fetched
    const ok = await cli(["models", "pull", REPO, "--from", path.join(tmp, "src"), "--dtype", "fp32", "--json"], home, {
      HF_ENDPOINT: "http://127.0.0.1:1",
    });
    expect(ok.status, ok.stderr).toBe(0);
    const out = JSON.parse(ok.stdout);
    expect(out).toMatchObject({
      model: REPO,
      dtype: "fp32",
      switch: `vault-rag index --full --model transformers:${REPO}`,
    });
    expect(fs.readFileSync(path.join(home, "transformers", REPO, "onnx", "model.onnx"))).toEqual(weights);
    const lacking = await cli(["models", "pull", REPO, "--from", path.join(tmp, "src")], home);
    expect(lacking.status).toBe(2);
    expect(lacking.stderr).toBe(
      `vault-rag: ${path.join(tmp, "src", REPO)} lacks onnx/model_quantized.onnx (the q8 weights; --dtype chooses others) — copy the model's whole folder\n`,
    );
  });

  it("a name the Hub does not have is one line and exit 2", async () => {
    const r = await cli(["models", "pull", "vault-rag/absent"], fs.mkdtempSync(path.join(tmp, "home-")));
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `vault-rag: model "vault-rag/absent" was not found on the Hugging Face Hub at ${hub.endpoint} (its file list: 404) — check the name (owner/name, e.g. Xenova/bge-small-en-v1.5)\n`,
    );
  });
});
