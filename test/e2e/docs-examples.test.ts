import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-standin.js";
import { spawnChild, stopChildren } from "../support/children.js";
import { writeTinyBert, writeTinyCrossEncoder } from "../embed/tiny-bert.js";
import { folderFiles, startHubStandIn } from "../support/hub-standin.js";
import { BIN, exampleVaultCopy } from "./helpers.js";

/**
 * Every code example in README.md and docs/*.md runs here, as a reader would type it. A comment
 * `<!-- test: … -->` on the line before a block says how; a block without one is run as written:
 *
 * | marker | the block |
 * | --- | --- |
 * | none (`sh`) | runs in bash, `set -e`: every command must succeed |
 * | none (`ts`) | runs as an ES module in a project that links vault-rag |
 * | `background` | each line is a server: it starts, prints its first line (or ends with 0), and is stopped |
 * | `with serve` | runs against a `vault-rag serve` of the vault, at the port the docs name |
 * | `with the Ollama stand-in` | as `sh`; `ollama` talks to the stand-in Ollama server |
 * | `with a local model folder` | as `sh`; `~/models` holds a model folder under the name the block uses |
 * | `with a local reranker folder` | as `sh`; `~/models` holds a tiny cross-encoder under the name `--rerank` gives |
 * | `with the Hub stand-in` | as `sh`; `HF_ENDPOINT` is a stand-in Hub serving a tiny model under the name `models pull` names |
 * | none (`yaml`) | frontmatter: it must parse |
 * | `output of <command>` (`text`) | every line shown is a line the command prints |
 * | `hit shape` (`json`) | the hit's keys, checked by test/e2e/shape.test.ts |
 * | `mcp config` (`json`) | a client's configuration: the server it names starts and lists its tools |
 * | `settings file` (`json`) | a vault's `.vault-rag.json`: `vault-rag index` of `~/notes` with it succeeds |
 * | `run by .ci/run …` | the README's two commands, which `.ci/run` runs (test/e2e/readme.test.ts) |
 * | `skip — reason` | not run; the reason is shown |
 *
 * Each block runs in a home of its own: `~/notes` is an indexed copy of examples/vault, `vault-rag`
 * is the built CLI, and `ollama` and `npm install -g @huggingface/transformers` are stand-ins on the
 * PATH. Chat and embedding requests go to a local stand-in Ollama server; nothing reaches the
 * internet.
 */

interface Example {
  page: string;
  line: number;
  lang: string;
  code: string;
  marker: string;
}

const PAGES = [
  "README.md",
  ...fs
    .readdirSync("docs")
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The fenced code blocks of a page, each with the `<!-- test: … -->` marker before it. */
function examplesOf(page: string): Example[] {
  const lines = fs.readFileSync(page, "utf8").split("\n");
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const marker = /^<!-- test: (.*) -->$/.exec(lines[before] ?? "")?.[1] ?? "";
    out.push({ page, line: i + 1, lang: open[1], code: lines.slice(i + 1, end).join("\n") + "\n", marker });
    i = end;
  }
  return out;
}

let indexed = "";
let ollama: OllamaStandIn;
beforeAll(async () => {
  ollama = await startOllamaStandIn();
  const { vault } = exampleVaultCopy("vr-docs-");
  const r = spawnSync(process.execPath, [BIN, "index", vault, "--quiet"], { encoding: "utf8", env: cleanEnv() });
  expect(r.status, r.stderr).toBe(0);
  indexed = vault;
}, 180_000);
afterAll(() => ollama?.close());
afterEach(stopChildren);

function cleanEnv(): NodeJS.ProcessEnv {
  return { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "", NO_COLOR: "1" };
}

