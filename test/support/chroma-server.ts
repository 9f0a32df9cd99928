/**
 * Starts a throwaway Chroma server for tests and benchmarks, from the server bundled in the
 * `chromadb` npm package (`chromadb-js-bindings-linux-x64-gnu`).
 *
 * That binding needs glibc ≥ 2.39. On older hosts (Debian 12 has 2.36) the server runs under a
 * newer C library unpacked into a private folder: Debian 13 "trixie"'s `libc6`, `libstdc++6` and
 * `libgcc-s1`, fetched once per machine with `apt-get download` from the Debian mirror the host's
 * own apt sources name (a private sources list, lists and cache; nothing is installed system-wide)
 * and unpacked with `dpkg -x`. The server is then run as
 * `<dir>/ld-linux-x86-64.so.2 --library-path <dir> node …`.
 *
 * The server is stopped with SIGINT (SIGTERM makes it spin at 100% CPU). It runs under a small
 * shell guard, in a process group of their own: a signal to the group of the process that started
 * it (a test run killed with its group, `kill -- -PGID`, Ctrl-C) reaches neither. The guard holds a
 * pipe from this process and ignores INT, TERM and HUP: when this process dies however it dies,
 * the pipe closes and the guard interrupts the server, so no server outlives its test run (only
 * a SIGKILL of the guard itself would leave one).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";

/** A running Chroma server. */
export interface ChromaServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The server's data folder (removed by `stop`). */
  dataDir: string;
  /** Stops the server (SIGINT) and removes its data folder. */
  stop(): Promise<void>;
}

/** A Debian mirror taken from the host's apt sources. */
export interface AptMirror {
  /** e.g. `http://deb.debian.org/debian` */
  uri: string;
  /** The keyring the host trusts for it, e.g. `/usr/share/keyrings/debian-archive-keyring.gpg`. */
  signedBy?: string;
}

/**
 * The host's Debian mirror, read from apt's own sources (one-line `*.list` files and deb822
 * `*.sources` files): the first `deb` entry for the host's release (`codename`, e.g. `bookworm`),
 * leaving out security and backports suites. Undefined when none is configured.
 *
 * @example
 * ```ts
 * aptMirror([{ name: "debian.sources", text: "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n" }], "bookworm");
 * // { uri: "http://mirror.example/debian", signedBy: undefined }
 * ```
 */
export function aptMirror(files: { name: string; text: string }[], codename: string): AptMirror | undefined {
  const entries: { types: string[]; uris: string[]; suites: string[]; signedBy?: string }[] = [];
  for (const { name, text } of files) {
    if (name.endsWith(".sources")) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const field = (key: string) => stanza.match(new RegExp(`^${key}:[ \\t]*(.*)$`, "mi"))?.[1].trim();
        if (/^enabled:\s*no\s*$/im.test(stanza)) continue;
        const words = (key: string) => (field(key) ?? "").split(/\s+/).filter(Boolean);
        entries.push({
          types: words("Types"),
          uris: words("URIs"),
          suites: words("Suites"),
          signedBy: field("Signed-By"),
        });
      }
    } else if (name.endsWith(".list")) {
      for (const raw of text.split("\n")) {
        const line = raw.replace(/#.*/, "").trim();
        const m = line.match(/^(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)/);
        if (!m) continue;
        const signedBy = m[2]?.match(/signed-by=(\S+)/)?.[1];
        entries.push({ types: [m[1]], uris: [m[3]], suites: [m[4]], signedBy });
      }
    }
  }
  for (const e of entries) {
    if (!e.types.includes("deb") || !e.suites.includes(codename)) continue;
    const uri = e.uris.find((u) => !/security/.test(u));
    if (uri) return { uri: uri.replace(/\/+$/, ""), signedBy: e.signedBy?.startsWith("/") ? e.signedBy : undefined };
  }
  return undefined;
}

