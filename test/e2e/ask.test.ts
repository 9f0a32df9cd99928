import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnChild, stopChildren } from "../support/children.js";
import { CONTEXT_DEFAULTS, estimateTokens } from "../../src/answer/index.js";
import { startLlmStub, type LlmStub } from "../support/llm-stub.js";
import { copyVaultWithoutIndex } from "./helpers.js";

const BIN = path.resolve("dist/cli/main.js");
let vault = "";
let stub: LlmStub;
let base = "";
let requests: LlmStub["requests"] = [];

function run(args: string[], env: Record<string, string> = {}, input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULT_RAG_VAULT: vault, OLLAMA_HOST: base, ...env },
    encoding: "utf8",
    input,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
/** Like run(), but async: the stub server lives in this process, so the CLI must not block it. */
function runAsync(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnChild(process.execPath, [BIN, ...args], {
      env: { ...process.env, VAULT_RAG_VAULT: vault, OLLAMA_HOST: base, ...env },
    });
    let stdout = "";
    let stderr = "";
    p.stdout!.on("data", (d) => (stdout += d));
    p.stderr!.on("data", (d) => (stderr += d));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
    p.stdin!.end(input ?? "");
  });
}

beforeAll(async () => {
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-ask-")), "vault");
  copyVaultWithoutIndex(path.resolve("examples/vault"), vault);
  expect(run(["index", vault, "--quiet"]).code).toBe(0);
  stub = await startLlmStub();
  ({ base, requests } = stub);
});
afterAll(() => stub.close());
afterEach(stopChildren);

