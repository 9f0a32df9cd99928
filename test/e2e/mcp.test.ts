import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnChild, stopChildren, until } from "../support/children.js";
import { copyVaultWithoutIndex } from "./helpers.js";

const BIN = path.resolve("dist/cli/main.js");
let vault = "";
let client: Client;

const textOf = (r: any) => r.content[0].text as string;

beforeAll(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-mcp-"));
  vault = path.join(tmp, "vault");
  copyVaultWithoutIndex(path.resolve("examples/vault"), vault);
  fs.writeFileSync(path.join(tmp, "secret.md"), "# Secret\n\nnot for agents\n");
  fs.symlinkSync(path.join(tmp, "secret.md"), path.join(vault, "escape.md"));
  // a note the bundled English model has no tokens for
  fs.mkdirSync(path.join(vault, "ja"));
  fs.writeFileSync(path.join(vault, "ja", "テーマ.md"), "# テーマ\n\n外観からテーマを変更できます。\n");
  fs.mkdirSync(path.join(vault, ".trash"));
  fs.writeFileSync(path.join(vault, ".trash", "Old plans.md"), "# Old plans\n\nDeleted, not for agents.\n");
  expect(spawnSync(process.execPath, [BIN, "index", vault, "--quiet"]).status).toBe(0);
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--vault", vault], stderr: "pipe" }),
  );
});
afterAll(async () => client?.close());
afterEach(stopChildren);

