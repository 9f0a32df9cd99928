import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

/**
 * `--per-note` end to end through the CLI on a vault where one note holds the query's phrase in
 * 320 passages (more than a hybrid's pool of 300 candidates) and another note holds it once, deep
 * in a long paragraph, so that every candidate the first lists bring is the big note's.
 */
let vault = "";

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: os.tmpdir(),
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build` (npm test does it)");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-per-note-")), "vault");
  fs.mkdirSync(vault, { recursive: true });
  const firings = Array.from(
    { length: 320 },
    (_, i) =>
      `## Firing ${i}\n\nCeladon glaze on bowl ${i}: the celadon glaze pooled near the foot and the celadon glaze crazed at the rim. Kiln run ${i} cooled slowly overnight, and the celadon glaze kept its pale green colour after the firing.\n`,
  );
  fs.writeFileSync(path.join(vault, "Pottery log.md"), `# Pottery log\n\n${firings.join("\n")}`);
  const market = Array(4)
    .fill("The market stalls sold bread, cheese, apples, honey, wool, candles, baskets and old books to visitors.")
    .join(" ");
  fs.writeFileSync(
    path.join(vault, "Market.md"),
    `# Market\n\n${market} A teacup with a celadon glaze was there too. ${market}\n`,
  );
  const r = run(["index", vault, "--quiet"]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe("--per-note when one note holds every top candidate", () => {
  for (const mode of ["keyword", "dense", "hybrid"])
    it(`${mode}: --per-note 1 gives the other note a hit, then backfills from the big note`, () => {
      const r = run(["search", "--vault", vault, "--json", "--mode", mode, "--per-note", "1", "celadon glaze"]);
      expect(r.code, r.stderr).toBe(0);
      const paths = (JSON.parse(r.stdout) as { path: string }[]).map((h) => h.path);
      expect(paths).toHaveLength(6);
      expect(paths).toContain("Market.md");
      expect(paths.filter((p) => p === "Pottery log.md")).toHaveLength(5);
    });

  it("the hits stay in order of distance", () => {
    const r = run(["search", "--vault", vault, "--json", "--mode", "keyword", "--per-note", "1", "celadon glaze"]);
    expect(r.code, r.stderr).toBe(0);
    const distances = (JSON.parse(r.stdout) as { distance: number }[]).map((h) => h.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
  });
});
