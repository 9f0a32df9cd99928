import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MEASURED, strongerModel } from "../../src/core/measured.js";
import { BIN } from "./helpers.js";

/**
 * The hint after a first index and in `status`: the strongest model measured here, its gain over
 * the index's model and the one command that switches, shown once per index. The figures come
 * from the built-in measured table (all-MiniLM-L6-v2 beats the bundled model on til), and from
 * VAULT_RAG_MEASURED where a test gives its own.
 */
let tmp: string;
let weaker: string;
const MINILM = MEASURED.find((m) => m.id === "transformers:sentence-transformers/all-MiniLM-L6-v2")!;
const GAIN = Math.round((MINILM.til.hybrid! - 0.778) * 1000) / 1000;
const LINE = (vault: string) =>
  `stronger model: transformers:sentence-transformers/all-MiniLM-L6-v2 reaches ${MINILM.til.hybrid!.toFixed(3)} nDCG@10 on til (hybrid) here, +${GAIN.toFixed(3)} over use-lite (0.778) — switch: vault-rag models pull sentence-transformers/all-MiniLM-L6-v2 --dtype fp32 --use --vault ${vault}`;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-hint-"));
  weaker = path.join(tmp, "weaker.json");
  // the built-in stronger model's row, replaced by one that does not beat the bundled model
  fs.writeFileSync(weaker, JSON.stringify([{ id: MINILM.id, til: { hybrid: 0.7 } }]));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A small vault of its own. */
function vault(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "Motors.md"), "# Motors\n\nThe robot's motors cut out when the battery sags.\n");
  fs.writeFileSync(path.join(dir, "Bread.md"), "# Bread\n\nThe sourdough starter wants flour and water each day.\n");
  return dir;
}

const cli = (args: string[], table = "") =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd: tmp,
    env: {
      ...process.env,
      VAULT_RAG_MEASURED: table,
      HF_HOME: path.join(tmp, "hf"),
      VAULT_RAG_VAULT: "",
      VAULT_RAG_DB: "",
      NO_COLOR: "1",
    },
    encoding: "utf8",
  });
const hintsIn = (text: string) => text.split("\n").filter((l) => l.startsWith("stronger model:"));

describe("the stronger-model hint", () => {
  it("follows a first index once: not after a re-index or a rebuild, not in a later status; JSON keeps it as a field", () => {
    const v = vault("first");
    const first = cli(["index", v]);
    expect(first.status, first.stderr).toBe(0);
    expect(hintsIn(first.stderr)).toEqual([LINE(v)]);
    expect(hintsIn(first.stdout)).toEqual([]);
    const again = cli(["index", v]);
    expect(again.status, again.stderr).toBe(0);
    expect(hintsIn(again.stderr + again.stdout)).toEqual([]);
    // a full rebuild builds a new index file, which keeps what the old one had shown
    const rebuilt = cli(["index", v, "--full"]);
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(hintsIn(rebuilt.stderr + rebuilt.stdout)).toEqual([]);
    const status = cli(["status", "--vault", v]);
    expect(hintsIn(status.stdout)).toEqual([]);
    const json = JSON.parse(cli(["status", "--vault", v, "--json"]).stdout);
    expect(json.modelHint).toEqual({
      model: MINILM.id,
      current: "use-lite",
      measure: "til hybrid nDCG@10",
      score: MINILM.til.hybrid,
      currentScore: 0.778,
      gain: GAIN,
      pull: { repo: "sentence-transformers/all-MiniLM-L6-v2", dtype: "fp32" },
      shown: true,
    });
    // no measured model beats the index's: no hint, and no field
    expect(JSON.parse(cli(["status", "--vault", v, "--json"], weaker).stdout).modelHint).toBeUndefined();
  }, 120_000);

  it("--quiet hides it after the first index; the next status shows it, once", () => {
    const v = vault("quiet");
    const first = cli(["index", v, "--quiet"]);
    expect(first.status, first.stderr).toBe(0);
    expect(hintsIn(first.stderr + first.stdout)).toEqual([]);
    expect(hintsIn(cli(["status", "--vault", v]).stdout)).toEqual([LINE(v)]);
    expect(hintsIn(cli(["status", "--vault", v]).stdout)).toEqual([]);
  }, 120_000);

  it("index --json gives it as a field only, and leaves it for status to show", () => {
    const v = vault("json");
    const first = cli(["index", v, "--json"]);
    expect(first.status, first.stderr).toBe(0);
    expect(hintsIn(first.stderr)).toEqual([]);
    expect(JSON.parse(first.stdout)).toMatchObject({
      built: true,
      modelHint: { model: MINILM.id, gain: GAIN, shown: false },
    });
    expect(hintsIn(cli(["status", "--vault", v]).stdout)).toEqual([LINE(v)]);
  }, 120_000);

  it("a measured-figures file that is no list of rows is one line and exit 2", () => {
    const bad = path.join(tmp, "bad.json");
    fs.writeFileSync(bad, JSON.stringify([{ id: 3 }]));
    const r = cli(["models"], bad);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `vault-rag: VAULT_RAG_MEASURED: row 1 of ${bad} is no row of figures — give { "id": "<--model value>", "til": { "hybrid": 0.8, … }, "scifact": { … }, "windowsPerSecond": { … } }\n`,
    );
  });
});

