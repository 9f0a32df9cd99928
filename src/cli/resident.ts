/**
 * The CLI's side of the resident process: a reading command (`search`, `related`, `ask`, `status`,
 * `tags`, `folders`, `props`) asks the process that holds its vault open, when there is one that
 * opened it as this command would, and renders what it answers as it renders its own results. The
 * handle it gets ({@link openReader}) sends each call, with the request as the command built it,
 * over the endpoint's socket; nothing else changes. Without a resident process, with `--no-daemon`
 * or `VAULT_RAG_NO_DAEMON=1`, or with a model flag, the command opens the core itself.
 *
 * The same handle serves a command the resident process runs for a thin client (`thin.ts`,
 * `served.ts`): its calls go to the resident process's own core, in the same process.
 */
import type { OpenVaultOptions, VaultHandle } from "../library.js";
import type { Logger } from "../log.js";
import {
  alive,
  decodeLine,
  encodeLine,
  endpointFile,
  errorOf,
  exchange,
  holds,
  readEndpoint,
  removeEndpoint,
  RESIDENT_METHODS,
  type EndpointInfo,
  type WireReply,
} from "../serve/endpoint-file.js";
import { VaultRagError } from "../errors.js";
import { dropOutput, err, holdOutput, releaseOutput } from "./io.js";
import { Declined, env, servedBy, setExitCode, type ServedBy } from "./context.js";
import { aloneLine, runsAlone } from "./thin.js";
import { openCore, openFacts, type Location } from "./open.js";

/** The flags that decide whether a command may ask a resident process. */
export interface ReaderFlags {
  vault?: string;
  /** `--no-daemon` sets it false. */
  daemon?: boolean;
  model?: string;
  offline?: boolean;
  modelDir?: string;
}

/** The resident process went away (or failed) while answering: the command runs again, alone. */
export class ResidentGone extends Error {
  constructor(
    readonly pid: number,
    /** The request was sent (the process went away while answering), not refused at connecting. */
    readonly asked: boolean,
    /** The process answered with an error of its own, not one of the command's. */
    readonly failure?: string,
    /** The endpoint asked over its socket. */
    readonly endpoint?: EndpointInfo,
  ) {
    super(failure ?? `the resident process (pid ${pid}) went away`);
  }
}

/** A command of this process runs alone from now on (its resident process went away). */
let alone = false;

/**
 * Opens the vault for a reading command: the resident process's handle when one holds this vault
 * and index, opened as this command would open them, in the same environment; else the core
 * ({@link openCore}). With `answers`, a local handle is opened too, for the chat model (`ask`).
 * Output is held back while a resident process answers (see {@link withResident}).
 *
 * @example
 * ```ts
 * const v = await openReader(locate(o), o, { log: stderrLogger(false) });
 * await v.tags(); // asked of `vault-rag serve` when it holds the vault
 * ```
 */
export async function openReader(
  loc: Location,
  o: ReaderFlags,
  opts: Omit<OpenVaultOptions, "db" | "vaultKnown" | "vaultGuessed" | "checkModel"> & { answers?: boolean } = {},
): Promise<VaultHandle> {
  const { answers, ...open } = opts;
  const served = servedBy();
  if (served) return servedHandle(served, loc, o, !!answers, open.log);
  const e = mayAsk(o) ? residentFor(loc, o) : undefined;
  const described = e && (await describe(e));
  if (!e || !described) return openCore(loc, o, open);
  holdOutput();
  const local = answers ? await openCore(loc, o, open) : undefined;
  return remoteHandle(viaSocket(e), described, { log: open.log, guessed: openFacts(loc, o).vaultGuessed }, local);
}

/**
 * The handle of a command the resident process runs for a thin client: its own core, when the
 * command would have asked it had it run alone; else {@link Declined} (the client runs it alone).
 */
