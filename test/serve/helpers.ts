import type { ChildProcess } from "node:child_process";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import type { VaultHandle } from "../../src/library.js";
import type { AppOptions } from "../../src/serve/app.js";
import { spawnChild } from "../support/children.js";

export const BIN = path.resolve("dist/cli/main.js");

/** A `vault-rag serve` process started by a test: its address (as printed), token, and output. */
export interface Served {
  proc: ChildProcess;
  /** `http://127.0.0.1:<port>` (no trailing slash, no token). */
  origin: string;
  port: number;
  /** The token it printed, when it printed one. */
  token?: string;
  /** Everything printed so far. */
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts the built CLI's `serve` on a free port and waits for the address it prints, however long
 * that takes (the test's timeout bounds it). The port is read from that line, so the test talks to
 * exactly the server the user would. The process runs in its own group: a file that starts servers
 * stops any left running with `afterAll(stopChildren)` (test/support/children.ts).
 */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const proc = spawnChild(process.execPath, [BIN, "serve", "--port", "0", ...args], {
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  let out = "";
  let err = "";
  proc.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.on("exit", (code) => reject(new Error(`serve exited with ${code}:\n${out}\n${err}`)));
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /at (http:\/\/(\S+?):(\d+))\/(?:\?token=([0-9a-f]+))?\n(?:.*\n)*Ctrl-C to stop\n/.exec(out);
      if (!m) return;
      const port = Number(m[3]);
      resolve({
        proc,
        origin: `http://127.0.0.1:${port}`,
        port,
        token: m[4],
        stdout: () => out,
        stderr: () => err,
        stop: () =>
          new Promise<void>((r) => {
            if (proc.exitCode !== null || proc.signalCode !== null) return r();
            proc.once("exit", () => r());
            proc.kill("SIGTERM");
          }),
      });
    });
  });
}

/** Reads a server-sent-event stream into its events, in order. */
export async function readSse(
  res: Response,
  onEvent: (e: { event: string; data: any; at: number }) => void = () => {},
): Promise<{ event: string; data: any; at: number }[]> {
  const events: { event: string; data: any; at: number }[] = [];
  const text = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await text.read();
    if (done) break;
    buf += value;
    let cut: number;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n");
      events.push({ event, data: JSON.parse(data), at: performance.now() });
      onEvent(events[events.length - 1]);
    }
  }
  return events;
}

/**
 * One plain HTTP request with full control of the headers (fetch will not send a foreign Host), on
 * a connection of its own: a kept-alive one that the server closes after 5 s idle can be reused by a
 * test whose loop was blocked (spawnSync on a busy machine) in the moment it closes, and the request
 * then fails with "socket hang up".
 */
export function request(
  port: number,
  target: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: target, method: opts.method ?? "GET", headers: opts.headers, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** An Ollama-protocol model that never stops: one token every 100 ms, until its client hangs up. */
export function endlessLlm(): Promise<{
  base: string;
  open: () => number;
  requests: () => number;
  close(): Promise<void>;
}> {
  let open = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    // the check before an ask lists the models, as Ollama does at once
    if (req.method === "GET" && req.url === "/api/tags")
      return void req.on("end", () => res.end(JSON.stringify({ models: [{ name: "endless" }] })));
    req.on("end", () => {
      requests++;
      open++;
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      const t = setInterval(
        () => res.write(JSON.stringify({ message: { role: "assistant", content: "more " }, done: false }) + "\n"),
        100,
      );
      res.on("close", () => {
        clearInterval(t);
        open--;
      });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        base: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
        open: () => open,
        requests: () => requests,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}

/** A vault of these notes (name → text) in a new temporary folder, indexed, and its open handle. */
export async function indexedVault(
  prefix: string,
  notes: Record<string, string>,
): Promise<{ vault: string; v: VaultHandle }> {
  const fs = await import("node:fs");
  const os = await import("node:os");
  const { openVault } = await import("../../src/library.js");
  const vault = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [name, text] of Object.entries(notes)) fs.writeFileSync(path.join(vault, name), text);
  const v = await openVault(vault);
  await v.index();
  return { vault, v };
}

/** The web app for a vault handle, run in this process (Hono's `app.request`) at 127.0.0.1:4321, with these options. */
export async function inProcessApp(v: VaultHandle, extra: Partial<AppOptions> = {}) {
  const { createApp } = await import("../../src/serve/app.js");
  const app = createApp({
    vault: v,
    host: "127.0.0.1",
    port: () => 4321,
    llm: "ollama:none",
    assets: { html: "", js: "", css: "" },
    ...extra,
  });
  return {
    app,
    get: (target: string) => app.request(`http://127.0.0.1:4321${target}`, { headers: { host: "127.0.0.1:4321" } }),
  };
}
