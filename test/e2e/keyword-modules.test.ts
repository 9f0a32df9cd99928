import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, indexedFixtureCopy } from "./helpers.js";

/**
 * What a cold CLI search loads (docs/decisions/cold-start.md): a keyword search loads no dense
 * code and not the model; a hybrid search loads both. The modules are recorded by a loader hook
 * (test/fixtures/module-list/record.mjs) in the CLI's own process.
 */
const RECORD = path.resolve("test/fixtures/module-list/record.mjs");
/** The model's code (TensorFlow.js and its kernels load with it) and the dense index's. */
const MODEL = /dist\/embed\/use-lite\/model\.js$/;
const DENSE = /dist\/store\/sqlite\/(dense-index|dense-query|snapshot-thread|snapshot-file|simd-dot)\.js$/;
/** The language detector: only an index that stems another language than English needs it. */
const DETECTOR = /node_modules\/eld\//;
/** The vault's reading code: a search reads the index, not the notes' Markdown and YAML. */
const READING = /node_modules\/(markdown-it|yaml|chokidar)\//;

let tmp = "";
let vault = "";

beforeAll(() => {
  ({ tmp, vault } = indexedFixtureCopy("test/fixtures/short-queries/vault", "vr-modules-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The hits of `vault-rag search <query> --json` with `args`, and the modules its process loaded. */
function searchLoads(query: string, args: string[]): { paths: string[]; modules: string[] } {
  const list = path.join(tmp, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const r = spawnSync(
    process.execPath,
    ["--import", RECORD, BIN, "search", query, "--vault", vault, "--json", "--no-daemon", ...args],
    { cwd: tmp, encoding: "utf8", env: { ...process.env, VR_MODULE_LIST: list } },
  );
  expect(r.status, r.stderr).toBe(0);
  const paths = (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path);
  return { paths, modules: fs.readFileSync(list, "utf8").split("\n").filter(Boolean) };
}

describe("a cold CLI search loads what its mode needs", () => {
  it("keyword: no model, no dense index, no Markdown or YAML parser", () => {
    const { paths, modules } = searchLoads("PCA", ["--mode", "keyword"]);
    expect(paths[0]).toBe("Principle Component Analysis.md");
    expect(modules.some((m) => m.endsWith("dist/cli/commands/search-cmd.js"))).toBe(true);
    expect(modules.filter((m) => MODEL.test(m) || DENSE.test(m) || READING.test(m))).toEqual([]);
  });

  it("hybrid: the model and the dense index", () => {
    const { paths, modules } = searchLoads("PCA", []);
    expect(paths[0]).toBe("Principle Component Analysis.md");
    expect(modules.some((m) => MODEL.test(m))).toBe(true);
    expect(modules.some((m) => DENSE.test(m))).toBe(true);
    expect(modules.filter((m) => READING.test(m))).toEqual([]);
  });

  it("hybrid, in an index of English passages: no language detector, even for words WordNet lacks", () => {
    // "kalman" and "tuned" are not all WordNet words: the question is not English by its words alone
    const { paths, modules } = searchLoads("how is the kalman gain tuned", []);
    expect(paths.length).toBeGreaterThan(0);
    expect(modules.some((m) => MODEL.test(m))).toBe(true);
    expect(modules.filter((m) => DETECTOR.test(m))).toEqual([]);
  });
});