function servedHandle(served: ServedBy, loc: Location, o: ReaderFlags, answers: boolean, log?: Logger): VaultHandle {
  if (!mayAsk(o)) throw new Declined("run alone: --no-daemon, its variable, or a model flag");
  if (answers) throw new Declined("a chat model runs in the asking process");
  if (loc.vault !== served.vault || loc.db !== served.db || openFacts(loc, o).vaultKnown !== served.vaultKnown)
    throw new Declined("another vault or index, or opened otherwise");
  const send = async (method: string, args: unknown[]) =>
    decodeLine(encodeLine(await served.call(method, args))) as WireReply;
  const via = { pid: served.pid, vaultKnown: served.vaultKnown, send };
  return remoteHandle(via, served, { log, guessed: openFacts(loc, o).vaultGuessed }, undefined);
}

/** Whether a command may ask a resident process: not `--no-daemon`, `VAULT_RAG_NO_DAEMON`, or a model flag. */
function mayAsk(o: ReaderFlags): boolean {
  return (
    !alone &&
    o.daemon !== false &&
    !runsAlone(env()) &&
    o.model === undefined &&
    o.offline === undefined &&
    o.modelDir === undefined
  );
}

/**
 * The endpoint of a process holding this location as this command would open it, or undefined. An
 * endpoint whose process is gone is removed; one of another vault, index, version or environment
 * is left to its own process.
 */
function residentFor(loc: Location, o: ReaderFlags): EndpointInfo | undefined {
  const file = endpointFile(loc.vault, loc.db);
  const e = readEndpoint(file);
  if (!e) return undefined;
  if (!alive(e.pid)) {
    removeEndpoint(file, e);
    return undefined;
  }
  return holds(e, loc.vault, loc.db) && e.vaultKnown === openFacts(loc, o).vaultKnown ? e : undefined;
}

/** The resident handle's vault and index as it shows them; undefined (the endpoint stale: removed) when it cannot be asked. */
async function describe(e: EndpointInfo): Promise<{ vault: string; db: string } | undefined> {
  try {
    return (await ask(viaSocket(e), "describe", [])) as { vault: string; db: string };
  } catch (x) {
    // refused at connecting: the process no longer listens
    if (x instanceof ResidentGone && !x.asked) removeEndpoint(endpointFile(e.vault, e.db), e);
    return undefined;
  }
}

/** Sends one call to a resident process over its socket and waits for its answer. */
async function request(e: EndpointInfo, method: string, args: unknown[]): Promise<WireReply> {
  const r = await exchange(e.socket, { token: e.token, vault: e.vault, db: e.db, method, args });
  if (r === "refused" || r === "gone") throw new ResidentGone(e.pid, r === "gone", undefined, e);
  if (r === "garbled") throw new ResidentGone(e.pid, true, "its answer was no JSON", e);
  return r;
}

/** A handle's way to a resident process over its socket. */
const viaSocket = (e: EndpointInfo): Via => ({
  pid: e.pid,
  vaultKnown: e.vaultKnown,
  send: (method, args) => request(e, method, args),
});

/** How a handle reaches the resident process: over its socket, or in it (a command it runs for a thin client). */
interface Via {
  pid: number;
  vaultKnown: boolean;
  send(method: string, args: unknown[]): Promise<WireReply>;
}

/**
 * Calls a method of the resident handle; its logger calls are replayed on `log`, and the process
 * writing the index as the resident process sees it goes to `onWriter`.
 */
async function ask(
  via: Via,
  method: string,
  args: unknown[],
  log?: Logger,
  onWriter?: (pid: number | undefined) => void,
): Promise<unknown> {
  const sent = [...args];
  while (sent.length && sent[sent.length - 1] === undefined) sent.pop(); // `props()`, not `props(null)`
  const r = await via.send(method, sent);
  for (const [kind, ...a] of r.logs) (log?.[kind] as ((...x: unknown[]) => void) | undefined)?.(...a);
  if (r.ok) onWriter?.(r.writer);
  if (r.ok) return r.value;
  if (r.error.kind === "vault-rag") throw errorOf(r.error);
  throw new ResidentGone(via.pid, true, r.error.message.split("\n")[0]);
}

