import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { getRequestListener } from "@hono/node-server";
import { batchLine, type Watcher } from "../library.js";
import { openVault, type OpenVaultOptions, type VaultHandle } from "../library.js";
import { DEFAULT_LLM } from "../core/defaults.js";
import type { Logger } from "../log.js";
import { silentLogger } from "../log.js";

import { VaultRagError } from "../errors.js";
import { createApp, type IndexingState } from "./app.js";
import { loadAssets } from "./assets.js";
import { SERVE_DEFAULTS } from "./defaults.js";
import { isLoopback, isWildcard, shownHost } from "./guard.js";
import { canonicalHost } from "./host.js";

/** Options of {@link startServer}; defaults in {@link SERVE_DEFAULTS}. */
export interface ServeOptions extends OpenVaultOptions {
  port?: number;
  host?: string;
  /** Keep the index fresh as notes change (and build it when there is none). */
  watch?: boolean;
  /** Chat model for ask (default `ollama:llama3.2`). */
  llm?: string;
  /** An origin allowed to call the API from a browser; none when unset. */
  cors?: string;
  /** The token a non-loopback bind requires (default: `VAULT_RAG_TOKEN`, else 32 random hex bytes; at least 16 characters). */
  token?: string;
  log?: Logger;
  /** Told of each watch batch and error, one line each. */
  report?: (line: string) => void;
}

/** A running server. */
export interface RunningServer {
  /**
   * The address to open on this machine, e.g. `http://127.0.0.1:4321/`; with the token in it when
   * one is needed. A server bound to every interface (`0.0.0.0`, `::`) is opened at loopback here.
   */
  url: string;
  /** Bound to every interface: the addresses other machines may open it at (this machine's own, not loopback). */
  elsewhere?: string[];
  port: number;
  /** The token every request must present, when bound to a non-loopback address. */
  token?: string;
  vault: VaultHandle;
  close(): Promise<void>;
}

/** The shortest token a non-loopback bind accepts from `VAULT_RAG_TOKEN` (or the `token` option). */
export const MIN_TOKEN_CHARS = 16;

/**
 * The token a non-loopback bind requires: the one given, else 32 random bytes in hex. An empty one
 * counts as not given (it would otherwise switch the check off); a short one is refused.
 */
function tokenFor(given: string | undefined): string {
  if (!given) return randomBytes(32).toString("hex");
  if (given.length < MIN_TOKEN_CHARS)
    throw new VaultRagError(
      "usage",
      `vault-rag: VAULT_RAG_TOKEN is ${given.length} characters — a token needs at least ${MIN_TOKEN_CHARS}; unset it to get a random one`,
    );
  return given;
}

/** An origin for `--cors`: scheme, host and port, nothing more (a browser sends exactly that). */
function checkOrigin(origin: string): void {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || url.origin !== origin)
    throw new VaultRagError(
      "usage",
      `vault-rag: --cors "${origin}" is not an origin — give one like http://localhost:5173 (scheme, host and port; no path or trailing slash)`,
    );
}

/**
 * Starts `vault-rag serve`: the web app and the HTTP API over one vault, on loopback by default. A
 * non-loopback address gets a token, required on every request.
 *
 * @example
 * ```ts
 * const s = await startServer("/home/me/notes", { port: 0 });
 * await fetch(`${s.url}api/search?q=motors`);
 * await s.close();
 * ```
 */
