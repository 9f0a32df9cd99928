import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";

let vault = "";

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`vault-rag ${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return r.stdout;
}

/** The `path:line  breadcrumb` line of each hit and its snippet line, by the hit's path. */
function hitsOf(out: string): Map<string, { crumb: string; snippet: string }> {
  const lines = out.replace(/\x1b\[[\d;]*m/g, "").split("\n");
  const hits = new Map<string, { crumb: string; snippet: string }>();
  for (let i = 0; i + 1 < lines.length; i++) {
    const m = /^(\S.*?):\d+ {2}(.*)$/.exec(lines[i]);
    if (m && lines[i + 1].startsWith("    ")) hits.set(m[1], { crumb: m[2], snippet: lines[i + 1].slice(4) });
  }
  return hits;
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error("dist/cli/main.js is missing — run `npm run build`");
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-cjk-")), "vault");
  fs.mkdirSync(path.join(vault, "团队"), { recursive: true });
  // a note whose one passage is a heading and images: nothing of it reads as text
  fs.writeFileSync(
    path.join(vault, "团队", "敏捷组织.md"),
    "# 敏捷组织\n\n![](assets/org-1.png)\n![](assets/org-2.png)\n",
  );
  // a long passage that holds 图片 (of the query 图片整理) only near its end
  fs.writeFileSync(
    path.join(vault, "旅行.md"),
    `# 旅行\n\n${"今天天气很好，我们去公园散步。".repeat(8)}最后把所有图片放进相册。\n`,
  );
  fs.writeFileSync(path.join(vault, "Motors.md"), "# Motors\n\nTwo N20 motors drive the tracks.\n");
  run(["index", vault, "--quiet"]);
}, 120_000);

describe("search in Chinese through the CLI", () => {
  it("marks the part of the query a hit matched, in a snippet centred on it", () => {
    const out = run(["search", "--vault", vault, "--color", "always", "图片整理"]);
    // the bold red of a match around 图片, though the note never writes 图片整理
    expect(out).toContain("\x1b[1;31m图片\x1b[0m");
    const hit = hitsOf(out).get("旅行.md");
    expect(hit, out).toBeDefined();
    expect(hit!.snippet).toMatch(/^….*图片放进相册。$/);
  });

  it("never prints an empty snippet: a heading and images show the breadcrumb", () => {
    const out = run(["search", "--vault", vault, "--color", "never", "敏捷组织"]);
    const hit = hitsOf(out).get("团队/敏捷组织.md");
    expect(hit, out).toBeDefined();
    expect(hit!.snippet.trim()).not.toBe("");
    expect(hit!.snippet).toContain("敏捷组织");
  });
});
