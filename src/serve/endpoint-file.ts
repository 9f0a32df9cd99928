/**
 * The resident endpoint's file and wire format, shared by the process that holds a vault open (see
 * `endpoint.ts`) and the CLI that asks it (`src/cli/resident.ts`, `thin.ts`). Light: Node's own
 * modules, the error type and the version only, so a CLI search that finds a resident process
 * loads nothing heavy.
 *
 * The endpoint file sits beside the index (`<index>.endpoint`; for a Chroma index, in the vault's
 * sidecar folder), readable by its owner only. It names the vault and index the process holds, how
 * it opened them, the environment that shapes an answer, the socket, and a random token that every
 * request must carry.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { VaultRagError, type Fix, type VaultRagErrorCode } from "../errors.js";
import { VERSION } from "../version.js";

/** The version of the endpoint file and of the requests it answers. */
export const ENDPOINT_VERSION = 1;

/** The handle's methods a CLI asks a resident process: those that read. */
export const RESIDENT_METHODS = [
  "search",
  "related",
  "status",
  "modelHint",
  "ready",
  "changed",
  "tags",
  "folders",
  "props",
  "askContext",
] as const;

/** The longest socket path used beside the index; a longer one goes to the per-user runtime folder (`sun_path` holds 107 bytes). */
const MAX_SOCKET_PATH = 100;

/** What the endpoint file records. */
export interface EndpointInfo {
  v: number;
  /** vault-rag's version: a CLI of another version never asks. */
  version: string;
  pid: number;
  socket: string;
  token: string;
  /** The vault and index the process holds, as the CLI resolves them (absolute). */
  vault: string;
  db: string;
  /** Whether it opened the vault as the index's (see `isVaultKnown` in `src/cli/open.ts`): a CLI that would not runs alone. */
  vaultKnown: boolean;
  /** {@link envPrint} of the process: a CLI in another environment runs alone. */
  env: string;
}

/** The environment variables that can change what a search, a listing or a status says. */
const ENV_PREFIXES = ["VAULT_RAG_", "HF_", "TRANSFORMERS_", "OPENAI_", "OLLAMA_", "CHROMA_"];
/** Those that only say where the vault is (compared as paths), how the CLI runs, or how fast. */
const ENV_IGNORED = new Set(["VAULT_RAG_VAULT", "VAULT_RAG_DB", "VAULT_RAG_NO_DAEMON", "VAULT_RAG_THREADS"]);

/**
 * A digest of the environment variables that shape an answer (`VAULT_RAG_*`, `HF_*`, `OPENAI_*`,
 * `OLLAMA_*`, `CHROMA_*`, `TRANSFORMERS_*`, `XDG_CACHE_HOME`, `TZ`): a resident process answers
 * only a CLI whose digest is its own.
 *
 * @example
 * ```ts
 * envPrint({ VAULT_RAG_ALLOW_REMOTE: "ollama:*" }) === envPrint({}); // false
 * ```
 */
export function envPrint(env: NodeJS.ProcessEnv = process.env): string {
  const kept = Object.keys(env)
    .filter(
      (k) => (ENV_PREFIXES.some((p) => k.startsWith(p)) || k === "XDG_CACHE_HOME" || k === "TZ") && !ENV_IGNORED.has(k),
    )
    .sort()
    .map((k) => [k, env[k]]);
  return crypto.createHash("sha256").update(JSON.stringify(kept)).digest("hex").slice(0, 32);
}

/**
 * Where the endpoint file of an index is: beside an index file, or in the vault's sidecar folder
 * for a Chroma collection.
 *
 * @example
 * ```ts
 * endpointFile("/home/me/notes", "/home/me/notes/.vault-rag/index.db"); // "/home/me/notes/.vault-rag/index.db.endpoint"
 * ```
 */
export function endpointFile(vault: string, db: string): string {
  if (!/^chroma:/i.test(db)) return `${db}.endpoint`;
  return path.join(vault, ".vault-rag", "chroma", `${digest(db)}.endpoint`);
}

const digest = (s: string) => crypto.createHash("sha256").update(s).digest("hex").slice(0, 16);