describe("vault-rag mcp", () => {
  it("lists its tools, each with its arguments' JSON Schema", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search")!;
    expect(search.inputSchema).toMatchObject({
      type: "object",
      required: ["query"],
      additionalProperties: false,
      properties: { query: { type: "string", minLength: 1 }, top_k: { type: "integer", minimum: 1, maximum: 50 } },
    });
    expect(tools.map((t) => t.name).sort()).toEqual([
      "get_note",
      "list_folders",
      "list_props",
      "list_tags",
      "related",
      "search",
      "status",
    ]);
  });

  it("searches with the CLI's defaults and filters", async () => {
    const hits = JSON.parse(
      textOf(await client.callTool({ name: "search", arguments: { query: "how do the SMARS motors work" } })),
    );
    expect(hits).toHaveLength(6);
    expect(hits[0]).toEqual(
      expect.objectContaining({
        path: expect.any(String),
        label: expect.any(String),
        start_line: expect.any(Number),
        end_line: expect.any(Number),
        score: expect.any(Number),
        text: expect.any(String),
      }),
    );
    const pico = JSON.parse(
      textOf(await client.callTool({ name: "search", arguments: { query: "save power", tags: ["pico"], top_k: 3 } })),
    );
    expect(pico.length).toBeGreaterThan(0);
    for (const h of pico)
      expect(["electronics/Pico W.md", "projects/Weather station.md", "projects/Plant watering.md"]).toContain(h.path);
    const filtered = await client.callTool({
      name: "search",
      arguments: { query: "x", where: { tags: { $in: ["pico"] } } },
    });
    expect(filtered.isError).toBe(true);
    expect(textOf(filtered)).toBe(
      'vault-rag: "$in" does not work on the list field "tags" — use {"tags": {"$contains": "pico"}}',
    );
  });

  it("refuses unknown or malformed parameters", async () => {
    // in the HTTP API's words, one line each, not the SDK's multi-line validation report
    for (const [name, args, message] of [
      // with the fields there are, as the HTTP API names its parameters
      [
        "search",
        { query: "motors", colour: "red" },
        'vault-rag: unknown field "colour" — use query, top_k, per_note, oversample, mode, tags, folder, type, top_folder, under, since, until, by, props, min_ratio, where, where_document, expand, spell, rerank',
      ],
      ["search", { query: "motors", top_k: "many" }, 'vault-rag: top_k must be a number, got "many"'],
      ["search", { query: "motors", top_k: 500 }, "vault-rag: top_k must be a whole number of at most 50, got 500"],
      ["search", {}, 'vault-rag: query is required — add "query" to the tool\'s arguments'],
      ["search", { query: "" }, 'vault-rag: query must not be empty, got ""'],
      ["related", { path: "SMARS", unlinked_only: "yes" }, 'vault-rag: unlinked_only must be true or false, got "yes"'],
      ["status", { verbose: true }, 'vault-rag: unknown field "verbose" — this takes none'],
      [
        "delete_notes",
        {},
        'vault-rag: unknown tool "delete_notes" — use "search", "get_note", "related", "list_tags", "list_folders", "list_props", "status"',
      ],
    ] as const) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(r)).toBe(message);
    }
  });

  it("reads a note or one section, and refuses paths that leave the vault", async () => {
    expect(textOf(await client.callTool({ name: "get_note", arguments: { path: "kitchen/Sourdough.md" } }))).toMatch(
      /^# Sourdough\n/,
    );
    const section = textOf(
      await client.callTool({ name: "get_note", arguments: { path: "robots/SMARS.md", heading: "Motor wiring" } }),
    );
    expect(section.startsWith("## Motor wiring\n")).toBe(true);
    expect(section).not.toContain("## Motor upgrades");
    for (const [p, why] of [
      ["../secret.md", "it leaves the vault"],
      [path.join(vault, "kitchen/Sourdough.md"), "it is absolute"],
    ]) {
      const r = await client.callTool({ name: "get_note", arguments: { path: p } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe(
        `vault-rag: refused path "${p}": ${why} — give a vault-relative path like robots/SMARS.md`,
      );
    }
    // a link out of the vault is answered as a note that is not there: what is behind it is not told
    const escape = await client.callTool({ name: "get_note", arguments: { path: "escape.md" } });
    expect(escape.isError).toBe(true);
    expect(textOf(escape)).toMatch(/^vault-rag: no note "escape.md" in the vault — /);
  });

  it("ranks a question the model cannot read by its words alone, and says so in a second text", async () => {
    const r = (await client.callTool({ name: "search", arguments: { query: "テーマ" } })) as any;
    expect(JSON.parse(r.content[0].text).map((h: { path: string }) => h.path)).toEqual(["ja/テーマ.md"]);
    expect(r.content[1]).toEqual({
      type: "text",
      text: "note: the embedding model (use-lite:universal-sentence-encoder-lite) knows too few of this question's characters to read it; ranked by keywords alone",
    });
    // a question it reads has one text
    expect((await client.callTool({ name: "search", arguments: { query: "motors" } })).content).toHaveLength(1);
  });

  it("serves only indexed notes, refusing the others as notes that are not there, and finds a note as a wikilink does", async () => {
    for (const p of [".trash/Old plans.md", "drafts/Secret.md", "drafts/Secret"]) {
      const r = await client.callTool({ name: "get_note", arguments: { path: p } });
      expect(r.isError, p).toBe(true);
      expect(textOf(r).startsWith(`vault-rag: no note "${p}" in the vault — `), textOf(r)).toBe(true);
    }
    const sourdough = textOf(await client.callTool({ name: "get_note", arguments: { path: "kitchen/Sourdough.md" } }));
    for (const name of ["Sourdough", "sourdough.md", "kitchen/Sourdough", "KITCHEN/sourdough.md"])
      expect(textOf(await client.callTool({ name: "get_note", arguments: { path: name } })), name).toBe(sourdough);
    expect(textOf(await client.callTool({ name: "get_note", arguments: { path: "welcome" } }))).toMatch(/^# Welcome/);
    // a note found by its name says which note it read; one asked by its path does not need to
    const byName = (await client.callTool({ name: "get_note", arguments: { path: "Sourdough" } })) as {
      content: { text: string }[];
    };
    expect(byName.content.map((c) => c.text)).toEqual([sourdough, 'note: read "kitchen/Sourdough.md"']);
    const byPath = (await client.callTool({ name: "get_note", arguments: { path: "kitchen/Sourdough.md" } })) as {
      content: unknown[];
    };
    expect(byPath.content).toHaveLength(1);
    // a file the indexer skips is not served either
    fs.writeFileSync(path.join(vault, "photo.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const binary = await client.callTool({ name: "get_note", arguments: { path: "photo.md" } });
    expect(binary.isError).toBe(true);
    expect(textOf(binary)).toBe(
      'vault-rag: "photo.md" is not served: it is a binary file, not Markdown text (only notes the index can hold are served)',
    );
    fs.rmSync(path.join(vault, "photo.md"));
    const missing = await client.callTool({ name: "get_note", arguments: { path: "Nothing like it" } });
    expect(textOf(missing)).toBe(
      'vault-rag: no note "Nothing like it" in the vault — give a vault-relative path like "daily/2026-03-02.md" or a note\'s name; find notes with search',
    );
  });

  it("lists tags and folders and reports status", async () => {
    const tags = JSON.parse(textOf(await client.callTool({ name: "list_tags", arguments: {} })));
    expect(tags).toContainEqual({ tag: "pico", notes: 3 });
    const folders = JSON.parse(textOf(await client.callTool({ name: "list_folders", arguments: {} })));
    expect(folders).toContainEqual({ folder: "kitchen", notes: 5 }); // examples/vault/kitchen holds five notes
    const status = JSON.parse(textOf(await client.callTool({ name: "status", arguments: {} })));
    expect(status).toMatchObject({ vault, model: "use-lite", notes: 44, attachments: 3, stale: 0 });
    expect(status.dates.sources).toMatchObject({ filename: 4 }); // daily/2026-03-02.md …
  });

  it("lists properties and their values, and searches by them", async () => {
    const props = JSON.parse(textOf(await client.callTool({ name: "list_props", arguments: {} })));
    expect(props).toContainEqual({ name: "status", field: "status", notes: 3, types: { string: 3 } });
    const values = JSON.parse(textOf(await client.callTool({ name: "list_props", arguments: { name: "Status" } })));
    expect(values).toEqual([
      { value: "read", type: "string", notes: 2 },
      { value: "active", type: "string", notes: 1 },
    ]);
    const call = (args: object) => client.callTool({ name: "search", arguments: { query: "book", ...args } });
    const paths = async (args: object) => JSON.parse(textOf(await call(args))).map((h: { path: string }) => h.path);
    expect(
      (await paths({ where: { rating: { $gte: 5 } } })).every((p: string) => p.endsWith("Everyday Things.md")),
    ).toBe(true);
    expect(new Set(await paths({ props: ["status=read"] }))).toEqual(
      new Set(["reading/The Design of Everyday Things.md", "reading/Thinking Fast and Slow.md"]),
    );
  });
});

describe("vault-rag mcp under load", () => {
  it("answers searches a few at a time and refuses, at once and with a reason, those over the waiting limit; other tools wait for none", async () => {
    const { createMcpServer } = await import("../../src/mcp/server.js");
    const { InMemoryTransport } = await import("@modelcontextprotocol/sdk/inMemory.js");
    const { server, vault: v } = await createMcpServer(vault, { calls: 1, waiting: 2 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const local = new Client({ name: "load", version: "1.0.0" });
    await Promise.all([server.connect(a), local.connect(b)]);
    try {
      // five searches at once: one runs, two wait, two are over the limit; list_tags waits for none
      const answers = await Promise.all([
        ...["motor", "wiring", "sourdough", "kayak", "pico"].map((query) =>
          local.callTool({ name: "search", arguments: { query, top_k: 1, mode: "keyword" } }),
        ),
        local.callTool({ name: "list_tags", arguments: {} }),
      ]);
      const tags = answers.pop()!;
      expect(tags.isError).toBeFalsy();
      const refusal = {
        content: [
          {
            type: "text",
            text: "vault-rag: 2 tool calls are already waiting for an answer — wait for answers before sending more",
          },
        ],
        isError: true,
      };
      expect(answers.slice(3)).toEqual([refusal, refusal]);
      for (const r of answers.slice(0, 3)) expect(r.isError).toBeFalsy();
      expect(JSON.parse(textOf(answers[0]))[0].text).toMatch(/motor/i);
      // the queue empties: a call sent after the others are answered runs
      expect((await local.callTool({ name: "list_tags", arguments: {} })).isError).toBeFalsy();
    } finally {
      await local.close();
      await v.close();
    }
  });

  it("stops reading stdin while its answers wait for a client that does not read them, and loses none", async () => {
    const p = spawnChild(process.execPath, [BIN, "mcp", "--vault", vault]);
    p.stdin!.on("error", () => {});
    const N = 50_000;
    const line = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }) + "\n";
    // once the server answers (it has opened the index), this side stops reading
    p.stdin!.write(line(0));
    await new Promise((r) => p.stdout!.once("data", r));
    p.stdout!.pause();
    // 2.2 MB of pings, in writes of 100; `taken` counts the bytes the server's side has accepted
    let taken = 0;
    let total = 0;
    for (let i = 1; i <= N; i += 100) {
      const batch = Array.from({ length: 100 }, (_, k) => line(i + k)).join("");
      total += batch.length;
      p.stdin!.write(batch, () => (taken += batch.length));
    }
    // a fixed window, kept on purpose: the test asserts that something does NOT happen (the server
    // does not read on while its answers go unread), which no event can mark the end of; without the
    // brake the server takes all of it within 6 s on an idle machine, its answers held in memory. A
    // busy machine can only make the server take less, so the window never fails a working brake
    await new Promise((r) => setTimeout(r, 8000));
    expect(taken).toBeLessThan(total / 2);
    // read now: every ping is answered, in order
    let out = "";
    p.stdout!.on("data", (d) => (out += d));
    p.stdout!.resume();
    let exited = "";
    p.on(
      "exit",
      (code, signal) => (exited = `the server exited (${signal ?? code}) after ${out.split("\n").length - 1} answers`),
    );
    await until(
      `${N} answers`,
      () => out.split("\n").length > N,
      () => exited || undefined,
    );
    p.kill();
    const ids = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });
});

describe("vault-rag mcp --watch", () => {
  it("serves agents and keeps the index fresh in one process: a new note becomes searchable, a deleted one goes", async ({
    onTestFailed,
    onTestFinished,
  }) => {
    const live = new Client({ name: "test-watch", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--vault", vault, "--watch"],
      stderr: "pipe",
    });
    // the server's reports (each pass, each error) go with a failure, a timeout included, after
    // which the server is stopped
    let stderr = "";
    transport.stderr?.on("data", (d) => (stderr += d));
    onTestFailed(() => console.error(`vault-rag mcp --watch stderr:\n${stderr || "(empty)"}`));
    onTestFinished(() => live.close());
    await live.connect(transport);
    // hits, or {hits: [], reason} when nothing matches
    const paths = async (query: string) => {
      const r = JSON.parse(
        textOf(await live.callTool({ name: "search", arguments: { query, top_k: 3, mode: "keyword" } })),
      );
      return ((Array.isArray(r) ? r : r.hits) as { path: string }[]).map((h) => h.path);
    };
    expect(await paths("quokka")).toEqual([]);
    fs.writeFileSync(
      path.join(vault, "travel/Rottnest.md"),
      "# Rottnest\n\nA day cycling around the island to see a quokka.\n",
    );
    // however long the watcher takes (the test's timeout bounds it); the note may be found while
    // the pass that found it is still embedding, and removed before the watcher has read its folder
    await until("the new note to be found", async () => (await paths("quokka")).includes("travel/Rottnest.md"));
    fs.rmSync(path.join(vault, "travel/Rottnest.md"));
    await until("the deleted note to be gone", async () => (await paths("quokka")).length === 0);
    const status = JSON.parse(textOf(await live.callTool({ name: "status", arguments: {} })));
    expect(status).toMatchObject({ notes: 44, attachments: 3, stale: 0 });
  });

  it("answers a line that is not JSON, or not JSON-RPC, with the protocol's error, and stops with a reason on a message over 10 MB", async () => {
    /** Sends `input`; ends stdin once `answers` lines have come back ("never": the server must stop by itself). */
    const raw = (input: string | Buffer, answers: number | "never") =>
      new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
        const p = spawnChild(process.execPath, [BIN, "mcp", "--vault", vault]);
        let stdout = "";
        let stderr = "";
        const enough = () => answers !== "never" && stdout.split("\n").length > answers;
        p.stdout!.on("data", (d) => {
          stdout += d;
          if (enough()) p.stdin!.end();
        });
        p.stderr!.on("data", (d) => (stderr += d));
        p.stdin!.on("error", () => {}); // the server may stop reading first
        p.stdin!.write(input);
        if (enough()) p.stdin!.end();
        p.on("close", (code) => resolve({ stdout, stderr, code }));
      });
    const r = await raw('not json\n\n{"hello": 1}\n{"jsonrpc": "2.0", "id": 7, "method": "ping"}\n', 3);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32700,
          message: "vault-rag: a line on stdin is not JSON — send one JSON-RPC 2.0 message per line",
        },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message:
            'vault-rag: a line on stdin is not a JSON-RPC 2.0 message — send {"jsonrpc": "2.0", "id": 1, "method": …}',
        },
      },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
    // a tools/call that is no tool call gets -32602 and one line; arguments: null reads as none
    const call = (id: number, params?: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", ...(params === undefined ? {} : { params }) });
    const calls = await raw(
      [
        call(1, { name: "search", arguments: "notanobject" }),
        call(2),
        call(3, { name: null, arguments: {} }),
        call(4, { name: "list_tags", arguments: null }),
        call(5, { name: "search", arguments: { query: "a".repeat(2001) } }),
        call(6, { name: "get_note", arguments: { path: "x".repeat(9000) } }),
        // JSON.parse makes it an own key, which the SDK would drop without a word
        '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "motor", "__proto__": {"x": 1}}}}',
        // params that are no object: the SDK refuses the line as no message, with no id to answer
        call(10, "x"),
        call(11, 5),
        call(12, null),
        call(13, [1, 2]),
        // an escaped slash, and params over the 1 MB a line is read in
        '{"jsonrpc": "2.0", "id": 14, "method": "tools\\/call", "params": "x"}',
        call(15, "x".repeat(1_200_000)),
      ].join("\n") + "\n",
      13, // the lines with an id the server can read: 1–6, 8 and 10–15
    );
    const answers = calls.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1).error).toEqual({
      code: -32602,
      message:
        'vault-rag: the arguments of tool "search" must be a JSON object, got "notanobject" — send {"name": "search", "arguments": {…}}',
    });
    expect(byId.get(2).error).toEqual({
      code: -32602,
      message: 'vault-rag: tools/call needs params {"name": …, "arguments": {…}}, got null',
    });
    expect(byId.get(3).error).toEqual({
      code: -32602,
      message: `vault-rag: tools/call needs the tool's "name" as text, got null — list the tools with tools/list`,
    });
    expect(byId.get(4).result.isError).toBeFalsy();
    expect(JSON.parse(byId.get(4).result.content[0].text)).toContainEqual({ tag: "pico", notes: 3 });
    // texts over their limits are refused in one short line, as the HTTP API refuses them
    expect(byId.get(5).result).toEqual({
      content: [{ type: "text", text: "vault-rag: query is 2001 characters, over the limit of 2000 — shorten it" }],
      isError: true,
    });
    expect(byId.get(6).result.content[0].text).toBe(
      "vault-rag: path is 9000 characters, over the limit of 1000 — shorten it",
    );
    expect(byId.get(8).error).toEqual({ code: -32602, message: 'vault-rag: unknown field "__proto__"' });
    for (const [id, got] of [
      [10, '"x"'],
      [11, "5"],
      [12, "null"],
      [13, "[1,2]"],
      [14, '"x"'],
      [15, `"${"x".repeat(79)}…`],
    ] as const)
      expect(byId.get(id)?.error, String(id)).toEqual({
        code: -32602,
        message: `vault-rag: tools/call needs params {"name": …, "arguments": {…}}, got ${got}`,
      });
    expect(byId.has(null), "no answer without an id").toBe(false);
    // a last message without a line break is never read: said on stderr, not dropped in silence
    const unended = await raw('{"jsonrpc": "2.0", "id": 9, "method": "ping"}', 0);
    expect(unended).toMatchObject({
      code: 0,
      stdout: "",
      stderr:
        "vault-rag: the last message on stdin had no line break and was not read — end each JSON-RPC 2.0 message with a newline\n",
    });
    // it stops by itself: stdin is never ended
    const big = await raw(Buffer.alloc(11 * 1024 * 1024, "x"), "never");
    expect(big.code).toBe(1);
    expect(big.stdout).toBe("");
    expect(big.stderr.trim()).toBe(
      "vault-rag: a message on stdin ran over 10 MB without a line break — the MCP server stops; send one JSON-RPC 2.0 message per line",
    );
  });
});
