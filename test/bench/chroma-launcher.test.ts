import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { explain, spawnChild, stopChildren, until } from "../support/children.js";
import { CHROMA_MISSING, needs } from "../support/needs.js";

/** The processes whose command line names `text` (the server and its guard name its data folder). */
function processesNaming(text: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)) pids.push(Number(name));
    } catch {
      // it ended meanwhile
    }
  }
  return pids;
}

let dataDir = "";
let launcherDir = "";
afterEach(() => {
  stopChildren();
  // a server the launcher left behind (the failure this test looks for) is stopped here
  if (dataDir) for (const pid of processesNaming(dataDir)) process.kill(pid, "SIGKILL");
  for (const dir of [dataDir, launcherDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dataDir = launcherDir = "";
});

describe.skipIf(!!CHROMA_MISSING)(needs("the test Chroma server's launcher", CHROMA_MISSING), () => {
  it("stops its server when the process that started it is killed with its whole process group", async () => {
    launcherDir = fs.mkdtempSync(path.join(os.tmpdir(), "vr-chroma-launcher-"));
    const launcher = path.join(launcherDir, "launcher.mts");
    fs.writeFileSync(
      launcher,
      [
        `import { startChromaServer } from ${JSON.stringify(path.resolve("test/support/chroma-server.ts"))};`,
        `const server = await startChromaServer();`,
        `console.log(JSON.stringify({ port: server.port, dataDir: server.dataDir }));`,
        `setInterval(() => {}, 1 << 30); // runs until it is killed`,
      ].join("\n"),
    );
    // in a process group of its own, as a test run is: the group is what gets killed
    const p = spawnChild(process.execPath, ["--import", "tsx", launcher], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("exit", (code, signal) => (exit = { code, signal }));
    await until(
      "the launcher to start a server",
      () => stdout.includes("\n"),
      () => exit && explain("the launcher", { ...exit, stderr, stdout }),
    );
    const server = JSON.parse(stdout) as { port: number; dataDir: string };
    dataDir = server.dataDir;
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v2/heartbeat`);
    expect(res.ok).toBe(true);
    expect(processesNaming(dataDir).length).toBeGreaterThan(0);

    // as a test run ends when it is stopped: SIGTERM to the launcher's whole group
    process.kill(-p.pid!, "SIGTERM");
    await until("the launcher to end", () => exit !== undefined);
    // however long the server takes to stop (the test's timeout bounds the wait)
    await until(`the Chroma server on port ${server.port} to stop`, () => processesNaming(dataDir).length === 0);
    await expect(fetch(`http://127.0.0.1:${server.port}/api/v2/heartbeat`)).rejects.toThrow();
  }, 120_000); // a bound on the waits above, far past the second or so the server takes to stop
});