/**
 * The socket of an endpoint: beside its file when the path fits a Unix socket address, else in a
 * folder of this user's own (`$XDG_RUNTIME_DIR/vault-rag`, or `<tmp>/vault-rag-<uid>`, mode 0700).
 *
 * @example
 * ```ts
 * socketPath("/home/me/notes/.vault-rag/index.db.endpoint"); // "/home/me/notes/.vault-rag/index.db.sock"
 * ```
 */
export function socketPath(file: string): string {
  const beside = file.replace(/\.endpoint$/, ".sock");
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  return path.join(runtimeDir(), `${digest(file)}.sock`);
}

/** This user's folder for sockets whose path beside the index is too long; created owner-only. */
function runtimeDir(): string {
  const uid = process.getuid?.() ?? 0;
  const base = process.env.XDG_RUNTIME_DIR;
  const dir = base ? path.join(base, "vault-rag") : path.join(os.tmpdir(), `vault-rag-${uid}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  // a folder of that name made by another user (or a link to one) would let that user listen in
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0)
    throw new Error(`${dir} is not a folder of this user's own (mode 0700)`);
  return dir;
}

/**
 * Reads an endpoint file, or undefined when there is none, it is not this user's own and
 * owner-only, or it is not an endpoint file of this version.
 *
 * @example
 * ```ts
 * readEndpoint("/home/me/notes/.vault-rag/index.db.endpoint")?.pid; // 4242
 * ```
 */
export function readEndpoint(file: string): EndpointInfo | undefined {
  let text: string;
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      const st = fs.fstatSync(fd);
      const uid = process.getuid?.();
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) return undefined;
      text = fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  try {
    const e = JSON.parse(text) as EndpointInfo;
    return e && e.v === ENDPOINT_VERSION && typeof e.socket === "string" && typeof e.token === "string" ? e : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an endpoint's process holds `vault` and `db` as a CLI of this version, in this
 * environment ({@link envPrint}), would ask it to.
 *
 * @example
 * ```ts
 * holds(readEndpoint(endpointFile(vault, db))!, vault, db); // true when a resident process of this version holds them
 * ```
 */
export function holds(e: EndpointInfo, vault: string, db: string): boolean {
  return e.version === VERSION && e.vault === vault && e.db === db && e.env === envPrint();
}

/**
 * Removes an endpoint file if it still holds the endpoint `e` (a process that replaced it since
 * keeps its own), and that endpoint's socket.
 *
 * @example
 * ```ts
 * removeEndpoint(file, stale);
 * ```
 */
export function removeEndpoint(file: string, e: EndpointInfo): void {
  if (readEndpoint(file)?.token !== e.token) return;
  for (const f of [file, e.socket])
    try {
      fs.unlinkSync(f);
    } catch {
      // gone already
    }
}

/**
 * Whether a socket is one this user may send a request to: a socket of this user's own, owner-only
 * (in a folder others can write to, another user could put one in its place to read the token
 * and the request).
 *
 * @example
 * ```ts
 * ownSocket("/home/me/notes/.vault-rag/index.db.sock"); // true while a resident process listens there
 * ```
 */
export function ownSocket(socket: string): boolean {
  try {
    const st = fs.lstatSync(socket);
    const uid = process.getuid?.();
    return st.isSocket() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * Whether a process id names a running process (of any user: a signal refused is a process there).
 *
 * @example
 * ```ts
 * alive(process.pid); // true
 * ```
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A request to a resident process: one JSON line. */
export interface WireRequest {
  token: string;
  vault: string;
  db: string;
  method: string;
  args: unknown[];
}

/**
 * How one request to a resident process ended: its reply; `refused`, no connection (no socket of
 * this user's own, see {@link ownSocket}, or none listening there); `gone`, closed before a whole
 * answer came; `garbled`, an answer that is no JSON.
 */
export type Exchange = WireReply | "refused" | "gone" | "garbled";

/**
 * Sends one request line to a resident process's socket and waits for its answer line.
 *
 * @example
 * ```ts
 * const r = await exchange(e.socket, { token: e.token, vault: e.vault, db: e.db, method: "tags", args: [] });
 * if (typeof r !== "string" && r.ok) console.log(r.value);
 * ```
 */
export function exchange(socket: string, req: WireRequest): Promise<Exchange> {
  return new Promise((resolve) => {
    if (!ownSocket(socket)) return resolve("refused");
    const s = net.connect(socket);
    let sent = false;
    const chunks: Buffer[] = [];
    s.once("connect", () => {
      sent = true;
      s.write(encodeLine(req));
    });
    s.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (!chunk.includes(10)) return;
      const text = Buffer.concat(chunks).toString("utf8");
      s.destroy();
      try {
        resolve(decodeLine(text.slice(0, text.indexOf("\n"))) as WireReply);
      } catch {
        resolve("garbled");
      }
    });
    s.on("error", () => undefined); // "close" follows
    s.once("close", () => resolve(sent ? "gone" : "refused"));
  });
}

/** A logger call made while a request ran, replayed by the CLI's own logger. */
export type WireLog = ["warn" | "info" | "debug", ...unknown[]];

/** A resident process's answer: one JSON line. */
export type WireReply =
  { ok: true; value: unknown; logs: WireLog[]; writer?: number } | { ok: false; error: WireError; logs: WireLog[] };

/** An error as it crosses the socket: a {@link VaultRagError}'s parts, or an unexpected error's words. */
export type WireError =
  | { kind: "vault-rag"; code: VaultRagErrorCode; what: string; message: string; fix?: Fix }
  | { kind: "unexpected"; message: string };

/** The key under which a line carries an object's own properties that are not enumerable. */
const HIDDEN = "$hidden";

/**
 * A value as one JSON line, numbers JSON has no words for (`Infinity`, `NaN`) kept, and an
 * object's own properties that are not enumerable (a hit's `meta`, `ranks`, `named`: what the
 * terminal shows and `--json` leaves out) carried apart, to be made non-enumerable again.
 *
 * @example
 * ```ts
 * decodeLine(encodeLine({ distance: Infinity })); // { distance: Infinity }
 * ```
 */
export function encodeLine(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) return { $number: String(v) };
      if (!v || typeof v !== "object" || Array.isArray(v)) return v;
      const hidden = Object.getOwnPropertyNames(v).filter((k) => !Object.prototype.propertyIsEnumerable.call(v, k));
      if (!hidden.length) return v;
      const o = v as Record<string, unknown>;
      return { ...o, [HIDDEN]: Object.fromEntries(hidden.map((k) => [k, o[k]])) };
    }) + "\n"
  );
}

