import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { spawnChild, stopChildren } from "../support/children.js";
import { CHROMA_MISSING, needs } from "../support/needs.js";
import { BIN, exampleVaultCopy, loadMarker } from "./helpers.js";
import { SqliteStore } from "../../src/store/index.js";
import { shellArg } from "../../src/shell-arg.js";

/**
 * The whole CLI against a real Chroma server: the same vault indexed into SQLite and into a
 * Chroma collection must give the same search results for every filter and mode.
 */
let vault = "";
let elsewhere = "";
let chroma = "";
const collection = () => `${inject("chromaUrl").replace(/^http:/, "chroma:")}/cli-${randomUUID().slice(0, 8)}`;

function run(args: string[], env: Record<string, string> = {}, node: string[] = []) {
  const r = spawnSync(process.execPath, [...node, BIN, ...args], {
    cwd: elsewhere,
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", ...env },
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (args: string[]) => {
  const r = run([...args, "--json"]);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
type Hit = { path: string; section: string; score: number; tags: string[]; folder: string; mtime: number };
const shape = (hits: Hit[]) => hits.map((h) => `${h.path} > ${h.section}`);

beforeAll(() => {
  ({ vault, elsewhere } = exampleVaultCopy("vr-chroma-e2e-"));
  chroma = collection();
});

afterEach(stopChildren);

describe.skipIf(!!CHROMA_MISSING)(needs("vault-rag CLI on a Chroma server", CHROMA_MISSING), () => {
  it("indexes the vault into a collection, as into the embedded store", () => {
    const local = json(["index", vault]);
    const remote = json(["index", vault, "--db", chroma]);
    expect(remote).toMatchObject({ added: 43, failed: 0, chunks: local.chunks, dbPath: chroma });
    expect(remote.embedded).toBe(local.embedded);
  });

  it("gives the same results as the embedded store for every filter flag and mode", () => {
    const queries: string[][] = [
      ["how do the SMARS motors work"],
      ["--per-note", "6", "--oversample", "1", "how do the SMARS motors work"],
      ["--tag", "pico", "how do I save power"],
      ["--folder", "kitchen", "bread"],
      ["--top-folder", "robots", "motor"],
      ["--since", "2d", "bread"],
      ["--until", "2d", "bread"],
      ["--where", '{"word_count": {"$gt": 40}}', "motor"],
      ["--where-document", '{"$contains": "DRV8833"}', "driver"],
      ["--tag", "robots", "--tag", "projects/robots", "motor"],
      ["--mode", "keyword", "sourdough starter"],
      ["--mode", "dense", "-k", "3", "battery runtime"],
      ["--min-ratio", "0.8", "wiring the motor driver"],
    ];
    for (const q of queries) {
      const local: Hit[] = json(["search", "--vault", vault, ...q]);
      const remote: Hit[] = json(["search", "--vault", vault, "--db", chroma, ...q]);
      // the same hits at the same scores, rank by rank (hits with equal scores may swap places), to
      // the 10⁻⁴ the embedded store's float16 vectors move a score by (the server keeps float32)
      expect(shape(remote).sort(), q.join(" ")).toEqual(shape(local).sort());
      remote.forEach((h, i) => expect(h.score).toBeCloseTo(local[i].score, 3));
    }
    for (const h of json(["search", "--vault", vault, "--db", chroma, "--tag", "pico", "how do I save power"]))
      expect(h.tags).toContain("pico");
    expect([
      ...new Set(json(["search", "--vault", vault, "--db", chroma, "--since", "2d", "bread"]).map((h: Hit) => h.path)),
    ]).toEqual(["kitchen/Sourdough.md"]);
  });

  it("says which path keyword search took, with --verbose", () => {
    const r = run(["search", "--vault", vault, "--db", chroma, "--verbose", "-k", "1", "motor"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `index: ${chroma} (use-lite:universal-sentence-encoder-lite); dense: Chroma server; keyword: sidecar`,
    );
  });

  it("reports status and builds the same context for ask --context-only", () => {
    const st = json(["status", "--vault", vault, "--db", chroma]);
    expect(st).toMatchObject({
      vault,
      index: chroma,
      model: "use-lite",
      dimensions: 512,
      notes: 43,
      attachments: 3,
      stale: 0,
    });
    const local = run(["ask", "--vault", vault, "--context-only", "--tag", "pico", "how do I save power"]);
    const remote = run([
      "ask",
      "--vault",
      vault,
      "--db",
      chroma,
      "--context-only",
      "--tag",
      "pico",
      "how do I save power",
    ]);
    expect(remote.code).toBe(0);
    expect(remote.stdout).toBe(local.stdout);
    expect(remote.stdout).toContain("Pico W");
  });

  it("re-indexes incrementally: nothing when unchanged, only the edited note after an edit", () => {
    expect(json(["index", vault, "--db", chroma])).toMatchObject({ added: 0, updated: 0, unchanged: 43, embedded: 0 });
    fs.appendFileSync(
      path.join(vault, "robots/SMARS.md"),
      "\n## Firmware\n\nMicroPython drives both motors with PWM at 20 kHz, a zebra-quiet setting.\n",
    );
    const s = json(["index", vault, "--db", chroma]);
    expect(s).toMatchObject({ updated: 1, unchanged: 42 });
    // the short new section joins the note's last passage: only that passage's windows are embedded again
    expect(s.embedded).toBeGreaterThan(0);
    expect(s.embedded).toBeLessThanOrEqual(4);
    expect(json(["search", "--vault", vault, "--db", chroma, "-k", "1", "zebra-quiet PWM"])[0].path).toBe(
      "robots/SMARS.md",
    );
    expect(json(["check", "--vault", vault, "--db", chroma])).toMatchObject({ ok: true, problems: [] });
  });

  it("embeds nothing again when its keyword sidecar was lost and rebuilt from the server", () => {
    const sidecar = path.join(vault, ".vault-rag", "chroma");
    for (const f of fs.readdirSync(sidecar)) fs.rmSync(path.join(sidecar, f), { recursive: true, force: true });
    // the rebuilt sidecar knows no note's hash, so every note is read again; each passage's vector
    // comes back from the collection (a passage of several windows as its pooled vector)
    const again = json(["index", vault, "--db", chroma]);
    expect(again).toMatchObject({ failed: 0, embedded: 0 });
    expect(json(["index", vault, "--db", chroma])).toMatchObject({ updated: 0, unchanged: 43, embedded: 0 });
    expect(json(["search", "--vault", vault, "--db", chroma, "-k", "1", "zebra-quiet PWM"])[0].path).toBe(
      "robots/SMARS.md",
    );
    expect(json(["check", "--vault", vault, "--db", chroma])).toMatchObject({ ok: true, problems: [] });
  });

  it("rebuilds with --full into a new collection and swaps it in", () => {
    const s = json(["index", vault, "--db", chroma, "--full"]);
    expect(s).toMatchObject({ added: 43, embedded: 0, dbPath: chroma });
    expect(json(["status", "--vault", vault, "--db", chroma])).toMatchObject({ notes: 43, attachments: 3, stale: 0 });
  });

  it("migrates an index between backends without re-embedding, and refuses a target that holds one", async () => {
    json(["index", vault]); // bring the file up to date with the edit
    const target = collection();
    const m = json(["migrate", "--vault", vault, "--to", target]);
    expect(m).toMatchObject({ from: path.join(vault, ".vault-rag/index.db"), to: target, notes: 46 });
    const q = ["-k", "6", "how do the SMARS motors work"];
    expect(shape(json(["search", "--vault", vault, "--db", target, ...q]))).toEqual(
      shape(json(["search", "--vault", vault, ...q])),
    );
    // and back into a new file
    const file = path.join(path.dirname(vault), "back.db");
    expect(json(["migrate", "--vault", vault, "--db", target, "--to", file])).toMatchObject({
      to: file,
      notes: 46,
      chunks: m.chunks,
    });
    expect(json(["index", vault, "--db", file])).toMatchObject({ unchanged: 43, embedded: 0 });
    // the links' sentences (backlink text) went there and back with the chunks
    const links = async (db: string) => {
      const s = SqliteStore.open(db, { readonly: true });
      const l = await s.linkTexts();
      await s.close();
      return l;
    };
    const original = await links(path.join(vault, ".vault-rag/index.db"));
    expect(original.size).toBeGreaterThan(5);
    expect(await links(file)).toEqual(original);
    const again = run(["migrate", "--vault", vault, "--to", target]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(
      `vault-rag: ${target} already holds an index (${m.chunks} chunks) — migrate into a new file or collection, or delete it first`,
    );
  });

  it("keeps a Chroma index fresh under watch", async () => {
    const watcher = spawnChild(process.execPath, [BIN, "watch", vault, "--db", chroma, "--json"], {
      cwd: elsewhere,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stderr = "";
      watcher.stderr!.on("data", (d) => (stderr += d));
      await new Promise<void>((resolve, reject) => {
        watcher.stdout!.once("data", () => resolve()); // the first pass is done
        watcher.once("close", (code) => reject(new Error(`watch exited with code ${code}: ${stderr}`)));
      });
      fs.writeFileSync(
        path.join(vault, "travel/Rottnest.md"),
        "# Rottnest\n\nA day cycling around the island to see a quokka.\n",
      );
      let found: Hit[] = [];
      // until the watcher has indexed it, however long that takes (the test's timeout bounds it)
      while (!found.some((h) => h.path === "travel/Rottnest.md")) {
        await new Promise((r) => setTimeout(r, 200));
        // no hits yet exits 1 with [] (as grep does); hits exit 0
        const r = run(["search", "--vault", vault, "--db", chroma, "--mode", "keyword", "quokka", "--json"]);
        expect([0, 1]).toContain(r.code);
        found = JSON.parse(r.stdout);
      }
      expect(found.map((h) => h.path)).toContain("travel/Rottnest.md");
      // the watcher runs a search whole (no argument parser loaded here), as this process would alone
      const marker = loadMarker(elsewhere, { "/node_modules/commander/esm.mjs": "commander" });
      const args = ["search", "--vault", vault, "--db", chroma, "--json", "quokka island"];
      const asked = run(args, {}, ["--import", marker]);
      const alone = run([...args, "--no-daemon"], {}, ["--import", marker]);
      expect(alone.stderr, "--no-daemon parsed its arguments here").toContain("[test] loaded commander");
      expect(asked.stderr, "the watcher ran the search").not.toContain("[test] loaded commander");
      expect([asked.code, asked.stdout]).toEqual([alone.code, alone.stdout]);
    } finally {
      watcher.kill("SIGINT");
      await new Promise((r) => watcher.on("close", r));
    }
    expect(json(["status", "--vault", vault, "--db", chroma])).toMatchObject({ notes: 44, attachments: 3, stale: 0 });
  });

  it("explains an unreachable server and a missing collection", () => {
    const down = run(["search", "--vault", vault, "--db", "chroma://127.0.0.1:9/notes", "motor"]);
    expect(down.code).toBe(2); // an error, not "no hits"
    expect(down.stderr.trim()).toBe(
      "vault-rag: Chroma is not reachable at http://127.0.0.1:9 — start it with `chroma run --path <dir> --port 9` or check --db",
    );
    const model = run(["search", "--vault", vault, "--db", chroma, "--model", "ollama:nomic-embed-text", "motor"]);
    expect(model.code).toBe(2);
    expect(model.stderr.trim()).toBe(
      `vault-rag: index at ${chroma} was built with use-lite (512-d) — run \`vault-rag index ${vault} --full --model ollama:nomic-embed-text --db ${chroma}\` to rebuild`,
    );
    const missing = collection();
    const r = run(["search", "--vault", vault, "--db", missing, "motor"]);
    expect(r.code).toBe(2);
    // the fix names the vault and the collection: `index <vault>` alone would build the vault's own file
    expect(r.stderr.trim()).toBe(
      `vault-rag: no index at ${missing} — run \`vault-rag index ${shellArg(vault)} --db ${missing}\` first`,
    );
  });
});
