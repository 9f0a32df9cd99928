import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VaultRagError } from "../../src/errors.js";
import {
  decodeLine,
  encodeLine,
  endpointFile,
  envPrint,
  errorOf,
  readEndpoint,
  socketPath,
  wireError,
} from "../../src/serve/endpoint-file.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "vr-endpoint-"));

describe("the resident endpoint's file and wire format", () => {
  it("carries numbers JSON has no words for, and undefined fields drop as in --json", () => {
    const value = { distance: Infinity, score: -Infinity, x: NaN, ranks: { dense: 3 }, gone: undefined };
    const back = decodeLine(encodeLine(value)) as Record<string, unknown>;
    expect(back.distance).toBe(Infinity);
    expect(back.score).toBe(-Infinity);
    expect(back.x).toBeNaN();
    expect(back.ranks).toEqual({ dense: 3 });
    expect("gone" in back).toBe(false);
    expect(encodeLine(value).endsWith("\n")).toBe(true);
    expect(encodeLine(value).trimEnd()).not.toContain("\n");
  });

  it("keeps an object's properties that are not enumerable, still out of JSON (a hit's meta)", () => {
    const hit = Object.defineProperty({ path: "a.md", start_line: 3 }, "meta", {
      value: { start_line: 3, tags: ["x"] },
      enumerable: false,
    });
    const back = decodeLine(encodeLine({ hits: [hit] })) as { hits: { meta: { start_line: number } }[] };
    expect(back.hits[0].meta).toEqual({ start_line: 3, tags: ["x"] });
    expect(Object.keys(back.hits[0])).toEqual(["path", "start_line"]);
    expect(JSON.stringify(back)).toBe(JSON.stringify({ hits: [hit] }));
  });

  it("gives back an error with its code, words and fix", () => {
    const e = new VaultRagError("no_index", "no index at /v/.vault-rag/index.db", {
      fix: { kind: "index", db: "/v/.vault-rag/index.db", vault: "/v" },
    });
    const back = errorOf(
      decodeLine(encodeLine(wireError(e))) as Extract<ReturnType<typeof wireError>, { kind: "vault-rag" }>,
    );
    expect(back).toBeInstanceOf(VaultRagError);
    expect(back.code).toBe("no_index");
    expect(back.what).toBe(e.what);
    expect(back.message).toBe(e.message);
    expect(back.fix).toEqual(e.fix);
    expect(wireError(new Error("boom")).kind).toBe("unexpected");
  });

  it("tells environments apart by the variables that shape an answer only", () => {
    const base = { PATH: "/bin", VAULT_RAG_VAULT: "/a" };
    expect(envPrint({ ...base, PATH: "/usr/bin", VAULT_RAG_VAULT: "/b", VAULT_RAG_NO_DAEMON: "" })).toBe(
      envPrint(base),
    );
    expect(envPrint({ ...base, VAULT_RAG_ALLOW_REMOTE: "ollama:*" })).not.toBe(envPrint(base));
    expect(envPrint({ ...base, OLLAMA_HOST: "10.0.0.2" })).not.toBe(envPrint(base));
    expect(envPrint({ ...base, TZ: "Asia/Tokyo" })).not.toBe(envPrint(base));
  });

  it("puts the socket beside the index, or in a folder of the user's own when that path is too long", () => {
    const dir = tmp();
    const short = endpointFile(dir, path.join(dir, "index.db"));
    expect(short).toBe(path.join(dir, "index.db.endpoint"));
    expect(socketPath(short)).toBe(path.join(dir, "index.db.sock"));
    const deep = path.join(dir, "x".repeat(120), ".vault-rag", "index.db");
    const far = socketPath(endpointFile(dir, deep));
    expect(Buffer.byteLength(far)).toBeLessThanOrEqual(100);
    expect(path.basename(far)).toMatch(/^[0-9a-f]{16}\.sock$/);
    expect(fs.statSync(path.dirname(far)).mode & 0o777).toBe(0o700);
    expect(endpointFile(dir, "chroma://localhost:8000/notes")).toMatch(
      new RegExp(`^${dir}/\\.vault-rag/chroma/[0-9a-f]{16}\\.endpoint$`),
    );
  });

  it("reads an endpoint file only when it is owner-only and of this version", () => {
    const dir = tmp();
    const file = path.join(dir, "index.db.endpoint");
    const info = {
      v: 1,
      version: "0.1.0",
      pid: 1,
      socket: "/s",
      token: "t",
      vault: "/v",
      db: "/d",
      vaultKnown: true,
      env: "e",
    };
    fs.writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
    expect(readEndpoint(file)).toEqual(info);
    fs.chmodSync(file, 0o644);
    expect(readEndpoint(file), "readable by others: not trusted").toBeUndefined();
    fs.chmodSync(file, 0o600);
    fs.writeFileSync(file, JSON.stringify({ ...info, v: 99 }));
    expect(readEndpoint(file), "another version").toBeUndefined();
    fs.writeFileSync(file, "not json");
    expect(readEndpoint(file)).toBeUndefined();
    expect(readEndpoint(path.join(dir, "none"))).toBeUndefined();
  });
});