describe("vault-rag models: the figures measured here", () => {
  it("shows them beside the published scores and marks the model the index uses", () => {
    const v = vault("models");
    expect(cli(["index", v, "--quiet"]).status).toBe(0);
    const r = cli(["models", "--vault", v]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContain("use-lite   ← the index uses this model");
    expect(lines).toContain(
      "  measured:  til 0.778 (dense 0.433) · SciFact train 0.701 (dense 0.249) · 26.1 / 43.9 windows/s on 1 / 2 threads",
    );
    const minilm = lines.indexOf("transformers:sentence-transformers/all-MiniLM-L6-v2");
    expect(minilm).toBeGreaterThan(0);
    expect(lines[minilm + 3]).toMatch(
      new RegExp(
        `^  measured:  til ${MINILM.til.hybrid!.toFixed(3)} \\(dense ${MINILM.til.dense!.toFixed(3)}\\) · SciFact train `,
      ),
    );
    // the model in use has no switch of its own; the others do
    expect(lines.slice(0, minilm).filter((l) => l.startsWith("  switch:")).length).toBeGreaterThan(0);
    expect(lines[lines.indexOf("use-lite   ← the index uses this model") + 4]).not.toMatch(/switch:/);
    const json = JSON.parse(cli(["models", "--vault", v, "--json"]).stdout);
    expect(json.current).toBe("use-lite");
    expect(json.models[0].measured.til).toEqual({ keyword: 0.736, dense: 0.433, hybrid: 0.778, paraphrase: 0.524 });
    // a row of VAULT_RAG_MEASURED for a listed model replaces the built-in one
    const own = path.join(tmp, "own.json");
    fs.writeFileSync(own, JSON.stringify([{ id: "ollama:nomic-embed-text", til: { hybrid: 0.81, dense: 0.6 } }]));
    const nomic = JSON.parse(cli(["models", "--json"], own).stdout).models.find(
      (m: { id: string }) => m.id === "ollama:nomic-embed-text",
    );
    expect(nomic.measured.til).toEqual({ keyword: null, dense: 0.6, hybrid: 0.81, paraphrase: null });
  }, 120_000);
});

describe("strongerModel", () => {
  const row = (id: string, hybrid: number | undefined) => ({
    id,
    til: { keyword: undefined, dense: undefined, hybrid, paraphrase: undefined },
    scifact: { keyword: undefined, dense: undefined, hybrid: undefined },
    windowsPerSecond: { threads1: undefined, threads2: undefined },
  });
  it("names the best measured model only when it beats a measured index model", () => {
    const table = [
      row("use-lite", 0.779),
      row("transformers:a/b", 0.8),
      row("transformers:c/d", 0.83),
      row("x", undefined),
    ];
    expect(strongerModel("use-lite", table)).toMatchObject({ model: "transformers:c/d", gain: 0.051 });
    expect(strongerModel("transformers:a/b", table)).toMatchObject({ model: "transformers:c/d", gain: 0.03 });
    expect(strongerModel("transformers:c/d", table)).toBeUndefined();
    // an unmeasured index model: no gain can be claimed
    expect(strongerModel("x", table)).toBeUndefined();
    expect(strongerModel("ollama:other", table)).toBeUndefined();
    // the built-in table alone: all-MiniLM-L6-v2 beats the bundled model
    expect(strongerModel("use-lite", MEASURED)).toMatchObject({ model: MINILM.id, gain: GAIN });
  });
});
