import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Child processes for tests that hold on a busy machine: each child runs in its own process group,
 * and {@link stopChildren} (a file's `afterEach`) kills every group started since, however the test
 * ended (passed, failed, timed out), so no child outlives its test. {@link until} waits for an
 * event (a file written, a row committed) rather than for a fixed time, and {@link explain} puts a
 * child's exit and stderr into an assertion message.
 */

const groups = new Set<number>();

/**
 * `spawn`, in a new process group that {@link stopChildren} kills (the child and anything it starts).
 *
 * @example
 * ```ts
 * afterEach(stopChildren);
 * const p = spawnChild(process.execPath, ["reader.mjs"], { stdio: ["ignore", "pipe", "pipe"] });
 * ```
 */
export function spawnChild(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const p = spawn(cmd, args, { ...opts, detached: true });
  if (p.pid) groups.add(p.pid);
  return p;
}

/**
 * Kills (SIGKILL) every process group {@link spawnChild} started and has not yet stopped. For
 * `afterEach`: a test that ended early leaves no child running.
 *
 * @example
 * ```ts
 * afterEach(stopChildren);
 * ```
 */
export function stopChildren(): void {
  for (const pgid of groups)
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  groups.clear();
}

/**
 * Waits until `ready()` holds, checking again every few milliseconds: a wait for an event, however
 * long it takes (the test's timeout bounds it). `gone()` says why the event can no longer come (a
 * child that exited, with its stderr); then it throws with `what` and that reason.
 *
 * @example
 * ```ts
 * await until("the writer holds the lock", () => fs.existsSync(lock), () => writer.exited());
 * ```
 */
export async function until(
  what: string,
  ready: () => boolean | Promise<boolean>,
  gone: () => string | undefined = () => undefined,
): Promise<void> {
  for (;;) {
    if (await ready()) return;
    const why = gone();
    if (why !== undefined) {
      if (await ready()) return;
      throw new Error(`waited for ${what}, but ${why}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * How a child ended, with its stderr, for an assertion's message.
 *
 * @example
 * ```ts
 * expect(r.code, explain("index", r)).toBe(0); // "index exited with code 1: vault-rag: …"
 * ```
 */
export function explain(
  what: string,
  r: { code: number | null; signal?: NodeJS.Signals | null; stderr: string; stdout?: string },
): string {
  const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`;
  const err = r.stderr.trim().slice(-2000);
  const out = r.stdout?.trim().slice(-500);
  return `${what} ${how}; stderr: ${err || "(empty)"}${out !== undefined ? `; stdout: ${out || "(empty)"}` : ""}`;
}