describe("vault-rag ask", () => {
  it("streams an answer from Ollama and lists the cited sources", async () => {
    requests.length = 0;
    const r = await runAsync(["ask", "why did the SMARS motors cut out on long runs?"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^The DRV8833 overheated on carpet, so it was swapped for a TB6612FNG \[1\]\.\n\nSources:\n\[1\] .+ — daily\/2026-03-14\.md:\d+-\d+\n$/,
    );
    const sent = requests[0].body;
    expect(sent.model).toBe("llama3.2");
    expect(sent.stream).toBe(true);
    expect(sent.messages[0].role).toBe("system");
    expect(sent.messages[0].content).toContain("Cite every statement");
    expect(sent.messages[1].content).toMatch(/^Sources:\n\n\[1\] /);
    expect(sent.messages[1].content).toContain("daily/2026-03-14.md");
    expect(sent.messages[1].content.endsWith("Question: why did the SMARS motors cut out on long runs?")).toBe(true);
  });

  it("gives JSON with answer, sources, model and timings, and speaks the OpenAI streaming format", async () => {
    const r = await runAsync(
      ["ask", "--llm", "openai:local-model", "--json", "--obsidian-links", "why did the motors cut out"],
      { OPENAI_BASE_URL: `http://${base}/v1` },
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.answer).toBe("The DRV8833 overheated on carpet, so it was swapped for a TB6612FNG [1].");
    expect(j.model).toBe("openai:local-model");
    expect(j.sources[0]).toMatchObject({ n: 1, path: "daily/2026-03-14.md" });
    // its lines are named as a hit's are in `search --json`
    expect(Object.keys(j.sources[0])).toEqual(expect.arrayContaining(["start_line", "end_line"]));
    expect(j.sources[0].start_line).toBeGreaterThan(0);
    expect(j.sources[0]).not.toHaveProperty("startLine");
    expect(j.sources[0].link).toBe("obsidian://open?vault=vault&file=daily%2F2026-03-14");
    expect(j.timings.firstTokenMs).toBeGreaterThan(0);
  });

  it("flags citations of sources that were never given", async () => {
    const r = await runAsync(["ask", "--llm", "ollama:bad-cite", "-k", "3", "why did the motors stall"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: the answer cites \[9\], but only \d source\(s\) were given/);
  });

  it("prints the prompt and sources without any model (--context-only)", () => {
    const r = run(["ask", "--context-only", "--tag", "pico", "how do I save power"], { OLLAMA_HOST: "127.0.0.1:9" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Question: how do I save power");
    // one source of the intro and the two sections after it, named for those sections
    expect(r.stdout).toContain("[1] Pico W > Power saving · Pins — electronics/Pico W.md");
  });

  it("keeps the prompt within the default budget without --budget, and says when its best source alone is over --budget", () => {
    // -k 40 brings every passage of the vault that the question's words reach: more than 3,000 tokens
    const args = ["-k", "40", "--per-note", "9", "--json", "motors and wiring"];
    const all = run(["ask", "--context-only", ...args], { OLLAMA_HOST: "127.0.0.1:9" });
    const { sources, system } = JSON.parse(all.stdout) as { sources: { text: string }[]; system: string };
    const hits = JSON.parse(run(["search", ...args]).stdout) as unknown[];
    expect(sources.length).toBeLessThan(hits.length);
    const cost = sources.reduce(
      (n, s) => n + estimateTokens(s.text) + 12,
      estimateTokens(system) + estimateTokens("motors and wiring"),
    );
    expect(cost).toBeLessThanOrEqual(CONTEXT_DEFAULTS.budgetTokens);
    const tight = run(["ask", "--context-only", "--budget", "100", "--tag", "pico", "how do I save power"], {
      OLLAMA_HOST: "127.0.0.1:9",
    });
    expect(tight.code).toBe(0);
    expect(tight.stdout).toContain("[1] Pico W > Power saving · Pins — electronics/Pico W.md");
    expect(tight.stdout).not.toMatch(/^\[2\] /m);
    expect(tight.stderr).toMatch(
      /^note: the prompt is about \d+ tokens, over the budget of 100: its best source alone is, and a source is given whole, never cut\n$/,
    );
  });

  it("finds nothing through a filter as search does: the reason and a hint on stderr, exit 1, no prompt and no model asked", () => {
    const stderr =
      'no results: no chunk passes the filters\nvault-rag: no note has the tag "nosuch"; list them with `vault-rag tags`\n';
    const context = run(["ask", "--context-only", "--tag", "nosuch", "how do I save power"], {
      OLLAMA_HOST: "127.0.0.1:9",
    });
    expect(context).toMatchObject({ code: 1, stdout: "" });
    const answer = run(["ask", "--tag", "nosuch", "how do I save power"], { OLLAMA_HOST: "127.0.0.1:9" });
    // the model is never reached (its server is down): there is nothing to answer from
    expect(answer).toMatchObject({ code: 1, stdout: "The notes contain nothing that matches this question.\n" });
    expect(context.stderr).toBe(answer.stderr);
    expect(context.stderr).toBe(stderr);
    const json = run(["ask", "--context-only", "--json", "--tag", "nosuch", "power"], { OLLAMA_HOST: "127.0.0.1:9" });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ prompt: null, sources: [], reason: "no chunk passes the filters" });
  });

  it("explains an unreachable server, an unknown model and a stream cut mid-answer (keeping what was printed), each exit 2: 1 is 'nothing matched'", async () => {
    const down = run(["ask", "motors"], { OLLAMA_HOST: "127.0.0.1:9" });
    expect(down.code).toBe(2);
    expect(down.stderr.trim()).toBe(
      "vault-rag: Ollama is not reachable at http://127.0.0.1:9 — start it with `ollama serve` or choose another model with --llm",
    );
    const missing = await runAsync(["ask", "--llm", "ollama:missing", "motors"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `vault-rag: Ollama at http://${base} has no model "missing" — run \`ollama pull missing\` or choose another with --llm`,
    );
    const cut = await runAsync(["ask", "--llm", "ollama:cut", "motors"]);
    expect(cut.code).toBe(2);
    expect(cut.stdout).toBe("The DRV8833 overheated on carpet, so it was swapped\n");
    expect(cut.stderr.trim()).toBe(
      `vault-rag: the answer from Ollama at http://${base} stopped before it finished — what was printed is incomplete`,
    );
  });
});

describe("vault-rag chat", () => {
  it("answers follow-up questions with the model loaded once, and handles slash commands", async () => {
    const r = await runAsync(
      ["chat"],
      {},
      "why did the motors cut out\n/sources\n/timings\n/mode nonsense\n/tag pico\nhow do I save power\n/clear\n/exit\n",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The DRV8833 overheated on carpet, so it was swapped for a TB6612FNG [1].");
    expect(r.stdout).toMatch(/\[1\] .+ — daily\/2026-03-14\.md:\d+-\d+/);
    expect(r.stdout).toMatch(/retrieval: \d+\.\d ms/);
    expect(r.stdout).toContain("tags: pico");
    expect(r.stdout).toContain("conversation cleared");
    expect(r.stderr).toContain('vault-rag: unknown mode "nonsense" — use dense, keyword or hybrid');
  });

  it("retrieves for a follow-up question alone, not the earlier topic", () => {
    const r = run(
      ["chat", "--retrieval-only", "-k", "4"],
      {},
      "how do the SMARS motors work\nsourdough starter feeding schedule\n",
    );
    expect(r.code).toBe(0);
    const turns = r.stdout.split(/^(?=\[1\] )/m).slice(1);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toContain("robots/SMARS.md");
    expect(turns[1]).toContain("kitchen/Sourdough.md");
    expect(turns[1]).not.toMatch(/robots\//);
  });

  it("works without a model, showing the hits", () => {
    const r = run(["chat", "--retrieval-only", "-k", "2"], {}, "/folder kitchen\nbread\n/help\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("folder: kitchen");
    expect(r.stdout).toMatch(/^\[1\] kitchen\/Sourdough\.md:\d+ {2}Sourdough/m);
    expect(r.stdout).toContain("/timings");
  });

  it("checks the chat model once at start-up: without a terminal it says so and exits 1", () => {
    const r = run(["chat"], { OLLAMA_HOST: "127.0.0.1:9" }, "why did the motors cut out\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "vault-rag: Ollama is not reachable at http://127.0.0.1:9 — start it with `ollama serve` or choose another model with --llm\n" +
        "vault-rag: chat stopped: no chat model — start it, or run `vault-rag chat --retrieval-only` to see the hits without answers\n",
    );
    expect(r.stdout).toBe("");
  });

  it("on a terminal offers retrieval-only mode; declining exits 1, accepting shows hits, and Ctrl-C leaves on a new line", async () => {
    const session = (answer: string) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const cmd = [process.execPath, BIN, "chat", "-k", "2"].map((a) => `'${a}'`).join(" ");
        const p = spawnChild("script", ["-qfec", cmd, "/dev/null"], {
          env: { ...process.env, VAULT_RAG_VAULT: vault, OLLAMA_HOST: "127.0.0.1:9" },
        });
        let out = "";
        let step = 0;
        const prompt = /> (\x1b\[\d+G)?$/;
        p.stdout!.on("data", (d) => {
          out += d;
          if (step === 0 && out.includes("[y/N] ")) {
            step = 1;
            p.stdin!.write(answer + "\r");
          } else if (step === 1 && prompt.test(out)) {
            step = 2;
            p.stdin!.write("sourdough starter\r");
          } else if (step === 2 && out.includes("Sourdough.md") && prompt.test(out)) {
            step = 3;
            p.stdin!.write("\x03");
          }
        });
        // without colours, cursor moves and hyperlinks (the terminal tests check those)
        const plain = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").replace(/\x1b\]8;;[^\x1b]*\x1b\\/g, "");
        p.on("exit", (code) => resolve({ code, out: plain(out) }));
      });
    const no = await session("n");
    expect(no.code).toBe(1);
    expect(no.out).toContain(
      "vault-rag: Ollama is not reachable at http://127.0.0.1:9 — start it with `ollama serve` or choose another model with --llm\r\nContinue in retrieval-only mode (hits, no answers)? [y/N] n",
    );
    expect(no.out).not.toContain("vault-rag chat —");
    const yes = await session("y");
    expect(yes.code).toBe(0);
    expect(yes.out).toContain("(retrieval only). /help for commands.");
    expect(yes.out).toMatch(/\[1\] kitchen\/Sourdough\.md:\d+ {2}Sourdough/);
    expect(yes.out.endsWith("> \r\n")).toBe(true); // the prompt, then a newline: the shell starts on a fresh line
  });
});

describe("vault-rag ask --llm openai:…", () => {
  it("fails saying the model's server took the connection and did not answer, when it never answers", async () => {
    const net = await import("node:net");
    const mute = net.createServer(() => {});
    await new Promise<void>((r) => mute.listen(0, "127.0.0.1", () => r()));
    const port = (mute.address() as import("node:net").AddressInfo).port;
    try {
      const r = await runAsync(["ask", "why did the motors cut out"], { OLLAMA_HOST: `127.0.0.1:${port}` });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `vault-rag: the server at http://127.0.0.1:${port} took the connection but did not answer within 5 s — check that it is Ollama and that it is not stuck, or choose another model with --llm`,
      );
    } finally {
      mute.close();
    }
  });

  it("names a base URL without /v1 as the likely cause of a 404", async () => {
    const r = await runAsync(["ask", "--llm", "openai:stub", "why did the motors cut out"], {
      OPENAI_BASE_URL: `http://${base}`,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `vault-rag: http://${base}/models does not exist (HTTP 404) — the base URL "http://${base}" lacks /v1, which most OpenAI-compatible servers need: set OPENAI_BASE_URL=http://${base}/v1`,
    );
    const ok = await runAsync(["ask", "--llm", "openai:stub", "why did the motors cut out"], {
      OPENAI_BASE_URL: `http://${base}/v1`,
    });
    expect(ok.code).toBe(0);
  });
});
