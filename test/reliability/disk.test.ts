import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnChild, stopChildren } from "../support/children.js";
import { MOUNT_NAMESPACE, mountNamespaceMissing, needs, permissionsMissing } from "../support/needs.js";
import { BIN, cli, cliUnder, exportIndex, OBEY_PERMISSIONS, startEmbedStub } from "./helpers.js";

/**
 * Writing into a read-only index or a full disk fails with a clear message and leaves the previous
 * index intact. Read-only: real permission bits (root runs the CLI without its permission-override
 * capabilities). Disk full: a real 1.5 MB tmpfs mounted in a private mount namespace.
 */
let stub: Awaited<ReturnType<typeof startEmbedStub>>;
afterEach(stopChildren);
beforeAll(async () => (stub = await startEmbedStub(0)));
afterAll(() => stub.close());

const model = ["--model", "ollama:stub-embed"];
function smallVault(root: string, n: number): string {
  const vault = path.join(root, "vault");
  fs.mkdirSync(vault, { recursive: true });
  for (let i = 0; i < n; i++)
    fs.writeFileSync(path.join(vault, `n${i}.md`), `# Note ${i}\n\nA short note about motors, bread and topic ${i}.\n`);
  return vault;
}

const PERMISSIONS_MISSING = permissionsMissing();
const MOUNT_MISSING = mountNamespaceMissing();

describe.skipIf(!!PERMISSIONS_MISSING)(needs("read-only index", PERMISSIONS_MISSING), () => {
  it("refuses to write with a clear message, keeps searching, and loses nothing", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-ro-"));
    const vault = smallVault(root, 10);
    const env = { OLLAMA_HOST: stub.host };
    expect((await cli(["index", vault, ...model, "--quiet"], env)).code).toBe(0);
    const dir = path.join(vault, ".vault-rag");
    const db = path.join(dir, "index.db");
    const before = await exportIndex(db);
    fs.writeFileSync(path.join(vault, "new.md"), "# New\n\nA note that cannot be added.\n");

    // the file is read-only
    fs.chmodSync(db, 0o444);
    const file = await cliUnder(OBEY_PERMISSIONS, ["index", vault, "--quiet"], env);
    expect(file.code).toBe(1);
    expect(file.stderr.trim().split("\n").pop()).toBe(
      `vault-rag: the index at ${db} is read-only — nothing was written; make it and its folder writable`,
    );
    const found = await cliUnder(OBEY_PERMISSIONS, ["search", "--vault", vault, "--json", "-k", "2", "motors"], env);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toHaveLength(2);

    // the folder is read-only too: not even the lock can be taken
    fs.chmodSync(dir, 0o555);
    const folder = await cliUnder(OBEY_PERMISSIONS, ["index", vault, "--quiet"], env);
    expect(folder.code).toBe(1);
    expect(folder.stderr.trim()).toBe(
      `vault-rag: cannot create the lock file ${db}.lock: EACCES: permission denied, open '${db}.lock' — check the folder is writable`,
    );
    const stillFound = await cliUnder(
      OBEY_PERMISSIONS,
      ["search", "--vault", vault, "--json", "--mode", "keyword", "motors"],
      env,
    );
    expect(stillFound.code, stillFound.stderr).toBe(0);

    fs.chmodSync(dir, 0o755);
    fs.chmodSync(db, 0o644);
    expect(await exportIndex(db)).toEqual(before);
    const after = JSON.parse((await cli(["index", vault, "--json"], env)).stdout);
    expect(after).toMatchObject({ added: 1, unchanged: 10, failed: 0 });
  });
});

describe.skipIf(!!MOUNT_MISSING)(needs("full disk", MOUNT_MISSING), () => {
  it("stops with a clear message when the disk fills, keeps a consistent index, and resumes once there is room", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-full-"));
    const vault = smallVault(root, 20);
    const extra = path.join(root, "extra");
    fs.mkdirSync(extra);
    const para = "Batteries, motors, sourdough and a long list of ordinary words that fill the page. ".repeat(25);
    for (let i = 0; i < 1500; i++)
      fs.writeFileSync(path.join(extra, `big${i}.md`), `# Big ${i}\n\n${para}\n\n## More ${i}\n\n${para}\n`);
    const mnt = path.join(root, "small-disk");
    fs.mkdirSync(mnt);
    const out = path.join(root, "out");
    fs.mkdirSync(out);
    const db = path.join(mnt, "index.db");
    const vr = `"${process.execPath}" "${BIN}"`;
    const step = (name: string, args: string) =>
      `${vr} ${args} > "${out}/${name}.out" 2> "${out}/${name}.err"; echo $? > "${out}/${name}.rc"`;
    const script = [
      "set -u",
      `mount -t tmpfs -o size=1536k tmpfs "${mnt}"`,
      step("first", `index "${vault}" --db "${db}" ${model.join(" ")} --json`),
      `cp "${extra}"/*.md "${vault}/"`,
      step("full", `index "${vault}" --db "${db}" --json`),
      step("check", `check --vault "${vault}" --db "${db}" --json`),
      step("search", `search --vault "${vault}" --db "${db}" --mode keyword --json -k 3 "topic 7"`),
      `mount -o remount,size=256m "${mnt}"`,
      step("resume", `index "${vault}" --db "${db}" --json`),
      step("status", `status --vault "${vault}" --db "${db}" --json`),
    ].join("\n");
    // a private mount namespace: the small disk exists only for this shell and the CLI runs it starts
    const ns = MOUNT_NAMESPACE;
    const code = await new Promise<number | null>((resolve) =>
      spawnChild(ns[0], [...ns.slice(1), "sh", "-c", script], {
        stdio: "inherit",
        env: { ...process.env, OLLAMA_HOST: stub.host },
      }).on("close", resolve),
    );
    expect(code).toBe(0);
    const read = (name: string) => ({
      rc: Number(fs.readFileSync(`${out}/${name}.rc`, "utf8")),
      out: fs.readFileSync(`${out}/${name}.out`, "utf8"),
      err: fs.readFileSync(`${out}/${name}.err`, "utf8"),
    });
    expect(read("first").rc).toBe(0);
    const full = read("full");
    expect(full.rc).toBe(1);
    expect(full.err.trim().split("\n").pop()).toBe(
      `vault-rag: the disk holding ${db} is full — nothing from this batch was written; free some space and run again`,
    );
    const check = read("check");
    expect(check.rc, check.err).toBe(0);
    expect(JSON.parse(check.out)).toMatchObject({ ok: true, problems: [] });
    expect(JSON.parse(read("search").out)[0].path).toBe("n7.md");
    const resume = read("resume");
    expect(resume.rc, resume.err).toBe(0);
    expect(JSON.parse(resume.out).added).toBeGreaterThan(0);
    expect(JSON.parse(read("status").out)).toMatchObject({ notes: 1520, stale: 0 });
  }, 300_000);
});