/** A home for one block: `~/notes` indexed, the CLI and the stand-ins on the PATH. */
function sandbox(): { home: string; env: NodeJS.ProcessEnv } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "vr-docs-home-"));
  fs.cpSync(indexed, path.join(home, "notes"), { recursive: true });
  const bin = path.join(home, "bin");
  fs.mkdirSync(bin);
  const script = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), body, { mode: 0o755 });
  script("vault-rag", `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  // `ollama pull <model>`, against the stand-in server (as the real CLI does against its server)
  script(
    "ollama",
    `#!/bin/sh\n[ "$1" = pull ] && [ -n "$2" ] || { echo "ollama stand-in: only 'pull <model>'" >&2; exit 2; }\n` +
      `curl -sSf "http://$OLLAMA_HOST/api/pull" -d "{\\"model\\": \\"$2\\"}" >/dev/null && echo "pulled $2"\n`,
  );
  // the optional package is installed for this checkout already; a global install is tested by
  // scripts/install-test.sh
  script(
    "npm",
    `#!/bin/sh\n[ "$*" = "install -g @huggingface/transformers --ignore-scripts" ] || { echo "npm stand-in: unexpected: npm $*" >&2; exit 2; }\n`,
  );
  return {
    home,
    env: {
      ...cleanEnv(),
      HOME: home,
      PATH: `${bin}:${process.env.PATH}`,
      OLLAMA_HOST: ollama.host,
      OPENAI_BASE_URL: `http://${ollama.chat.base}/v1`,
      OPENAI_API_KEY: "sk-test",
      // transformers models are cached in the block's home, never in the checkout's node_modules
      HF_HOME: path.join(home, "hf"),
    },
  };
}

