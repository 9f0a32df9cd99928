/**
 * The resident endpoint: a process that holds a vault open (`serve`, `mcp`, `watch`, `chat`)
 * answers the CLI's reading commands on a Unix socket, with the handle the CLI would open alone
 * (the same core, options and environment), so a search from the CLI pays neither the model nor
 * the index. The socket is the owner's only (mode 0600, and a folder of the owner's own when it
 * cannot sit beside the index); every request carries the token of the endpoint file, which only
 * the owner can read. See `endpoint-file.ts` for the file and the wire format.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import type { VaultHandle } from "../library.js";
import type { Logger } from "../log.js";
import { VERSION } from "../version.js";
import {
  alive,
  decodeLine,
  ENDPOINT_VERSION,
  encodeLine,
  endpointFile,
  envPrint,
  readEndpoint,
  removeEndpoint,
  RESIDENT_METHODS,
  socketPath,
  wireError,
  type EndpointInfo,
  type WireLog,
  type WireReply,
  type WireRequest,
} from "./endpoint-file.js";

/** The handle's methods a CLI may call: those that read. `describe` names the handle's vault and index. */
const METHODS = new Set<string>(["describe", ...RESIDENT_METHODS]);

/** The longest request line taken (a search request is well under 1 MB). */
const MAX_LINE = 1024 * 1024;

/** Options of {@link listenResident}. */
export interface ResidentOptions {
  /** The vault and index, as the CLI resolves them. */
  vault: string;
  db: string;
  /** Whether the handle opens the vault as the index's, as the CLI alone would (see `isVaultKnown` in `src/cli/open.ts`). */
  vaultKnown: boolean;
  /** Opens the handle the CLI would open alone, reporting through `log`; called at the first request. */
  open(log: Logger): Promise<VaultHandle>;
  /** The process writing the index, this one included (what `status` names), if any. */
  writer(): number | undefined;
  /**
   * Runs a whole CLI command for a thin client (`src/cli/served.ts`): `request` as the client sent
   * it, the handle's methods called through `call`. Without it, the endpoint answers handle calls only.
   */
  cli?(request: unknown, call: (method: string, args: unknown[]) => Promise<WireReply>): Promise<unknown>;
}

/** A listening endpoint. */
export interface Resident {
  /** The endpoint file. */
  file: string;
  /** Stops answering, removes the endpoint file and the socket, and closes the handle. */
  close(): Promise<void>;
}

/**
 * Listens for the CLI on this vault's endpoint, unless another live process already does (then
 * undefined: that one answers), or the index's folder cannot hold the endpoint file (a read-only
 * vault: the CLI runs alone). A stale endpoint file (its process gone, or its socket refusing) is
 * replaced.
 *
 * @example
 * ```ts
 * const r = await listenResident({ vault, db, vaultKnown: true, open: (log) => openVault(vault, { log }), writer: () => undefined });
 * await r?.close();
 * ```
 */
export async function listenResident(o: ResidentOptions): Promise<Resident | undefined> {
  const file = endpointFile(o.vault, o.db);
  let socket: string;
  try {
    socket = socketPath(file);
    if (!(await clearStale(file))) return undefined;
  } catch {
    return undefined;
  }
  const token = crypto.randomBytes(32).toString("hex");
  const answer = answerer(o, token);
  const server = net.createServer((sock) => serveConnection(sock, answer.reply));
  if (!(await listen(server, socket))) return undefined;
  // the endpoint never keeps a process up: it ends as it would without one (mcp when stdin closes)
  server.unref();
  const info: EndpointInfo = {
    v: ENDPOINT_VERSION,
    version: VERSION,
    pid: process.pid,
    socket,
    token,
    vault: o.vault,
    db: o.db,
    vaultKnown: o.vaultKnown,
    env: envPrint(),
  };
  if (!claim(file, info)) {
    server.close();
    return undefined;
  }
  // an exit of any kind but a kill removes the file; a kill leaves it stale, which the CLI detects
  const cleanup = () => removeEndpoint(file, info);
  process.on("exit", cleanup);
  return {
    file,
    async close() {
      process.off("exit", cleanup);
      cleanup();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await answer.close();
    },
  };
}

/**
 * Makes way for this process's endpoint: true when there is none, or a stale one was removed;
 * false when a live process answers there, or the file is not this user's own.
 */
async function clearStale(file: string): Promise<boolean> {
  const existing = readEndpoint(file);
  if (!existing) {
    try {
      const st = fs.lstatSync(file);
      if (st.uid !== process.getuid?.()) return false;
      fs.unlinkSync(file); // this user's own, but no endpoint file of this version
    } catch {
      // none there
    }
    return true;
  }
  if (existing.pid !== process.pid && alive(existing.pid) && (await connects(existing.socket))) return false;
  removeEndpoint(file, existing);
  return true;
}