describe.skipIf(!!MOUNT_MISSING)(needs("full disk", MOUNT_MISSING), () => {
  it("reads keep working on a full disk (search, status, /api/search) and a write says the disk is full", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "vr-full-read-"));
    const vault = smallVault(root, 8);
    const mnt = path.join(root, "small-disk");
    fs.mkdirSync(mnt);
    const out = path.join(root, "out");
    fs.mkdirSync(out);
    const v = path.join(mnt, "vault");
    const db = path.join(v, ".vault-rag", "index.db");
    const vr = `"${process.execPath}" "${BIN}"`;
    const step = (name: string, command: string) =>
      `${command} > "${out}/${name}.out" 2> "${out}/${name}.err"; echo $? > "${out}/${name}.rc"`;
    // the HTTP API in this process's build, on the same index: GET /api/search
    const api = [
      `const { openVault } = await import(${JSON.stringify(path.resolve("dist/library.js"))});`,
      `const { createApp } = await import(${JSON.stringify(path.resolve("dist/serve/app.js"))});`,
      `const v = await openVault(${JSON.stringify(v)});`,
      `const app = createApp({ vault: v, host: "127.0.0.1", port: () => 4321, llm: "ollama:none", assets: { html: "", js: "", css: "" } });`,
      `const res = await app.request("http://127.0.0.1:4321/api/search?q=motors&mode=keyword&top_k=2", { headers: { host: "127.0.0.1:4321" } });`,
      `console.log(JSON.stringify({ status: res.status, body: await res.json() }));`,
      `await v.close();`,
    ].join(" ");
    const script = [
      "set -u",
      `mount -t tmpfs -o size=4m tmpfs "${mnt}"`,
      `cp -r "${vault}" "${v}"`,
      step("first", `${vr} index "${v}" ${model.join(" ")} --json`),
      `echo "# New\n\nA note about motors that finds no room." > "${v}/new.md"`,
      // fill the disk to its last byte
      `dd if=/dev/zero of="${mnt}/fill" bs=4k 2>/dev/null; dd if=/dev/zero of="${mnt}/fill2" bs=1 2>/dev/null`,
      step("df", `df -k "${mnt}"`),
      step("search", `${vr} search --vault "${v}" --mode keyword --json -k 2 motors`),
      step("status", `${vr} status "${v}" --json`),
      step("api", `"${process.execPath}" --input-type=module -e '${api}'`),
      step("shm", `ls "${path.dirname(db)}"`),
      step("index", `${vr} index "${v}" --json`),
    ].join("\n");
    const ns = MOUNT_NAMESPACE;
    const code = await new Promise<number | null>((resolve) =>
      spawnChild(ns[0], [...ns.slice(1), "sh", "-c", script], {
        stdio: "inherit",
        env: { ...process.env, OLLAMA_HOST: stub.host },
      }).on("close", resolve),
    );
    expect(code).toBe(0);
    const read = (name: string) => ({
      rc: Number(fs.readFileSync(`${out}/${name}.rc`, "utf8")),
      out: fs.readFileSync(`${out}/${name}.out`, "utf8"),
      err: fs.readFileSync(`${out}/${name}.err`, "utf8"),
    });
    expect(read("first").rc, read("first").err).toBe(0);
    expect(read("df").out).toMatch(/ 0 +100% /);
    const search = read("search");
    expect(search.rc, search.err).toBe(0);
    expect(JSON.parse(search.out)).toHaveLength(2);
    const status = read("status");
    expect(status.rc, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ notes: 8 });
    const api2 = read("api");
    expect(api2.rc, api2.err).toBe(0);
    const reply = JSON.parse(api2.out) as { status: number; body: { hits: unknown[] } };
    expect(reply.status, api2.out).toBe(200);
    expect(reply.body.hits).toHaveLength(2);
    // no shared-memory file too short to be any connection's is left beside the index
    expect(read("shm").out.split("\n")).not.toContain("index.db-shm");
    const index = read("index");
    expect(index.rc).toBe(1);
    expect(index.err.trim().split("\n").pop()).toBe(
      `vault-rag: the disk holding ${db} is full — nothing from this batch was written; free some space and run again`,
    );
  }, 300_000);
});
