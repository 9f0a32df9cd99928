import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleVaultCopy } from "../e2e/helpers.js";
import { BIN, request, startServe, type Served } from "./helpers.js";

/**
 * The review's findings on `vault-rag serve`, each against the real server over loopback: a token
 * that fails open, an LLM left generating for a client that has gone, connections held open by a
 * slow client, input that reached a 500, and request targets that skipped the Host check.
 */

let vault = "";
let s: Served;

beforeAll(async () => {
  ({ vault } = exampleVaultCopy("vr-serve-hard-"));
  expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
  s = await startServe(["--vault", vault]);
}, 120_000);
afterAll(async () => {
  await s?.stop();
});

describe("the token off loopback", () => {
  it("does not fail open when VAULT_RAG_TOKEN is set but empty: a random token is required instead", async () => {
    const wide = await startServe(["--vault", vault, "--host", "0.0.0.0"], { VAULT_RAG_TOKEN: "" });
    try {
      expect(wide.token).toMatch(/^[0-9a-f]{64}$/);
      const none = await request(wide.port, "/api/note?path=SMARS");
      expect(none.status).toBe(401);
      expect(none.text).not.toContain("SMARS");
      expect(
        (await request(wide.port, "/api/status", { headers: { authorization: `Bearer ${wide.token}` } })).status,
      ).toBe(200);
    } finally {
      await wide.stop();
    }
  });

  it("refuses to start with a VAULT_RAG_TOKEN too short to guard anything", () => {
    const r = spawnSync(process.execPath, [BIN, "serve", "--vault", vault, "--host", "0.0.0.0", "--port", "0"], {
      encoding: "utf8",
      env: { ...process.env, VAULT_RAG_TOKEN: "abc" },
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^vault-rag: VAULT_RAG_TOKEN is 3 characters — a token needs at least 16/m);
    expect(r.stderr).not.toContain("abc");
  });
});

describe("paths that lead out of the vault", () => {
  it("refuses symlinks to files and folders outside, and NUL bytes, on /api/note and /api/related", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const outside = path.join(path.dirname(vault), "outside");
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, "secret.md"), "# Secret\n\nTOPSECRET\n");
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(vault, "leak.md"));
    fs.symlinkSync(outside, path.join(vault, "outdir"));
    try {
      for (const p of ["leak.md", "leak", "outdir/secret.md", "outdir/secret", "secret", "robots\0/SMARS.md", "\0"]) {
        for (const ep of ["note", "related"]) {
          const r = await request(s.port, `/api/${ep}?path=${encodeURIComponent(p)}`);
          expect(r.status, `${ep} ${JSON.stringify(p)}`).toBeGreaterThanOrEqual(400);
          expect(r.status, `${ep} ${JSON.stringify(p)}`).toBeLessThan(500);
          expect(r.text).not.toContain("TOPSECRET");
          expect(r.json.error).toMatch(/^vault-rag: /);
        }
      }
    } finally {
      fs.rmSync(path.join(vault, "leak.md"));
      fs.rmSync(path.join(vault, "outdir"));
    }
  });
});
