import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { indexLine } from "../../src/cli/progress.js";
import { useLiteEmbedder } from "../../src/embed/index.js";
import { indexVault, type IndexPhase } from "../../src/indexing/index.js";

const WORDS =
  "river harbor lantern copper meadow falcon granite orchard velvet thunder willow saddle quartz ember canyon glacier".split(
    " ",
  );

/** `n` words of prose unique to `seed`, so that no two notes share a window. */
function prose(seed: number, n: number): string {
  const out: string[] = [];
  for (let w = 0; w < n; w++) out.push(`${WORDS[(seed * 5 + w * w) % WORDS.length]}${w % 9 === 0 ? seed : ""}`);
  return out.join(" ") + ".";
}

/**
 * A vault of 150 short notes and 4 long ones, the long ones first in the order the indexer reads
 * notes (fixed by each path's hash): the first batch alone is no fair sample of the vault.
 */
function skewedVault(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-estimate-"));
  const names = Array.from({ length: 154 }, (_, k) => `note ${k}.md`).sort((a, b) =>
    createHash("sha1").update(a).digest("hex") < createHash("sha1").update(b).digest("hex") ? -1 : 1,
  );
  names.forEach((name, k) => {
    const body = k < 4 ? `## Part one\n\n${prose(k, 400)}\n\n## Part two\n\n${prose(k + 1000, 400)}` : prose(k, 25);
    fs.writeFileSync(path.join(dir, name), `# Note ${k}\n\n${body}\n`);
  });
  return dir;
}

describe("the progress estimate of an indexing run", () => {
  it("reports totals within 25% of the windows embedded and chunks saved once it stops estimating", async () => {
    const vault = skewedVault();
    const events: { phase: IndexPhase; done: number; total: number; estimating?: boolean }[] = [];
    const summary = await indexVault(vault, path.join(vault, "i.db"), useLiteEmbedder(), {
      onProgress: (phase, done, total, estimating) => events.push({ phase, done, total, estimating }),
    });
    const embeds = events.filter((e) => e.phase === "embed" && e.done > 0);
    const firm = embeds.find((e) => !e.estimating);
    expect(firm, JSON.stringify(embeds.slice(0, 5))).toBeDefined();
    // the first total shown as an estimate, not a guess from the first batch's few long notes
    expect(firm!.total / summary.embedded).toBeGreaterThan(0.75);
    expect(firm!.total / summary.embedded).toBeLessThan(1.25);
    const saved = events.find((e) => e.phase === "saved" && !e.estimating)!;
    expect(saved.total / summary.chunks).toBeGreaterThan(0.75);
    expect(saved.total / summary.chunks).toBeLessThan(1.25);
    // every total reported as firm stays near what was embedded
    for (const e of embeds.filter((x) => !x.estimating)) expect(e.total / summary.embedded).toBeLessThan(1.25);
  }, 120_000);

  it("shows no total and no ETA while estimating", () => {
    const work = { notesDone: 3, notesTotal: 154, embedded: 64, toEmbed: 3300, saved: 0, toSave: 0 };
    const line = indexLine({ ...work, estimating: true }, 2, 100);
    expect(line).toMatch(/ 64\/… windows · 32\.0\/s · estimating… · 0 chunks saved$/);
    expect(line).not.toContain("ETA");
    expect(indexLine(work, 2, 100)).toContain("64/~3,300 windows · 32.0/s · ETA");
  });
});