/** Whether a socket takes a connection. */
function connects(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** Listens on the socket, owner-only; false when it cannot (a folder that refuses it). */
function listen(server: net.Server, socket: string): Promise<boolean> {
  try {
    fs.unlinkSync(socket); // a socket left by a killed process (its endpoint file was stale)
  } catch {
    // none
  }
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(socket, () => {
      try {
        fs.chmodSync(socket, 0o600);
        resolve(true);
      } catch {
        server.close();
        resolve(false);
      }
    });
  });
}

/** Writes the endpoint file, owner-only, only if no other process wrote one meanwhile. */
function claim(file: string, info: EndpointInfo): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(info) + "\n", { mode: 0o600, flag: "wx" });
    fs.linkSync(tmp, file);
    return true;
  } catch {
    return false;
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // not written
    }
  }
}

/** Reads request lines from a connection and writes each answer as a line. */
function serveConnection(sock: net.Socket, reply: (line: string) => Promise<string>): void {
  let pending = "";
  sock.setEncoding("utf8");
  sock.on("error", () => undefined); // a client that went away: nothing to answer
  sock.on("data", (chunk: string) => {
    pending += chunk;
    // refused in a line (a thin client then runs alone without a word), and nothing more is read
    if (pending.length > MAX_LINE) {
      pending = "";
      sock.pause();
      const refusal: WireReply = {
        ok: false,
        error: { kind: "unexpected", message: "vault-rag: a request over 1 MB" },
        logs: [],
      };
      return void sock.end(encodeLine(refusal));
    }
    for (let cut = pending.indexOf("\n"); cut >= 0; cut = pending.indexOf("\n")) {
      const line = pending.slice(0, cut);
      pending = pending.slice(cut + 1);
      void reply(line).then((answer) => {
        if (!sock.destroyed) sock.write(answer);
      });
    }
  });
}

/** What answers requests: the handle opened once, with the logger calls of each request kept apart. */
function answerer(o: ResidentOptions, token: string) {
  const calls = new AsyncLocalStorage<WireLog[]>();
  const record =
    (kind: WireLog[0]) =>
    (...a: unknown[]) =>
      void calls.getStore()?.push([kind, ...a]);
  const log = { warn: record("warn"), info: record("info"), debug: record("debug") } as Logger;
  let handle: Promise<VaultHandle> | undefined;
  const opened = () =>
    (handle ??= o.open(log).catch((e) => {
      handle = undefined;
      throw e;
    }));
  /** Calls a method of the handle, its logger calls kept with the reply. */
  const call = async (method: string, args: unknown[]): Promise<WireReply> => {
    const logs: WireLog[] = [];
    try {
      const value = await calls.run(logs, async () => {
        const v = await opened();
        if (method === "describe") return { vault: v.vault, db: v.db };
        if (!METHODS.has(method)) throw new Error(`vault-rag: the resident process does not answer "${method}"`);
        const f = (v as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
        return f.apply(v, args);
      });
      return { ok: true, value, logs, writer: o.writer() };
    } catch (e) {
      return { ok: false, error: wireError(e), logs };
    }
  };
  const expected = Buffer.from(token);
  const refused = (message: string): string =>
    encodeLine({ ok: false, error: { kind: "unexpected", message }, logs: [] } satisfies WireReply);
  return {
    async reply(line: string): Promise<string> {
      let req: WireRequest;
      try {
        req = decodeLine(line) as WireRequest;
      } catch {
        return refused("vault-rag: a request to the resident process was no JSON");
      }
      const given = Buffer.from(String(req?.token ?? ""));
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
        return refused("vault-rag: wrong token");
      if (req.vault !== o.vault || req.db !== o.db)
        return refused(`vault-rag: this process holds ${o.vault} (${o.db}), not ${req.vault} (${req.db})`);
      if (!Array.isArray(req.args) || !(METHODS.has(req.method) || (req.method === "cli" && o.cli)))
        return refused(`vault-rag: the resident process does not answer "${req.method}"`);
      if (req.method !== "cli") return encodeLine(await call(req.method, req.args));
      try {
        const value = await o.cli!(req.args[0], call);
        return encodeLine({ ok: true, value, logs: [], writer: o.writer() } satisfies WireReply);
      } catch (e) {
        return encodeLine({ ok: false, error: wireError(e), logs: [] } satisfies WireReply);
      }
    },
    async close() {
      await (await handle?.catch(() => undefined))?.close();
    },
  };
}