/** Runs a shell script to its end; resolves with its exit code and output. */
function sh(script: string, env: NodeJS.ProcessEnv, cwd: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawnChild("bash", ["-e", "-o", "pipefail", "-c", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a long-running command; resolves at its first line of output (then stops it), or its end. */
function firstLine(line: string, env: NodeJS.ProcessEnv, cwd: string) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const p = spawnChild("bash", ["-c", `exec ${line}`], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const seen = (d: Buffer) => {
      output += d;
      if (!output.includes("\n")) return;
      process.kill(-p.pid!, "SIGTERM");
      resolve({ code: 0, output });
    };
    p.stdout!.on("data", seen);
    p.stderr!.on("data", seen);
    p.on("close", (code) => resolve({ code, output }));
  });
}

/** A command line as the sandbox runs it: a server on a free port, not the docs' fixed one. */
const freePort = (line: string) =>
  /\bvault-rag serve\b/.test(line)
    ? /--port \d+/.test(line)
      ? line.replace(/--port \d+/, "--port 0")
      : `${line} --port 0`
    : line;

async function runExample(ex: Example): Promise<void> {
  const { home, env } = sandbox();
  const where = `${ex.page}:${ex.line}`;
  const marker = ex.marker;
  if (marker.startsWith("skip — ")) return;
  if (marker.startsWith("run by .ci/run")) {
    const first = spawnSync(process.execPath, ["scripts/readme-first-command.mjs"], { encoding: "utf8" }).stdout;
    expect([first, "npm test\n"], where).toContain(ex.code);
    return;
  }
  if (ex.lang === "json") {
    const value = JSON.parse(ex.code);
    if (marker === "hit shape") return void expect(Object.keys(value)).toContain("start_line");
    if (marker === "settings file") {
      fs.writeFileSync(path.join(home, "notes", ".vault-rag.json"), ex.code);
      const r = spawnSync(process.execPath, [BIN, "index", path.join(home, "notes"), "--quiet"], {
        env,
        encoding: "utf8",
      });
      return void expect(r.status, `${where}: ${r.stderr}`).toBe(0);
    }
    expect(marker, where).toBe("mcp config");
    const server = value.mcpServers["vault-rag"];
    const client = new Client({ name: "docs", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args: server.args.map((a: string) => a.replace("/home/me/notes", path.join(home, "notes"))),
        env: env as Record<string, string>,
        stderr: "pipe",
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(
        ["get_note", "list_folders", "list_props", "list_tags", "related", "search", "status"].sort(),
      );
      const r = (await client.callTool({ name: "search", arguments: { query: "motors", top_k: 2 } })) as any;
      // a list of hits (with none: {hits: [], reason, hints})
      expect(JSON.parse(r.content[0].text).length, where).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    return;
  }
  if (ex.lang === "yaml") {
    // frontmatter as a note holds it: it must parse
    const body = /^---\n([\s\S]*?)^---\n?$/m.exec(ex.code)?.[1] ?? ex.code;
    expect(() => parseYaml(body), where).not.toThrow();
    return;
  }
  if (ex.lang === "text" || ex.lang === "") {
    const command = /^output of (.*)$/.exec(marker)?.[1];
    expect(command, `${where}: a text block says what prints it`).toBeTruthy();
    const r = await sh(command!, env, home);
    expect(r.code, `${where}: ${r.stderr}`).toBe(0);
    const printed = r.stdout.split("\n");
    for (const l of ex.code.trimEnd().split("\n")) expect(printed, `${where}: ${command}`).toContain(l);
    return;
  }
  if (ex.lang === "ts" || ex.lang === "js") {
    const project = path.join(home, "project");
    fs.mkdirSync(path.join(project, "node_modules"), { recursive: true });
    fs.symlinkSync(path.resolve("."), path.join(project, "node_modules", "vault-rag"), "dir");
    fs.writeFileSync(path.join(project, "example.mjs"), ex.code.replaceAll("/home/me/notes", path.join(home, "notes")));
    const r = await sh(`"${process.execPath}" example.mjs`, env, project);
    expect(r.code, `${where}: ${r.stderr}`).toBe(0);
    return;
  }
  expect(ex.lang, where).toBe("sh");
  if (marker === "background") {
    for (const line of ex.code.split("\n").filter((l) => l.trim() && !l.startsWith("#"))) {
      const r = await firstLine(freePort(line.replace(/\s+#.*$/, "")), env, home);
      expect(r.code, `${where}: ${line}: ${r.output}`).toBe(0);
    }
    return;
  }
  let script = ex.code;
  if (marker === "with serve") {
    const server = spawn("bash", ["-c", `exec vault-rag serve --vault "${home}/notes" --port 0`], {
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout!.on("data", (d) => {
        out += d;
        const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
        if (m) resolve(m[0]);
      });
      server.on("close", (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    try {
      // every request must succeed: curl fails on an HTTP error
      script = script.replaceAll("http://127.0.0.1:4321", url).replace(/\bcurl /g, "curl -sSf ");
      const r = await sh(script, env, home);
      expect(r.code, `${where}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain('"hits"');
      expect(r.stdout).toContain("event: done");
    } finally {
      process.kill(-server.pid!, "SIGTERM");
    }
    return;
  }
  if (marker === "with a local model folder") {
    const model = /--model transformers:(\S+)/.exec(script)?.[1];
    expect(model, where).toBeTruthy();
    writeTinyBert(path.join(home, "models"), model!);
  } else if (marker === "with a local reranker folder") {
    const model = /--rerank transformers:(\S+)/.exec(script)?.[1];
    expect(model, where).toBeTruthy();
    writeTinyCrossEncoder(path.join(home, "models"), model!);
  } else if (marker === "with the Ollama stand-in") {
    // a stand-in of its own: a model is there only once pulled
    const own = await startOllamaStandIn();
    try {
      env.OLLAMA_HOST = own.host;
      const model = /ollama pull (\S+)/.exec(script)?.[1];
      expect(model, where).toBeTruthy();
      const unpulled = await sh(script.replace(/^ollama pull .*$/m, ""), env, home);
      expect(unpulled.code, where).not.toBe(0);
      expect(unpulled.stderr).toContain(`model "${model}" not found, try pulling it first`);
      const r = await sh(script, env, home);
      expect(r.code, `${where}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(own.pulled).toEqual([model]);
      // documents with nomic's prefix, then the question with its own
      expect(own.embeds.some((e) => e.model === model && e.input[0].startsWith("search_document: "))).toBe(true);
      expect(own.embeds.at(-1)!.input).toEqual(["search_query: why did the motors cut out?"]);
      expect(r.stdout).toMatch(new RegExp(`^model: +ollama:${model} \\(32-d\\)`, "m"));
      expect(r.stdout).toMatch(/^.+\.md:\d+ {2}/m);
    } finally {
      await own.close();
    }
    return;
  } else if (marker === "with the Hub stand-in") {
    // `models pull` against a stand-in Hub that serves the tiny model under the name the block pulls
    const model = /models pull (\S+)/.exec(script)?.[1];
    expect(model, where).toBeTruthy();
    const hub = await startHubStandIn();
    try {
      const files = folderFiles(writeTinyBert(path.join(home, "hub"), model!));
      files.set("onnx/model_quantized.onnx", files.get("onnx/model.onnx")!);
      hub.add(model!, files);
      const r = await sh(script, { ...env, HF_ENDPOINT: hub.endpoint }, home);
      expect(r.code, `${where}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(hub.fetched.map((f) => f.path)).toContain("onnx/model_quantized.onnx");
      expect(r.stdout, where).toMatch(/^.+\.md:\d+ {2}/m);
    } finally {
      await hub.close();
    }
    return;
  } else expect(marker, `${where}: unknown marker`).toBe("");
  const r = await sh(script, env, home);
  expect(r.code, `${where}:\n${r.stdout}\n${r.stderr}`).toBe(0);
  if (marker) expect(r.stdout, where).toMatch(/^.+\.md:\d+ {2}/m); // the switched index searches
}

describe("every code example in the README and docs/", () => {
  const all = PAGES.flatMap(examplesOf);

  it("finds the examples, and says why each skipped one is not run", () => {
    expect(all.length).toBeGreaterThan(20);
    const skipped = all.filter((e) => e.marker.startsWith("skip"));
    for (const e of skipped) expect(e.marker, `${e.page}:${e.line}`).toMatch(/^skip — \S/);
    expect(skipped.length).toBeLessThanOrEqual(5);
  });

  for (const ex of all) it(`${ex.page}:${ex.line} runs (${ex.marker || ex.lang})`, () => runExample(ex), 240_000);
});

describe("the pages that mirror the code", () => {
  it("docs/cli.md names every flag each command's --help shows, in that command's section", () => {
    const cli = fs.readFileSync("docs/cli.md", "utf8");
    const sections = cli.split(/^### /m).slice(1);
    const overview = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" }).stdout;
    const commands = [...overview.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]);
    expect(commands).toContain("models");
    for (const command of commands) {
      const own = sections.find((s) => new RegExp(`^vault-rag [a-z, ]*\\b${command}\\b`).test(s));
      expect(own, `docs/cli.md has a section for ${command}`).toBeTruthy();
      // ask and chat take the search flags, which the search section lists
      const text =
        own! + (["ask", "chat"].includes(command) ? sections.find((s) => s.startsWith("vault-rag search")) : "");
      const help = spawnSync(process.execPath, [BIN, command, "--help"], { encoding: "utf8" }).stdout;
      const from = help.slice(help.indexOf("Options:"));
      const options = from.slice(0, from.search(/\n\n/) + 1 || undefined);
      for (const flag of new Set(options.match(/--[a-z][a-z-]+/g)))
        if (flag !== "--help") expect(text, `docs/cli.md, vault-rag ${command}: ${flag}`).toContain(`${flag}`);
    }
  });

  it("docs/models.md lists the models `vault-rag models` recommends, with their published scores", async () => {
    const page = fs.readFileSync("docs/models.md", "utf8");
    const { recommendedModels } = await import(path.resolve("dist/core/models.js"));
    for (const m of recommendedModels()) {
      expect(page).toContain(`\`${m.id}\``);
      for (const s of m.published) expect(page).toContain(`${s.benchmark} ${s.value}`);
    }
  });
});
