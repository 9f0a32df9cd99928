import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/store/index.js";
import { explain, spawnChild } from "../support/children.js";

export const BIN = path.resolve("dist/cli/main.js");

/** The embedding stand-in of {@link startEmbedStub}. */
export interface EmbedStub {
  /** `127.0.0.1:<port>`, for `OLLAMA_HOST`. */
  host: string;
  close: () => Promise<void>;
  /** How many requests have arrived. */
  requests: () => number;
  /** Resolves once `n` requests have arrived in all (at once if they have). */
  reached: (n: number) => Promise<void>;
  /**
   * Holds every answer (a request waits) until {@link EmbedStub.release}: an indexer cannot finish
   * meanwhile. With `which`, only the requests whose inputs it picks are held (the documents of an
   * index run, say, and not a search's question).
   */
  hold: (which?: (inputs: string[]) => boolean) => void;
  /** Sends the answers held and stops holding. */
  release: () => void;
}

/**
 * A local server speaking Ollama's /api/embed with deterministic 32-d vectors derived from each
 * input's hash, and a small delay per request, so indexing runs take seconds and can be killed
 * mid-way. The protocol is Ollama's; only the model is a stand-in. Tests wait on its events
 * (`reached`) and can hold its answers (`hold`/`release`), never on the clock.
 *
 * @example
 * ```ts
 * const stub = await startEmbedStub();
 * const run = cliAsync(["index", vault, "--model", "ollama:stub-embed"], { OLLAMA_HOST: stub.host });
 * await stub.reached(stub.requests() + 3); // the run is embedding
 * ```
 */
export async function startEmbedStub(delayMs = 3): Promise<EmbedStub> {
  let count = 0;
  let held: (() => void)[] | undefined;
  let holds: (inputs: string[]) => boolean = () => true;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      count++;
      for (const w of waiters.filter((w) => w.n <= count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const body = JSON.parse(raw || "{}");
      const embeddings = (body.input as string[]).map((t) => {
        const h = createHash("sha256").update(t).digest();
        return Array.from({ length: 32 }, (_, i) => (h[i] - 127.5) / 128);
      });
      const answer = () =>
        setTimeout(
          () =>
            res
              .writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify({ model: body.model, embeddings })),
          delayMs,
        );
      if (held && holds(body.input as string[])) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    requests: () => count,
    reached: (n) => (count >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    hold: (which = () => true) => {
      holds = which;
      held ??= [];
    },
    release: () => {
      const answers = held ?? [];
      held = undefined;
      for (const a of answers) a();
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
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

/**
 * Runs the CLI asynchronously (the stub server lives in this process), in its own process group:
 * a file that uses it stops leftovers with `afterEach(stopChildren)`. `exited()` says how the run
 * ended, with its stderr, once it has (for {@link until}).
 *
 * @example
 * ```ts
 * const run = cliAsync(["index", vault, "--quiet"], env);
 * const r = await run.done;
 * expect(r.code, explain("index", r)).toBe(0);
 * ```
 */
export function cliAsync(args: string[], env: Record<string, string> = {}, prefix: string[] = []) {
  const cmd = [...prefix, process.execPath, BIN, ...args];
  const p = spawnChild(cmd[0], cmd.slice(1), { env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  let ended: string | undefined;
  p.stdout!.on("data", (d) => (stdout += d));
  p.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) =>
      p.on("close", (code, signal) => {
        ended = explain(`\`vault-rag ${args[0]}\``, { code, signal, stderr });
        resolve({ code, signal, stdout, stderr });
      }),
  );
  return { child: p, done, exited: () => ended };
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

/**
 * How many notes an index file holds committed, read without writing (0 while the file or its
 * tables do not exist yet): for waiting until an indexer's first commit.
 *
 * @example
 * ```ts
 * await until("the first commit", () => committedNotes(db) > 0, run.exited);
 * ```
 */
export function committedNotes(db: string): number {
  if (!fs.existsSync(db)) return 0;
  let conn: Database.Database | undefined;
  try {
    conn = new Database(db, { readonly: true, fileMustExist: true });
    return (conn.prepare("SELECT count(*) AS n FROM notes").get() as { n: number }).n;
  } catch {
    return 0; // not made yet, or its schema not yet committed
  } finally {
    conn?.close();
  }
}