/** Reads the host's apt sources (`/etc/apt/sources.list`, `/etc/apt/sources.list.d/*.list|*.sources`). */
function hostAptSources(): { name: string; text: string }[] {
  const files = ["/etc/apt/sources.list"];
  const dir = "/etc/apt/sources.list.d";
  if (fs.existsSync(dir))
    for (const f of fs.readdirSync(dir).sort()) if (/\.(list|sources)$/.test(f)) files.push(path.join(dir, f));
  return files.filter((f) => fs.existsSync(f)).map((f) => ({ name: f, text: fs.readFileSync(f, "utf8") }));
}

/** The host's release codename from /etc/os-release (e.g. `bookworm`), if it is Debian. */
function debianCodename(): string | undefined {
  const text = fs.existsSync("/etc/os-release") ? fs.readFileSync("/etc/os-release", "utf8") : "";
  if (!/^ID="?debian"?$/m.test(text)) return undefined;
  return text.match(/^VERSION_CODENAME="?([^"\n]+)"?$/m)?.[1];
}

const TRIXIE_PACKAGES = ["libc6", "libstdc++6", "libgcc-s1"];
const NEEDED_GLIBC = [2, 39];

/** The host's glibc version, e.g. [2, 36]; undefined on non-glibc systems. */
function glibcVersion(): number[] | undefined {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime?.split(".").map(Number);
}

function newEnough(v: number[]): boolean {
  return v[0] > NEEDED_GLIBC[0] || (v[0] === NEEDED_GLIBC[0] && v[1] >= NEEDED_GLIBC[1]);
}

/**
 * Where the private C library is kept: once per machine.
 *
 * @example
 * ```ts
 * libcCacheDir(); // "/root/.cache/vault-rag/chroma-libc-trixie"
 * ```
 */
export function libcCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "vault-rag", "chroma-libc-trixie");
}

/**
 * Makes sure a glibc new enough for the server is available; returns the folder holding
 * `ld-linux-x86-64.so.2` and the libraries, or undefined when the host's own glibc will do.
 *
 * @example
 * ```ts
 * const dir = provisionLibc(console.error); // undefined on glibc ≥ 2.39
 * ```
 */
export function provisionLibc(log: (msg: string) => void = () => {}): string | undefined {
  const v = glibcVersion();
  if (!v || newEnough(v)) return undefined;
  const dir = libcCacheDir();
  if (fs.existsSync(path.join(dir, "ld-linux-x86-64.so.2"))) return dir;
  log(
    `vault-rag: host glibc ${v.join(".")} is older than ${NEEDED_GLIBC.join(".")}; fetching Debian trixie's C library into ${dir} (once per machine)`,
  );
  const codename = debianCodename();
  const mirror = codename ? aptMirror(hostAptSources(), codename) : undefined;
  if (!mirror)
    throw new Error(
      `vault-rag: the Chroma server needs glibc ≥ ${NEEDED_GLIBC.join(".")} (this host has ${v.join(".")}); on Debian the tests fetch one from the mirror in the host's apt sources, but ${codename ? `no \`deb\` entry for ${codename} was found in /etc/apt/sources.list(.d)` : "this host is not Debian"} — run on a host with glibc ≥ ${NEEDED_GLIBC.join(".")}`,
    );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "vr-libc-"));
  try {
    for (const d of ["lists/partial", "cache/archives/partial", "root"])
      fs.mkdirSync(path.join(work, d), { recursive: true });
    const keyring = mirror.signedBy ?? "/usr/share/keyrings/debian-archive-keyring.gpg";
    fs.writeFileSync(path.join(work, "sources.list"), `deb [signed-by=${keyring}] ${mirror.uri} trixie main\n`);
    const apt = [
      "-o",
      `Dir::Etc::SourceList=${path.join(work, "sources.list")}`,
      "-o",
      "Dir::Etc::SourceParts=/dev/null",
      "-o",
      `Dir::State::Lists=${path.join(work, "lists")}`,
      "-o",
      `Dir::Cache=${path.join(work, "cache")}`,
      "-o",
      "Debug::NoLocking=1",
      "-o",
      "APT::Sandbox::User=root",
    ];
    run("apt-get", [...apt, "update"], work);
    run("apt-get", [...apt, "download", ...TRIXIE_PACKAGES], work);
    for (const deb of fs.readdirSync(work).filter((f) => f.endsWith(".deb"))) run("dpkg", ["-x", deb, "root"], work);
    const staged = path.join(work, "libs");
    fs.mkdirSync(staged);
    const libDir = path.join(work, "root/usr/lib/x86_64-linux-gnu");
    for (const f of fs.readdirSync(libDir)) {
      const src = path.join(libDir, f);
      if (fs.statSync(src).isFile() && /\.so(\.|$)/.test(f)) fs.copyFileSync(src, path.join(staged, f));
    }
    if (!fs.existsSync(path.join(staged, "ld-linux-x86-64.so.2")))
      throw new Error("the trixie packages held no ld-linux-x86-64.so.2");
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staged, dir);
    return dir;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0)
    throw new Error(
      `vault-rag: \`${[cmd, ...args.filter((a, i) => a !== "-o" && args[i - 1] !== "-o")].join(" ")}\` failed while fetching a C library for the Chroma server: ${(r.stderr || r.error?.message || "").trim().slice(0, 400)}`,
    );
}