export async function startServer(vaultDir: string, opts: ServeOptions = {}): Promise<RunningServer> {
  const host = opts.host ?? SERVE_DEFAULTS.host;
  const token = isLoopback(host) ? undefined : tokenFor(opts.token ?? process.env.VAULT_RAG_TOKEN);
  if (opts.cors !== undefined) checkOrigin(opts.cors);
  // questions are embedded on a thread of their own, beside the keyword search; the model and the
  // dense index load while the server starts (without an index, the first request says so)
  const vault = await openVault(vaultDir, { ...opts, queryThread: true, remote: true });
  try {
    vault.llm(opts.llm); // an --llm that names no provider is a usage error now, not at the first ask
  } catch (e) {
    await vault.close();
    throw e;
  }
  vault.warm().catch(() => undefined);
  let indexing: IndexingState | undefined;
  let watcher: Watcher | undefined;
  let port = opts.port ?? SERVE_DEFAULTS.port;
  const app = createApp({
    vault,
    host,
    port: () => port,
    token,
    cors: opts.cors,
    llm: opts.llm ?? DEFAULT_LLM,
    assets: loadAssets(),
    indexing: () => indexing,
    watching: !!opts.watch,
  });
  // what Node or the adapter refuses before the app sees it (a Host header that is no host name, a
  // backslash in the path) still gets a JSON error
  const listener = getRequestListener(app.fetch, {
    hostname: host,
    errorHandler: (e) =>
      Response.json(
        {
          error: `vault-rag: the request cannot be read (${(e as Error)?.message ?? String(e)}) — send an HTTP request to http://${shownHost(host)}:${port}/`,
          code: "usage",
        },
        { status: 400 },
      ),
  });
  const server = http.createServer(
    {
      headersTimeout: SERVE_DEFAULTS.headersMs,
      requestTimeout: SERVE_DEFAULTS.requestMs,
      connectionsCheckingInterval: 1000,
      // no Host header is refused by the app's Host check, with a JSON error, not Node's bare 400
      requireHostHeader: false,
    },
    listener,
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: Error & { code?: string }) =>
      reject(
        new VaultRagError(
          "usage",
          `vault-rag: cannot listen on ${host}:${port}: ${e.code === "EADDRINUSE" ? "the port is in use" : e.message} — choose another --port or --host`,
        ),
      ),
    );
    server.listen(port, host, () => {
      port = (server.address() as AddressInfo).port;
      resolve();
    });
  });
  // a request Node cannot parse (not HTTP, headers over 16 KB) or that is too slow still gets a JSON
  // error, never a crash; nothing is written into a response already under way on the connection
  server.on("clientError", (e: Error & { code?: string }, socket) => {
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (!socket.writable || inFlight) return void socket.destroy();
    const [status, error] =
      e.code === "HPE_HEADER_OVERFLOW"
        ? ["431 Request Header Fields Too Large", "the request's headers (or its URL) are over 16 KB — send less"]
        : e.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? [
              "408 Request Timeout",
              `the request took too long to arrive (over ${SERVE_DEFAULTS.headersMs / 1000} s for its headers or ${SERVE_DEFAULTS.requestMs / 1000} s in all) — send it at once`,
            ]
          : ["400 Bad Request", `the request is not HTTP that this server reads (${e.code ?? e.message})`];
    const body = JSON.stringify({ error: `vault-rag: ${error}`, code: "usage" });
    // then closed from this side: `end` alone leaves the socket half-open (an HTTP server's are),
    // and a client that never closes its own held it, and a file descriptor, for as long as it liked
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
  if (opts.watch) {
    watcher = await vault.watch({
      log: opts.log ?? silentLogger,
      onProgress: (phase, done, total) => void (indexing = { phase, done, total }),
      onBatch: (s) => {
        indexing = undefined;
        opts.report?.(batchLine(s));
      },
      onError: (e) => {
        indexing = undefined;
        opts.report?.((e as Error).message);
      },
    });
  }
  const at = (h: string) => `http://${shownHost(h)}:${port}/${token ? `?token=${token}` : ""}`;
  // 0.0.0.0 is no address a browser can open: here it is loopback, elsewhere the machine's own
  const wildcard = isWildcard(host);
  return {
    url: at(wildcard ? (host.includes(":") ? "::1" : "127.0.0.1") : canonicalHost(host)),
    ...(wildcard ? { elsewhere: machineAddresses(host.includes(":")).map(at) } : {}),
    port,
    token,
    vault,
    async close() {
      await watcher?.close();
      await new Promise<void>((r) => {
        server.close(() => r());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await vault.close();
    },
  };
}

/** This machine's addresses on its network interfaces, loopback and link-local left out; IPv6 ones only for an IPv6 bind. */
function machineAddresses(v6: boolean): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && (a.family === "IPv4" || (v6 && !a.address.startsWith("fe80"))))
    .map((a) => a!.address);
}
