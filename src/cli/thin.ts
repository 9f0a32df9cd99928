/**
 * The thin client: a reading command (`search`, `related`, `status`, `tags`, `folders`, `props`)
 * asks the resident process that holds its vault to run it whole, and prints what it wrote with
 * its exit code. The command line is parsed and the output rendered there, by the same program
 * (`served.ts`), so this path loads Node's own modules and a few small ones: no argument parser,
 * no core. The vault it asks for is only a guess from the arguments; the resident process parses
 * them and declines a command that names another vault or index, or would run alone (a model
 * flag, `--no-daemon`): the command then runs here, as it would without a resident process.
 */
import { resolveDb, resolveVault } from "../config.js";
import { alive, endpointFile, exchange, holds, readEndpoint, type EndpointInfo } from "../serve/endpoint-file.js";
import type { Terminal } from "./context.js";

/** The commands a resident process runs whole. `ask` is not one: its chat model runs in the asking process. */
export const THIN_COMMANDS: ReadonlySet<string> = new Set(["search", "related", "status", "tags", "folders", "props"]);

/** The commands whose first argument is the vault. */
const VAULT_ARGUMENT = new Set(["status", "tags", "folders"]);

/** Flags after which a command runs alone, or prints what this process knows (help, version). */
const ALONE_FLAGS = new Set(["--no-daemon", "--model", "--offline", "--model-dir", "-h", "--help", "-V", "--version"]);

/**
 * The environment variables a command reads itself (where the vault is, colour, time zone); what
 * else shapes an answer is the resident process's own, the same by the endpoint's digest. Only
 * these are sent.
 */
const SENT_ENV = /^(VAULT_RAG_|NO_COLOR$|FORCE_COLOR$|TERM$|COLORTERM$|TZ$)/;

/** The environment variable that makes every command run alone (any value but empty or `0`). */
export const NO_DAEMON_ENV = "VAULT_RAG_NO_DAEMON";

/**
 * Whether an environment makes every command run alone ({@link NO_DAEMON_ENV}).
 *
 * @example
 * ```ts
 * runsAlone({ VAULT_RAG_NO_DAEMON: "1" }); // true
 * runsAlone({ VAULT_RAG_NO_DAEMON: "0" }); // false
 * ```
 */
export function runsAlone(env: NodeJS.ProcessEnv): boolean {
  const v = env[NO_DAEMON_ENV];
  return v !== undefined && v !== "" && v !== "0";
}

/** A command-line word's flag: `--vault=~/notes` is `--vault`. */
const flagOf = (a: string) => (a.startsWith("--") && a.includes("=") ? a.slice(0, a.indexOf("=")) : a);

/** What a thin client sends: its command line, working directory, environment and standard output's terminal. */
export interface ClientRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  stdout: Terminal;
}

/** What the resident process answers: what the command wrote to each stream, in order, and its exit code; or why it did not run it. */
export type ClientReply =
  | { run: "done"; written: ["out" | "err", string][]; exitCode: number }
  | { run: "declined" }
  | { run: "failed"; message: string };

/**
 * The line that says a resident process went away or failed while answering, and the command
 * runs alone.
 *
 * @example
 * ```ts
 * aloneLine(4242); // "vault-rag: the resident process (pid 4242) stopped while answering — running alone"
 * ```
 */
export function aloneLine(pid: number, failure?: string): string {
  return failure
    ? `vault-rag: the resident process (pid ${pid}) failed (${failure}) — running alone`
    : `vault-rag: the resident process (pid ${pid}) stopped while answering — running alone`;
}

/**
 * Has the resident process of the command's vault run it: true when it did (its output is printed
 * and the exit code set), false when this process must run it. A resident process that went away
 * or failed while running it is named on stderr, and the command is then run alone.
 *
 * @example
 * ```ts
 * if (!(await askResident(process.argv.slice(2)))) await runHere();
 * ```
 */
export async function askResident(argv: string[]): Promise<boolean> {
  const e = endpointFor(argv);
  if (!e) return false;
  const request: ClientRequest = {
    argv,
    cwd: process.cwd(),
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => SENT_ENV.test(k))) as Record<string, string>,
    stdout: { isTTY: !!process.stdout.isTTY, columns: process.stdout.columns },
  };
  const reply = await exchange(e.socket, { token: e.token, vault: e.vault, db: e.db, method: "cli", args: [request] });
  if (reply === "refused") return false;
  const gone = reply === "gone" || reply === "garbled";
  if (gone || (reply.ok && (reply.value as ClientReply).run === "failed")) {
    const failure = gone ? undefined : (reply.value as { message: string }).message;
    process.stderr.write(aloneLine(e.pid, failure) + "\n");
    process.env[NO_DAEMON_ENV] = "1";
    return false;
  }
  // a refusal (another version's endpoint, a process that answers handle calls only): the command
  // asks it as a handle, or runs alone
  if (!reply.ok) return false;
  const done = reply.value as ClientReply;
  if (done?.run !== "done" || !Array.isArray(done.written)) return false;
  // a reader that stops early (`| head -1`) closes the pipe: the rest is dropped quietly, as grep does
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  for (const [stream, s] of done.written) (stream === "out" ? process.stdout : process.stderr).write(s);
  process.exitCode = done.exitCode;
  return true;
}

/**
 * Whether a resident process may run a command line whole: one of {@link THIN_COMMANDS}, without a
 * flag that makes it run alone.
 *
 * @example
 * ```ts
 * thinCommand(["search", "--json", "motors"]); // true
 * thinCommand(["index", "~/notes"]); // false
 * ```
 */
export function thinCommand(argv: readonly string[]): boolean {
  const [command, ...rest] = argv;
  if (!THIN_COMMANDS.has(command ?? "")) return false;
  for (const a of rest) {
    if (a === "--") break;
    if (ALONE_FLAGS.has(flagOf(a))) return false;
  }
  return true;
}

/**
 * The endpoint of a live process of this version and environment that may hold the command's
 * vault, or undefined. A stale endpoint is left for the command to remove.
 */
function endpointFor(argv: string[]): EndpointInfo | undefined {
  const [command, ...rest] = argv;
  if (!thinCommand(argv) || runsAlone(process.env)) return undefined;
  const named: { vault?: string; db?: string } = {};
  let positional: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--") {
      positional ??= rest[i + 1];
      break;
    }
    const flag = flagOf(a);
    if (flag === "--vault" || flag === "--db") {
      named[flag.slice(2) as "vault" | "db"] = flag !== a ? a.slice(flag.length + 1) : rest[++i];
      continue;
    }
    if (!a.startsWith("-")) positional ??= a;
  }
  try {
    const vault = resolveVault(named.vault ?? (VAULT_ARGUMENT.has(command!) ? positional : undefined));
    const db = resolveDb(vault, named.db);
    const e = readEndpoint(endpointFile(vault, db));
    return e && holds(e, vault, db) && alive(e.pid) ? e : undefined;
  } catch {
    return undefined; // a vault or index the command itself refuses, in its own words
  }
}