/** The value of a line {@link encodeLine} wrote. */
export function decodeLine(line: string): unknown {
  return JSON.parse(line, (_k, v: unknown) => {
    if (!v || typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === "$number") return Number(o.$number);
    const hidden = o[HIDDEN] as Record<string, unknown> | undefined;
    if (!hidden) return v;
    delete o[HIDDEN];
    for (const [k, x] of Object.entries(hidden)) Object.defineProperty(o, k, { value: x, enumerable: false });
    return o;
  });
}

/**
 * An error as it crosses the socket.
 *
 * @example
 * ```ts
 * wireError(new VaultRagError("usage", "bad tag")); // { kind: "vault-rag", code: "usage", … }
 * ```
 */
export function wireError(e: unknown): WireError {
  if (e instanceof VaultRagError)
    return {
      kind: "vault-rag",
      code: e.code,
      what: e.what,
      message: e.message,
      ...(e.fix ? { fix: e.fix } : {}),
    };
  return { kind: "unexpected", message: (e as Error)?.stack ?? String(e) };
}

/**
 * The {@link VaultRagError} a {@link wireError} was made of: the same code, words and fix.
 *
 * @example
 * ```ts
 * errorOf(wireError(e)).code === e.code; // true
 * ```
 */
export function errorOf(w: Extract<WireError, { kind: "vault-rag" }>): VaultRagError {
  const e = new VaultRagError(w.code, w.what, w.fix ? { fix: w.fix } : {});
  e.message = w.message;
  return e;
}