/**
 * A handle whose reading methods are answered by the resident process; the chat model (`llm`,
 * `answer`) runs here, on `local`, once the resident process has answered what it will be asked.
 */
function remoteHandle(
  via: Via,
  shown: { vault: string; db: string },
  { log, guessed }: { log?: Logger; guessed: boolean },
  local: VaultHandle | undefined,
): VaultHandle {
  let writer: number | undefined;
  const v: Record<string, unknown> = { vault: shown.vault, db: shown.db };
  const known = via.vaultKnown ? shown.vault : undefined;
  for (const method of RESIDENT_METHODS)
    v[method] = async (...args: unknown[]) => {
      try {
        return await ask(via, method, args, log, (pid) => (writer = pid));
      } catch (x) {
        // the resident process opens the vault as named; a CLI that found it as the working
        // directory marks the fix as the core does when opened so (see `errorsOf` in src/core/vault.ts)
        if (guessed && x instanceof VaultRagError && x.fix && x.fix.vault === known) x.fix.guessed = true;
        throw x;
      }
    };
  const needLocal = (): VaultHandle => {
    if (!local) throw new Error("vault-rag: a resident process answers reading commands only");
    // nothing more is asked of the resident process: what was held back can be shown
    releaseOutput();
    return local;
  };
  v.writer = () => writer;
  v.llm = (spec?: string) => needLocal().llm(spec);
  v.answer = (...a: Parameters<VaultHandle["answer"]>) => needLocal().answer(...a);
  v.close = async () => local?.close();
  return v as unknown as VaultHandle;
}

/**
 * Runs a reading command; when the resident process answering it goes away (or fails) before it
 * is done, says so in one line on stderr, and runs it again alone. Output is held back while the
 * resident process answers, so it is printed once.
 *
 * @example
 * ```ts
 * await withResident(() => runSearch(words, o));
 * ```
 */
export async function withResident(run: () => Promise<void>): Promise<void> {
  // a command run for a thin client: the client runs it again alone (see `served.ts`)
  if (servedBy()) return run();
  try {
    await run();
  } catch (x) {
    if (!(x instanceof ResidentGone)) throw x;
    dropOutput();
    setExitCode(undefined);
    if (!x.asked && x.endpoint) removeEndpoint(endpointFile(x.endpoint.vault, x.endpoint.db), x.endpoint);
    else err(aloneLine(x.pid, x.failure));
    alone = true;
    await run();
  } finally {
    releaseOutput();
  }
}

/**
 * Makes this process (`serve`, `mcp`, `watch`, `chat`) the resident process of its vault: it
 * answers the CLI's reading commands with the handle the CLI would open alone. Undefined when
 * another process answers already, or the index's folder cannot hold the endpoint.
 *
 * @example
 * ```ts
 * const resident = await startResident(loc, o);
 * await resident?.close();
 * ```
 */
export async function startResident(loc: Location, o: { vault?: string }) {
  const [{ listenResident }, { indexWriter }, { commandRunner }] = await Promise.all([
    import("../serve/endpoint.js"),
    import("../core/writer.js"),
    import("./served.js"),
  ]);
  const vaultKnown = openFacts(loc, o).vaultKnown;
  return listenResident({
    vault: loc.vault,
    db: loc.db,
    vaultKnown,
    // opened as named (never as guessed): a CLI that guessed the vault marks its errors' fixes itself
    open: (log) => openCore({ ...loc, vaultNamed: true }, o, { log, queryThread: true }),
    writer: () => indexWriter(loc.vault, loc.db),
    // a thin client's whole command (`thin.ts`), run by the same program
    cli: commandRunner({ vault: loc.vault, db: loc.db, vaultKnown }),
  });
}