/**
 * A free TCP port on the loopback interface.
 *
 * @example
 * ```ts
 * const port = await freePort(); // e.g. 41371
 * ```
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a Chroma server on a free port with a fresh data folder and waits until it answers
 * `/api/v2/heartbeat` (about 0.2 s once the C library is in place).
 *
 * @example
 * ```ts
 * const chroma = await startChromaServer();
 * const store = await ChromaStore.open(`${chroma.url}/notes`, { create: true });
 * // …
 * await chroma.stop();
 * ```
 */
export async function startChromaServer(
  opts: { log?: (msg: string) => void; timeoutMs?: number } = {},
): Promise<ChromaServer> {
  const libc = provisionLibc(opts.log);
  const require = createRequire(import.meta.url);
  let root = path.dirname(require.resolve("chromadb"));
  while (!fs.existsSync(path.join(root, "package.json"))) root = path.dirname(root);
  const cli = path.join(root, "dist", "cli.mjs");
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-chroma-"));
  const server = libc
    ? [path.join(libc, "ld-linux-x86-64.so.2"), "--library-path", libc, process.execPath, cli]
    : [process.execPath, cli];
  // the guard: start the server, wait for our pipe to close (stop() or our death), then SIGINT it,
  // and SIGKILL it 10 s later if it has not stopped (a server left by a killed test run held a core
  // for the rest of the session). It and the server run in a process group of their own
  // (`detached`), and the guard ignores the signals that stop a test run, so that it outlives this
  // process long enough to stop the server
  const guard =
    'trap "" INT TERM HUP; "$@" & s=$!; read _ || true; kill -INT $s 2>/dev/null; ' +
    "(sleep 10; kill -KILL $s 2>/dev/null) & wait $s";
  const child: ChildProcess = spawn(
    "sh",
    ["-c", guard, "sh", ...server, "run", "--path", dataDir, "--port", String(port)],
    {
      stdio: ["pipe", "ignore", "pipe"],
      env: { ...process.env, CHROMA_TELEMETRY: "false", ANONYMIZED_TELEMETRY: "False" },
      detached: true,
    },
  );
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let exited = false;
  child.on("exit", () => (exited = true));
  for (;;) {
    try {
      const res = await fetch(`${url}/api/v2/heartbeat`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (exited || Date.now() > deadline) {
      child.stdin?.end();
      throw new Error(
        `vault-rag: the Chroma server did not start on port ${port}: ${stderr.trim().slice(-800) || "no output"}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port,
    dataDir,
    async stop() {
      if (!exited) {
        const done = new Promise<void>((resolve) => child.on("exit", () => resolve()));
        child.stdin?.end();
        // a server that has not stopped 10 s after its SIGINT is killed, with its guard (their group)
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            // gone already
          }
        }, 10_000);
        await done;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
