import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SqliteStore } from "../../src/store/index.js";

export const BIN = path.resolve("dist/cli/main.js");

/**
 * A local server speaking Ollama's /api/embed with deterministic 32-d vectors derived from each
 * input's hash, and a small delay per request, so indexing runs take seconds and can be killed
 * mid-way. The protocol is Ollama's; only the model is a stand-in.
 */
export async function startEmbedStub(
  delayMs = 3,
): Promise<{ host: string; close: () => Promise<void>; requests: () => number }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      count++;
      const body = JSON.parse(raw || "{}");
      const embeddings = (body.input as string[]).map((t) => {
        const h = createHash("sha256").update(t).digest();
        return Array.from({ length: 32 }, (_, i) => (h[i] - 127.5) / 128);
      });
      setTimeout(
        () =>
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ model: body.model, embeddings })),
        delayMs,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { host, requests: () => count, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Runs the CLI to completion, without blocking this process (the stub server lives here). */
export async function cli(args: string[], env: Record<string, string> = {}) {
  const r = await cliAsync(args, env).done;
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/**
 * OBEY_PERMISSIONS: a command prefix under which file permissions apply even to root: root keeps
 * its uid but loses the capabilities that override permission bits (so a mode-000 file is
 * unreadable, a mode-444 index read-only). Empty for other users, to whom permissions apply anyway.
 */
export { OBEY_PERMISSIONS } from "../support/needs.js";

/** Runs the CLI to completion under a command prefix (e.g. {@link OBEY_PERMISSIONS}). */
export async function cliUnder(prefix: string[], args: string[], env: Record<string, string> = {}) {
  const r = await cliAsync(args, env, prefix).done;
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the CLI asynchronously (the stub server lives in this process). */
export function cliAsync(args: string[], env: Record<string, string> = {}, prefix: string[] = []) {
  const cmd = [...prefix, process.execPath, BIN, ...args];
  const p = spawn(cmd[0], cmd.slice(1), { env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  p.stdout.on("data", (d) => (stdout += d));
  p.stderr.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => p.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child: p, done };
}

/** Everything an index holds, for comparing two builds: ids, texts, metadata and vectors. */
export async function exportIndex(db: string) {
  const s = SqliteStore.open(db);
  const rows = (await s.get({ includeVectors: true })).map((r) => ({
    id: r.id,
    text: r.text,
    meta: r.meta,
    windows: r.windows.map((w) => ({ hash: w.hash, vector: Array.from(w.vector) })),
  }));
  const notes = [...(await s.notes()).values()].sort((a, b) => a.path.localeCompare(b.path));
  await s.close();
  return { rows: rows.sort((a, b) => a.id.localeCompare(b.id)), notes };
}
