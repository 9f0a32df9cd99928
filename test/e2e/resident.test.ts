import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { explain, spawnChild, stopChildren, until } from "../support/children.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

/**
 * The resident process: `watch` (as `serve`, `mcp` and `chat`) holding a vault answers the CLI's
 * reading commands on the vault's endpoint. Whether a command was answered by it is seen from the
 * modules the CLI loaded: a command that opens the core itself loads `dist/core/vault.js`, one that
 * asks the resident process never does (a loader hook writes a mark on stderr for that module),
 * and one the resident process runs whole loads no argument parser either.
 */

let vault = "";
let elsewhere = "";
let hook = "";
const LOADED_CORE = "[test] loaded dist/core/vault.js";
/** The mark of the argument parser: a command the resident process runs whole (a thin client's) loads none. */
const LOADED_PARSER = "[test] loaded commander";
/** The mark of an embedder's module (its defaults apart): a command a resident process answers loads none. */
const LOADED_EMBED = "[test] loaded dist/embed/";
/** Stderr without the loader hook's marks. */
const unmarked = (stderr: string) => stderr.replace(/^\[test\] loaded .*\n/gm, "");
const endpointOf = (v: string) => path.join(v, ".vault-rag", "index.db.endpoint");

beforeAll(() => {
  ({ vault, elsewhere } = exampleVaultCopy("vr-resident-"));
  const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  // marks on stderr that the core was loaded: `register` runs the hooks in their own thread
  const hooks = path.join(elsewhere, "hooks.mjs");
  fs.writeFileSync(
    hooks,
    `export async function load(url, context, next) {
  if (url.endsWith("/dist/core/vault.js")) process.stderr.write(${JSON.stringify(LOADED_CORE + "\n")});
  if (url.endsWith("/node_modules/commander/esm.mjs")) process.stderr.write(${JSON.stringify(LOADED_PARSER + "\n")});
  if (url.includes("/dist/embed/") && !url.endsWith("/embed/defaults.js")) process.stderr.write(${JSON.stringify(LOADED_EMBED)} + url.split("/dist/embed/")[1] + "\\n");
  return next(url, context);
}\n`,
  );
  hook = path.join(elsewhere, "hook.mjs");
  fs.writeFileSync(
    hook,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
});
afterEach(stopChildren);

/** Runs the CLI in `cwd` with the loader hook; resolves when it exits. */
function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, ["--import", hook, BIN, ...args], {
    cwd: opts.cwd ?? vault,
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "", ...opts.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

/** The process id an endpoint file names, if there is one. */
const endpointPid = (v: string): number | undefined => {
  try {
    return JSON.parse(fs.readFileSync(endpointOf(v), "utf8")).pid;
  } catch {
    return undefined;
  }
};

/**
 * Starts `vault-rag watch <vault>` and waits until its endpoint file names it and its first pass
 * is done (its first batch line: the index is not being written).
 */
async function resident(v: string): Promise<{ child: ChildProcess; stderr: () => string }> {
  const child = spawnChild(process.execPath, [BIN, "watch", v], {
    env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (d) => (stderr += d));
  child.stdout!.on("data", (d) => (stdout += d));
  const gone = () => (child.exitCode !== null ? `watch exited (${child.exitCode}): ${stderr}` : undefined);
  await until("the endpoint file of watch", () => endpointPid(v) === child.pid, gone);
  await until("the first pass of watch", () => /^\d{4}-\d\d-\d\dT/m.test(stdout), gone);
  return { child, stderr: () => stderr };
}

/** Kills a child with SIGKILL and waits until it is gone. */
async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

describe("a resident process answers the CLI", () => {
  it("gives the same output and exit codes as the CLI alone, from a process that loads no core", async () => {
    const w = await resident(vault);
    const file = endpointOf(vault);
    // owner-only: the file that holds the token, and the socket
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const socket = JSON.parse(fs.readFileSync(file, "utf8")).socket as string;
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    const commands = [
      ["search", "--json", "how do the SMARS motors work"],
      ["search", "how do the SMARS motors work"], // the terminal's form: path:line, breadcrumb, snippet
      ["search", "--color", "always", "--mode", "keyword", "sourdough starter"],
      ["search", "--json", "--tag", "pico", "-k", "3", "save power"],
      ["search", "--tag", "nosuchtag", "bread"], // no hits: exit 1, the hints on stderr
      ["search", "--json", "--where", '{"tags": {"$in": ["pico"]}}', "x"], // refused: exit 2
      ["related", "--json", "robots/SMARS.md"],
      ["related", "SMARS"],
      ["ask", "--context-only", "--json", "why did the SMARS motors cut out?"],
      ["status", "--json"],
      ["tags", "--json"],
      ["folders"],
      ["props", "--json"],
      ["props", "nosuchprop"], // refused with the closest names: exit 2
    ];
    for (const args of commands) {
      const asked = await cli(args);
      const alone = await cli([...args, "--no-daemon"]);
      const what = args.join(" ");
      expect(asked.stderr, `${what} was answered by the resident process`).not.toContain(LOADED_CORE);
      // a search's path (ask sizes its prompt and status names the model by the profiles in embed/)
      if (args[0] === "search" || args[0] === "related")
        expect(asked.stderr, `${what} loaded an embedder`).not.toContain(LOADED_EMBED);
      // run whole by the resident process, but for ask, whose chat model runs in the asking process
      if (args[0] !== "ask") expect(asked.stderr, `${what} parsed its arguments itself`).not.toContain(LOADED_PARSER);
      expect(alone.stderr, `${what} --no-daemon ran alone`).toContain(LOADED_CORE);
      expect(asked.code, what).toBe(alone.code);
      // status names the index's age and a time, which both read from the same index
      expect(asked.stdout, what).toBe(alone.stdout);
      expect(unmarked(asked.stderr), what).toBe(unmarked(alone.stderr));
    }
    // from another folder, the vault named relative to it: the command reads the asking process's directory
    const rel = path.relative(elsewhere, vault);
    for (const args of [
      ["tags", "--json", "--vault", rel],
      ["status", rel, "--json"],
    ]) {
      const asked = await cli(args, { cwd: elsewhere });
      const alone = await cli([...args, "--no-daemon"], { cwd: elsewhere });
      expect(asked.code, explain(args.join(" "), asked)).toBe(0);
      expect(asked.stderr, `${args.join(" ")} parsed its arguments itself`).not.toContain(LOADED_PARSER);
      expect(asked.stdout).toBe(alone.stdout);
    }
    // the environment variable runs alone too
    const byEnv = await cli(["tags", "--json"], { env: { VAULT_RAG_NO_DAEMON: "1" } });
    expect(byEnv.stderr).toContain(LOADED_CORE);
    expect(w.child.exitCode, w.stderr()).toBeNull();
  });

  it("removes a stale endpoint file (its process gone, or its socket refusing) and runs alone", async () => {
    const w = await resident(vault);
    const file = endpointOf(vault);
    const endpoint = JSON.parse(fs.readFileSync(file, "utf8"));
    await kill(w.child);
    expect(fs.existsSync(file), "a killed process leaves its endpoint file").toBe(true);
    const alone = await cli(["search", "--json", "--no-daemon", "motors"]);
    const dead = await cli(["search", "--json", "motors"]);
    expect(dead.code, explain("search", dead)).toBe(0);
    expect(dead.stdout).toBe(alone.stdout);
    expect(dead.stderr).toContain(LOADED_CORE);
    expect(dead.stderr).not.toMatch(/resident/);
    expect(fs.existsSync(file), "the endpoint file of a dead process is removed").toBe(false);

    // a live process id (this test's) whose socket refuses connections
    fs.writeFileSync(
      file,
      JSON.stringify({ ...endpoint, pid: process.pid, socket: path.join(elsewhere, "none.sock") }),
      {
        mode: 0o600,
      },
    );
    const refused = await cli(["search", "--json", "motors"]);
    expect(refused.code, explain("search", refused)).toBe(0);
    expect(refused.stdout).toBe(alone.stdout);
    expect(refused.stderr).not.toMatch(/resident/);

    // a socket others may connect to (or put in its place) is no endpoint: never asked, and removed
    const open = path.join(elsewhere, "open.sock");
    const asked: string[] = [];
    const server = net.createServer((s) => s.on("data", (d) => (asked.push(String(d)), s.destroy())));
    await new Promise<void>((resolve) => server.listen(open, resolve));
    try {
      fs.chmodSync(open, 0o666);
      fs.writeFileSync(file, JSON.stringify({ ...endpoint, pid: process.pid, socket: open }), { mode: 0o600 });
      const shared = await cli(["search", "--json", "motors"]);
      expect(shared.code, explain("search", shared)).toBe(0);
      expect(shared.stdout).toBe(alone.stdout);
      expect(asked, "nothing was sent to a socket others can reach").toEqual([]);
      expect(fs.existsSync(file), "the endpoint file naming it is removed").toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(fs.existsSync(file), "the endpoint file whose socket refuses is removed").toBe(false);
  });

  it("keeps stdout and stderr in order, stops quietly on a closed pipe, and runs only reading commands", async () => {
    const w = await resident(vault);
    // stdout and stderr into one file, as `2>&1` does: the same lines in the same order
    const merged = async (args: string[]) => {
      const out = path.join(elsewhere, `merged-${args.length}.txt`);
      const fd = fs.openSync(out, "w");
      const child = spawn(process.execPath, ["--import", hook, BIN, ...args], {
        cwd: vault,
        env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "" },
        stdio: ["ignore", fd, fd],
      });
      await new Promise((resolve) => child.on("close", resolve));
      fs.closeSync(fd);
      // the timings of --verbose differ from run to run
      return unmarked(fs.readFileSync(out, "utf8")).replace(/^embed \d+ ms, retrieve \d+ ms.*$/m, "");
    };
    const args = ["search", "--verbose", "-k", "2", "sourdough", "zzqqxxw"];
    const both = await merged(args);
    expect(both).toMatch(/^index: /); // --verbose's first line, on stderr, before the hits
    expect(both).toBe(await merged([...args, "--no-daemon"]));

    // a reader that closes the pipe early: no stack trace, exit 0 (as grep)
    const child = spawn(process.execPath, ["--import", hook, BIN, "search", "--json", "-k", "50", "motors"], {
      cwd: vault,
      env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "" },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(unmarked(stderr)).toBe("");
    expect(stderr, "the resident process ran it").not.toContain(LOADED_PARSER);
    expect(code).toBe(0);

    // a request for another command, or over 1 MB, is refused in a line (with the token: this user only)
    const e = JSON.parse(fs.readFileSync(endpointOf(vault), "utf8"));
    const send = (line: string) =>
      new Promise<string>((resolve) => {
        let text = "";
        const s = net.connect(e.socket, () => s.write(line));
        s.on("data", (d) => {
          text += d;
          if (text.includes("\n")) s.destroy();
        });
        s.on("close", () => resolve(text));
        s.on("error", () => undefined);
      });
    const ask = (argv: string[]) =>
      JSON.stringify({
        token: e.token,
        vault: e.vault,
        db: e.db,
        method: "cli",
        args: [{ argv, cwd: elsewhere, env: {}, stdout: {} }],
      }) + "\n";
    expect(JSON.parse(await send(ask(["index", vault, "--quiet"])))).toMatchObject({
      ok: true,
      value: { run: "declined" },
    });
    expect(JSON.parse(await send(ask(["search", "--model", "use-lite", "x"])))).toMatchObject({
      value: { run: "declined" },
    });
    expect(JSON.parse(await send(ask(["tags", "--json", "--vault", vault])))).toMatchObject({ value: { run: "done" } });
    expect(JSON.parse(await send("x".repeat(1.5 * 1024 * 1024)))).toMatchObject({ ok: false });
    expect(w.child.exitCode, w.stderr()).toBeNull();
  });

  it("never asks a resident process of another vault", async () => {
    // a copy of the vault, with a note of its own, and the first vault's endpoint file in its index
    // folder (as when a vault is copied with its index while a process holds it)
    const other = exampleVaultCopy("vr-resident-other-").vault;
    fs.writeFileSync(path.join(other, "Quokkaflux.md"), "# Quokkaflux\n\nThe quokkaflux capacitor hums.\n");
    const r = spawnSync(process.execPath, [BIN, "index", other, "--quiet"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const w = await resident(vault);
    fs.copyFileSync(endpointOf(vault), endpointOf(other));
    const found = await cli(["search", "--json", "--mode", "keyword", "quokkaflux"], { cwd: other });
    expect(found.code, explain("search", found)).toBe(0);
    expect(found.stderr, "the CLI ran alone").toContain(LOADED_CORE);
    expect(JSON.parse(found.stdout)[0].path).toBe("Quokkaflux.md");
    // the first vault's process still answers its own vault
    const own = await cli(["search", "--json", "--mode", "keyword", "quokkaflux"]);
    expect(own.code, "nothing in the first vault holds the word").toBe(1);
    expect(own.stderr).not.toContain(LOADED_CORE);
    expect(w.child.exitCode, w.stderr()).toBeNull();
  });

  it.each([
    ["a handle's search", "search: never,", ""],
    ["a whole command", "", "cli: never,"],
  ])(
    "runs alone, saying so in one line, when the resident process is killed while answering %s",
    async (_, search, cli_) => {
      // the endpoint of dist/serve/endpoint.js over a handle whose search, or a thin client's command
      // run whole, never ends: killed mid-request
      const script = path.join(elsewhere, `stalled-${cli_ ? "cli" : "search"}.mjs`);
      const endpointModule = pathToFileURL(path.resolve("dist/serve/endpoint.js")).href;
      fs.writeFileSync(
        script,
        `const { listenResident } = await import(${JSON.stringify(endpointModule)});
const [vault, db] = process.argv.slice(2);
const never = () => (process.stderr.write("asked\\n"), new Promise(() => {}));
const handle = { vault, db, ${search} };
const r = await listenResident({ vault, db, vaultKnown: true, writer: () => undefined, open: async () => handle, ${cli_} });
process.stderr.write(r ? "listening\\n" : "not listening\\n");
setInterval(() => {}, 1 << 30);
`,
      );
      const db = path.join(vault, ".vault-rag", "index.db");
      const stalled = spawnChild(process.execPath, [script, vault, db], {
        env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      stalled.stderr!.on("data", (d) => (stderr += d));
      const gone = () => (stalled.exitCode !== null ? `the stalled process exited: ${stderr}` : undefined);
      await until("the stalled process to listen", () => stderr.includes("listening\n"), gone);
      expect(stderr).not.toContain("not listening");
      const asking = cli(["search", "--json", "motors"]);
      await until("the search to reach the stalled process", () => stderr.includes("asked\n"), gone);
      await kill(stalled);
      const r = await asking;
      const alone = await cli(["search", "--json", "--no-daemon", "motors"]);
      expect(r.code, explain("search", r)).toBe(0);
      expect(r.stdout).toBe(alone.stdout);
      const lines = unmarked(r.stderr).split("\n").filter(Boolean);
      expect(lines).toEqual([
        `vault-rag: the resident process (pid ${stalled.pid}) stopped while answering — running alone`,
      ]);
    },
  );

  it("follows an index rebuilt with `index --full` while serve holds the vault", async () => {
    const copy = exampleVaultCopy("vr-resident-full-").vault;
    const r = spawnSync(process.execPath, [BIN, "index", copy, "--quiet"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const serve = spawnChild(process.execPath, [BIN, "serve", "--vault", copy, "--port", "0"], {
      env: { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", VAULT_RAG_NO_DAEMON: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    serve.stderr!.on("data", (d) => (stderr += d));
    const gone = () => (serve.exitCode !== null ? `serve exited (${serve.exitCode}): ${stderr}` : undefined);
    await until("the endpoint file of serve", () => endpointPid(copy) === serve.pid, gone);
    const query = ["search", "--json", "--mode", "keyword", "zygomorphic"];
    const before = await cli(query, { cwd: copy });
    expect(before.code, "no note holds the word yet").toBe(1);
    expect(before.stderr).not.toContain(LOADED_CORE);
    fs.writeFileSync(path.join(copy, "Orchids.md"), "# Orchids\n\nAn orchid flower is zygomorphic.\n");
    const full = spawnSync(process.execPath, [BIN, "index", copy, "--full", "--quiet"], { encoding: "utf8" });
    expect(full.status, full.stderr).toBe(0);
    const after = await cli(query, { cwd: copy });
    expect(after.code, explain("search", after)).toBe(0);
    expect(after.stderr, "answered by serve").not.toContain(LOADED_CORE);
    expect(JSON.parse(after.stdout).map((h: { path: string }) => h.path)).toEqual(["Orchids.md"]);
  });
});
