/**
 * The process a command runs for. A command usually runs for this process: its working directory,
 * environment, terminal and exit code. A resident process also runs commands for the CLI that asked
 * it (see `thin.ts` and `served.ts`); such a command reads the asking process's directory,
 * environment and terminal, and its output and exit code go back to it. Commands read these
 * through this module only, never through `process` (Node's own modules only: the thin client
 * loads it).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What a command needs to know of a stream: whether it is a terminal, and how wide. */
export interface Terminal {
  isTTY?: boolean;
  columns?: number;
}

/** The handle's transport to the resident process's own core, for a command it runs (see `served.ts`). */
export interface ServedBy {
  /** The vault and index the resident process holds, and whether it opened the vault as the index's. */
  vault: string;
  db: string;
  vaultKnown: boolean;
  pid: number;
  /** Calls a method of the resident process's handle; resolves to its wire reply. */
  call(method: string, args: unknown[]): Promise<unknown>;
}

/** A command run for another process. */
export interface ForeignProcess {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Terminal;
  /** What the command wrote to each stream, in order. */
  written: ["out" | "err", string][];
  exitCode?: number;
  served: ServedBy;
}

/**
 * A command run by a resident process cannot be answered there (another vault, a model flag, a
 * chat model to run): the asking process runs it alone, silently.
 */
export class Declined extends Error {
  constructor(why: string) {
    super(why);
    this.name = "Declined";
  }
}

const foreign = new AsyncLocalStorage<ForeignProcess>();

/**
 * Runs `fn` as a command of another process: {@link cwd}, {@link env}, {@link stdoutTerminal},
 * {@link write} and {@link setExitCode} act on `p` inside it.
 *
 * @example
 * ```ts
 * const p = { cwd: "/home/me", env: {}, stdout: {}, written: [], served };
 * await runFor(p, () => runSearch(["motors"], {}));
 * p.written; // [["out", "robots/SMARS.md:12 …\n"]]
 * ```
 */
export function runFor<T>(p: ForeignProcess, fn: () => Promise<T>): Promise<T> {
  return foreign.run(p, fn);
}

/** The resident process's transport when this command runs there for another process. */
export const servedBy = (): ServedBy | undefined => foreign.getStore()?.served;

/** The working directory of the process the command runs for. */
export const cwd = (): string => foreign.getStore()?.cwd ?? process.cwd();

/** The environment of the process the command runs for. */
export const env = (): NodeJS.ProcessEnv => foreign.getStore()?.env ?? process.env;

/** The command's standard output, as a terminal. */
export const stdoutTerminal = (): Terminal => foreign.getStore()?.stdout ?? process.stdout;

/**
 * Sets the command's exit code.
 *
 * @example
 * ```ts
 * setExitCode(1); // no hits, as grep
 * ```
 */
export function setExitCode(code: number | undefined): void {
  const p = foreign.getStore();
  if (p) p.exitCode = code;
  else process.exitCode = code;
}

/**
 * Writes text to the command's stdout or stderr, as given.
 *
 * @example
 * ```ts
 * write("out", "robots/SMARS.md:12\n");
 * ```
 */
export function write(stream: "out" | "err", s: string): void {
  const p = foreign.getStore();
  if (p) p.written.push([stream, s]);
  else (stream === "out" ? process.stdout : process.stderr).write(s);
}
