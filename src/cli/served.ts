/**
 * The resident process's side of the thin client (`thin.ts`): it runs a client's command line with
 * the program the client would have run (`program.ts`), in the client's working directory,
 * environment and terminals, its handle calls answered by this process's own core. What the
 * command writes and its exit code go back to the client. Commands run one at a time.
 */
import type { WireReply } from "../serve/endpoint-file.js";
import { Declined, runFor, type ForeignProcess, type ServedBy, type Terminal } from "./context.js";
import { ResidentGone } from "./resident.js";
import { thinCommand, type ClientReply, type ClientRequest } from "./thin.js";

/** The vault and index a resident process holds, and whether it opened the vault as the index's. */
export type Held = Pick<ServedBy, "vault" | "db" | "vaultKnown">;

/**
 * Runs the commands of thin clients for a resident process that holds `held`, one at a time.
 *
 * @example
 * ```ts
 * const run = commandRunner({ vault, db, vaultKnown: true });
 * await run({ argv: ["tags", "--json"], cwd: vault, env: {}, stdout: {} }, call);
 * // { run: "done", written: [["out", "[…]\n"]], exitCode: 0 }
 * ```
 */
export function commandRunner(held: Held) {
  let queue: Promise<unknown> = Promise.resolve();
  return (request: unknown, call: (method: string, args: unknown[]) => Promise<WireReply>): Promise<ClientReply> => {
    const run = queue.then(() => runOne(held, request, call));
    queue = run.catch(() => undefined);
    return run;
  };
}

/** Runs one client's command line. */
async function runOne(
  held: Held,
  request: unknown,
  call: (method: string, args: unknown[]) => Promise<WireReply>,
): Promise<ClientReply> {
  const r = clientRequest(request);
  // only the reading commands, as the client would run them: no other runs in a resident process
  if (!r || !thinCommand(r.argv)) return { run: "declined" };
  const p: ForeignProcess = {
    cwd: r.cwd,
    env: r.env,
    stdout: r.stdout,
    written: [],
    served: { ...held, pid: process.pid, call },
  };
  try {
    await runFor(p, async () => (await import("./program.js")).runCommand(r.argv));
  } catch (x) {
    if (x instanceof Declined) return { run: "declined" };
    const message = x instanceof ResidentGone && x.failure ? x.failure : String((x as Error)?.message ?? x);
    return { run: "failed", message: message.split("\n")[0]! };
  }
  return { run: "done", written: p.written, exitCode: p.exitCode ?? 0 };
}

/** A client's request, checked: undefined when it is not one. */
function clientRequest(x: unknown): ClientRequest | undefined {
  const r = x as Partial<ClientRequest> | undefined;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((s) => typeof s === "string");
  const terminal = (t: unknown): t is Terminal => !!t && typeof t === "object";
  if (!r || !strings(r.argv) || typeof r.cwd !== "string" || !r.env || typeof r.env !== "object") return undefined;
  if (!terminal(r.stdout)) return undefined;
  return r as ClientRequest;
}
