import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopChildren } from "../support/children.js";
import { copyVaultWithoutIndex, exampleVaultCopy } from "../e2e/helpers.js";
import { startLlmStub, type LlmStub } from "../support/llm-stub.js";
import { BIN, readSse, request, startServe, type Served } from "./helpers.js";

// a server a failed test left running (registered first, so it runs after the other afterAll hooks)
afterAll(stopChildren);

let vault = "";
let stub: LlmStub;
let s: Served;
const get = (target: string, headers: Record<string, string> = {}) => request(s.port, target, { headers });
const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8" });
const post = (body: string | Buffer, headers: Record<string, string> = { "content-type": "application/json" }) =>
  fetch(`${s.origin}/api/ask`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : new Uint8Array(body),
  });

beforeAll(async () => {
  ({ vault } = exampleVaultCopy("vr-serve-api-"));
  expect(cli("index", vault, "--quiet").status).toBe(0);
  stub = await startLlmStub();
  s = await startServe(["--vault", vault, "--llm", "ollama:slow"], { OLLAMA_HOST: stub.base });
});
afterAll(async () => {
  await s?.stop();
  await stub?.close();
});

describe("GET /api/search", () => {
  it("returns the hits of `search --json`, in the same shape, for the same query and filters", async () => {
    for (const [qs, flags] of [
      ["q=how+do+the+SMARS+motors+work", []],
      ["q=save+power&tag=pico&top_k=3", ["--tag", "pico", "-k", "3"]],
      ["q=bread&folder=kitchen&mode=keyword", ["--folder", "kitchen", "--mode", "keyword"]],
      ["q=vacation&mode=keyword", ["--mode", "keyword"]],
      [
        `q=motors&where=${encodeURIComponent('{"word_count": {"$gt": 40}}')}&per_note=1`,
        ["--where", '{"word_count": {"$gt": 40}}', "--per-note", "1"],
      ],
    ] as const) {
      const r = await get(`/api/search?${qs}`);
      expect(r.status).toBe(200);
      const query = new URLSearchParams(qs).get("q")!;
      const c = cli("search", "--vault", vault, "--json", ...flags, query);
      expect(c.status).toBe(0);
      expect(r.json.hits.length).toBeGreaterThan(0);
      expect(r.json.hits).toEqual(JSON.parse(c.stdout));
    }
  });

  it("takes expand=false as the CLI takes --no-expand: the question's own words only", async () => {
    // no note says "vacation"; WordNet's "holiday" finds one, and the answer says so
    const widened = await get("/api/search?q=vacation&mode=keyword");
    expect(widened.json.hits.length).toBeGreaterThan(0);
    expect(widened.json.expansion).toEqual({ phrases: ["holiday"], weight: 0.5, coverage: 0 });
    expect((await get("/api/search?q=sourdough+starter")).json.expansion).toBeUndefined();
    const plain = await get("/api/search?q=vacation&mode=keyword&expand=false");
    expect(plain.json).toEqual({ hits: [], reason: "no chunk matches the query", hints: [] });
    expect(cli("search", "--vault", vault, "--mode", "keyword", "--no-expand", "vacation").status).toBe(1);
    expect((await get("/api/search?q=vacation&expand=maybe")).json.error).toBe(
      'vault-rag: expand must be true or false, got "maybe"',
    );
  });

  it("takes spell=false as the CLI takes --no-spell: a misspelt word as typed; with fixes, names them", async () => {
    const fixed = await get("/api/search?q=sourdugh&mode=keyword");
    expect(fixed.json.spelling).toEqual([{ from: "sourdugh", to: "sourdough" }]);
    expect(fixed.json.notice).toBe('no passage holds the word "sourdugh" — searched for "sourdough" instead');
    expect(fixed.json.hits[0].path).toBe("kitchen/Sourdough.md");
    const typed = await get("/api/search?q=sourdugh&mode=keyword&spell=false");
    expect(typed.json).toEqual({ hits: [], reason: "no chunk matches the query", hints: [] });
    expect((await get("/api/search?q=sourdugh&spell=maybe")).json.error).toBe(
      'vault-rag: spell must be true or false, got "maybe"',
    );
  });

  it("applies a tag filter to every hit, and says why there are none", async () => {
    const r = await get("/api/search?q=motors&tag=robots&top_k=10");
    expect(r.json.hits.length).toBeGreaterThan(0);
    for (const h of r.json.hits) expect(h.tags).toContain("robots");
    const none = await get(`/api/search?q=motors&where_document=${encodeURIComponent('{"$contains": "zzqx"}')}`);
    expect(none.status).toBe(200);
    expect(none.json.hits).toEqual([]);
    expect(typeof none.json.reason).toBe("string");
    // the hints the CLI prints for the same search
    const wrongCase = await get("/api/search?q=starter&folder=Kitchen");
    expect(wrongCase.json).toEqual({
      hits: [],
      reason: "no chunk passes the filters",
      hints: ['vault-rag: no folder "Kitchen" in the index — did you mean the folder "kitchen"?'],
    });
  });

  it("refuses bad input with a 400 and a JSON error in the CLI's wording", async () => {
    const cases: [string, RegExp][] = [
      ["/api/search", /^vault-rag: the search query is empty/],
      ["/api/search?q=", /^vault-rag: q must not be empty, got ""$/],
      [
        "/api/search?q=%3F%3F%3F",
        /^vault-rag: the search query "\?\?\?" has no words in it — type what you are looking for$/,
      ],
      ["/api/search?q=x&top_k=abc", /^vault-rag: top_k must be a number, got "abc"$/],
      ["/api/search?q=x&top_k=500", /^vault-rag: top_k must be a whole number of at most 50, got 500$/],
      ["/api/search?q=x&per_note=0", /^vault-rag: per_note must be a whole number of at least 1, got 0$/],
      ["/api/search?q=x&top_k=1.5", /^vault-rag: top_k must be a whole number, got 1.5$/],
      ["/api/search?q=x&min_ratio=2", /^vault-rag: min_ratio must be between 0 and 1, got 2$/],
      ["/api/search?q=x&mode=fast", /^vault-rag: mode must be one of "dense", "keyword", "hybrid", got "fast"$/],
      ["/api/search?q=x&q=y", /^vault-rag: parameter "q" was given 2 times/],
      ["/api/search?q=x&colour=red", /^vault-rag: unknown parameter "colour" — use "q", "top_k"/],
      ["/api/tags?x=1", /^vault-rag: unknown parameter "x" — this endpoint takes none$/],
      ["/api/status?x=1", /^vault-rag: unknown parameter "x" — this endpoint takes none$/],
      ["/api/note", /^vault-rag: path is required — give it as \?path=…$/],
      ["/api/related", /^vault-rag: path is required — give it as \?path=…$/],
      ["/api/search?q=x&where=%5B%5D", /^vault-rag: where must be a JSON object, got \[\]$/],
      ["/api/search?q=x&where=%7Bnope", /^vault-rag: where must be JSON, e\.g\. \{"folder": "kitchen"\}, got \{nope$/],
      [
        "/api/search?q=x&where_document=katex",
        /^vault-rag: where_document must be JSON, e\.g\. \{"\$contains": "DRV8833"\}, got katex$/,
      ],
      ["/api/search?q=x&where=%7B%22size%22%3A1%7D", /^vault-rag: unknown metadata field "size"/],
      ["/api/search?q=x&since=yesterdayish", /^vault-rag: cannot read the time "yesterdayish"/],
      [`/api/search?q=${"a".repeat(2001)}`, /^vault-rag: q is 2001 characters, over the limit of 2000 — shorten it$/],
    ];
    for (const [target, message] of cases) {
      const r = await get(target);
      expect(r.status, target).toBe(400);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      expect(r.json.error, target).toMatch(message);
    }
  });

  it("caps the length of a request URL (414)", async () => {
    const r = await get(`/api/search?q=x&folder=${"f".repeat(9000)}`);
    expect(r.status).toBe(414);
    expect(r.json.error).toMatch(/^vault-rag: the request URL is over 8192 characters/);
  });
});

describe("GET /api/note, /api/tags, /api/folders, /api/status", () => {
  it("serves a note as MCP get_note does: found by name, without frontmatter, one section on request", async () => {
    const whole = await get("/api/note?path=sourdough");
    expect(whole.status).toBe(200);
    expect(whole.json.path).toBe("kitchen/Sourdough.md");
    const file = fs.readFileSync(path.join(vault, "kitchen/Sourdough.md"), "utf8");
    expect(file.startsWith("---\n")).toBe(true);
    expect(whole.json.text.startsWith("---")).toBe(false);
    expect(file).toContain(whole.json.text.trim());
    const section = await get("/api/note?path=kitchen/Sourdough.md&heading=Baking");
    expect(section.json.text).toMatch(/^## Baking\n/);
    expect(section.json.text.length).toBeLessThan(whole.json.text.length);
  });

  it("refuses paths outside the vault (400) and notes or headings that are not there (404)", async () => {
    const out = await get(`/api/note?path=${encodeURIComponent("../secret.md")}`);
    expect(out.status).toBe(400);
    expect(out.json.error).toMatch(/^vault-rag: refused path "..\/secret.md": it leaves the vault/);
    const abs = await get(`/api/note?path=${encodeURIComponent("/etc/passwd")}`);
    expect(abs.status).toBe(400);
    const missing = await get("/api/note?path=Nonexistent");
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatch(/^vault-rag: no note "Nonexistent" in the vault/);
    expect(missing.json.code).toBe("not_found");
    const heading = await get("/api/note?path=sourdough&heading=Nope");
    expect(heading.status).toBe(404);
    expect(heading.json.error).toBe('vault-rag: no heading "Nope" in "kitchen/Sourdough.md"');
    expect((await get("/api/note")).status).toBe(400);
  });

  it("lists tags and folders as `tags --json` and `folders --json` do", async () => {
    expect((await get("/api/tags")).json).toEqual(JSON.parse(cli("tags", vault, "--json").stdout));
    expect((await get("/api/folders")).json).toEqual(JSON.parse(cli("folders", vault, "--json").stdout));
    expect((await get("/api/tags?x=1")).status).toBe(400);
  });

  it("lists properties and one property's values as `props --json` does, and searches by them", async () => {
    expect((await get("/api/props")).json).toEqual(JSON.parse(cli("props", "--vault", vault, "--json").stdout));
    expect((await get("/api/props?name=status")).json).toEqual(
      JSON.parse(cli("props", "status", "--vault", vault, "--json").stdout),
    );
    expect((await get("/api/props?name=nosuch")).status).toBe(400);
    const hits = (await get("/api/search?q=book&prop=status%3Dread")).json.hits as { path: string }[];
    expect(new Set(hits.map((h) => h.path))).toEqual(
      new Set(["reading/The Design of Everyday Things.md", "reading/Thinking Fast and Slow.md"]),
    );
    const bad = await get(`/api/search?q=book&where=${encodeURIComponent('{"stauts": "read"}')}`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/^vault-rag: unknown metadata field "stauts" — did you mean "status"/);
  });

  it("reports status as `status --json` does, with the vault's name, the model for ask, and no indexing under way", async () => {
    const r = await get("/api/status");
    const c = JSON.parse(cli("status", vault, "--json").stdout);
    expect(r.json).toEqual({ ...c, name: "vault", llm: "ollama:slow", watching: false, indexing: null });
    expect(r.json).toMatchObject({ notes: 43, attachments: 3 });
  });

  it("answers an unknown endpoint with a JSON 404, and a write method or the wrong one with a 405", async () => {
    const r = await get("/api/notes");
    expect(r.status).toBe(404);
    expect(r.json.error).toMatch(/^vault-rag: no endpoint GET \/api\/notes — the API has GET \/api\/search/);
    const del = await request(s.port, "/api/note?path=x", { method: "DELETE" });
    expect(del.status).toBe(405);
    const post = await request(s.port, "/api/search?q=x", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
    expect(post.json).toEqual({
      error: "vault-rag: /api/search takes GET, not POST — send GET /api/search",
      code: "usage",
    });
    const getAsk = await get("/api/ask");
    expect(getAsk.status).toBe(405);
    expect(getAsk.json.error).toBe("vault-rag: /api/ask takes POST, not GET — send POST /api/ask");
  });
});

describe("GET /api/related", () => {
  it("gives the same list as the CLI, the library and the MCP tool, for the same note", async () => {
    const api = await get("/api/related?path=robots/SMARS.md&k=5");
    expect(api.status).toBe(200);
    expect(api.json.note).toBe("robots/SMARS.md");
    expect(api.json.related).toHaveLength(5);
    const c = cli("related", "robots/SMARS.md", "--vault", vault, "--json", "-k", "5");
    expect(c.status).toBe(0);
    expect(JSON.parse(c.stdout)).toEqual(api.json.related);

    const { openVault } = await import(path.resolve("dist/index.js"));
    const v = await openVault(vault);
    try {
      expect((await v.related("robots/SMARS.md", { k: 5 })).related).toEqual(api.json.related);
    } finally {
      await v.close();
    }

    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--vault", vault], stderr: "pipe" }),
    );
    try {
      const r: any = await client.callTool({ name: "related", arguments: { path: "robots/SMARS.md", k: 5 } });
      expect(JSON.parse(r.content[0].text).related).toEqual(api.json.related);
    } finally {
      await client.close();
    }
  });

  it("explains each note with a pair of passages, never lists the note itself, and leaves out linked notes on request", async () => {
    const all = (await get("/api/related?path=SMARS&k=10")).json;
    expect(all.related.map((n: any) => n.path)).not.toContain("robots/SMARS.md");
    for (const n of all.related) {
      expect(n.source.text.length).toBeGreaterThan(0);
      expect(n.target.text.length).toBeGreaterThan(0);
      expect(n.score).toBeGreaterThan(0);
    }
    const scores = all.related.map((n: any) => n.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // robots/SMARS Quad.md links [[SMARS]]: linked, so gone from the unlinked list
    expect(all.related.find((n: any) => n.path === "robots/SMARS Quad.md")?.linked).toBe(true);
    const unlinked = (await get("/api/related?path=SMARS&k=10&unlinked_only=true")).json;
    expect(unlinked.related.length).toBeGreaterThan(0);
    for (const n of unlinked.related) expect(n.linked).toBe(false);
    expect(unlinked.related.map((n: any) => n.path)).not.toContain("robots/SMARS Quad.md");
  });

  it("refuses a bad k, a bad flag and an unknown note", async () => {
    expect((await get("/api/related?path=SMARS&k=0")).json.error).toMatch(
      /^vault-rag: k must be a whole number of at least 1, got 0$/,
    );
    expect((await get("/api/related?path=SMARS&unlinked_only=maybe")).json.error).toBe(
      'vault-rag: unlinked_only must be true or false, got "maybe"',
    );
    const r = await get("/api/related?path=Nowhere");
    expect(r.status).toBe(404);
    expect(r.json.error).toMatch(/^vault-rag: no note "Nowhere" in the index/);
  });
});

describe("POST /api/ask", () => {
  it("streams the sources first, then the answer token by token, then the checked answer", async () => {
    stub.requests.length = 0;
    stub.gate.held = true;
    const res = await post(JSON.stringify({ question: "why did the SMARS motors cut out on long runs?", top_k: 4 }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // streamed: the stub sends a piece only after the one before it has arrived here
    const sentWhenSeen: number[] = [];
    const events = await readSse(res, (e) => {
      if (e.event !== "token") return;
      sentWhenSeen.push(stub.gate.sent);
      stub.gate.next();
    }).finally(() => (stub.gate.held = false));
    expect(sentWhenSeen).toEqual([1, 2, 3]);
    expect(events.map((e) => e.event)).toEqual(["sources", "token", "token", "token", "done"]);
    expect(events[0].data[0]).toMatchObject({ n: 1, path: "daily/2026-03-14.md" });
    expect(events.slice(1, 4).map((e) => e.data.text)).toEqual([
      "The DRV8833 overheated",
      " on carpet, so it was swapped",
      " for a TB6612FNG [1].",
    ]);
    expect(events[4].data).toEqual({
      answer: "The DRV8833 overheated on carpet, so it was swapped for a TB6612FNG [1].",
      cited: [1],
      invalid: [],
      model: "ollama:slow",
    });
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0].body.model).toBe("slow");
    expect(stub.requests[0].body.messages[1].content).toContain("daily/2026-03-14.md");
  });

  it("passes the search filters on to retrieval", async () => {
    const events = await readSse(await post(JSON.stringify({ question: "what to bake", folder: "kitchen" })));
    expect(events[0].event).toBe("sources");
    expect(events[0].data.length).toBeGreaterThan(0);
    for (const src of events[0].data) expect(src.path.startsWith("kitchen/")).toBe(true);
  });

  it("says why nothing was found and what may fix it, as a search does, without asking the model", async () => {
    stub.requests.length = 0;
    const events = await readSse(await post(JSON.stringify({ question: "what to bake", tags: ["bakingg"] })));
    expect(events.map((e) => e.event)).toEqual(["sources", "done"]);
    expect(events[0].data).toEqual([]);
    expect(events[1].data).toEqual({
      answer: "The notes contain nothing that matches this question.",
      cited: [],
      invalid: [],
      model: "ollama:slow",
      reason: "no chunk passes the filters",
      hints: ['vault-rag: no note has the tag "bakingg" — closest tags: "baking"'],
    });
    expect(stub.requests).toHaveLength(0);
  });

  it("takes a filter on a property the index holds, and refuses one on a name it does not, before streaming", async () => {
    stub.requests.length = 0;
    const events = await readSse(await post(JSON.stringify({ question: "what to read", where: { status: "unread" } })));
    expect(events.map((e) => e.event)).toEqual(["sources", "done"]);
    expect(events[1].data.reason).toBe("no chunk passes the filters");
    expect(stub.requests).toHaveLength(0);
    const r = await post(JSON.stringify({ question: "what to read", where: { stauts: "read" } }));
    expect(r.status).toBe(400);
    expect((await r.json()).error).toMatch(/^vault-rag: unknown metadata field "stauts" — did you mean "status"/);
  });

  it("refuses a body that is not JSON, not an object of known fields, too big, or not sent as JSON", async () => {
    const bad = async (body: string | Buffer, status: number, message: RegExp, headers?: Record<string, string>) => {
      const r = await post(body, headers);
      expect(r.status).toBe(status);
      expect((await r.json()).error).toMatch(message);
    };
    await bad("{nope", 400, /^vault-rag: the request body is not JSON/);
    await bad(
      "[1,2]",
      400,
      /^vault-rag: the request body must be a JSON object, got \[1,2\] — send a body like \{"question": "…"\}$/,
    );
    await bad("null", 400, /^vault-rag: the request body must be a JSON object, got null — /);
    await bad(
      JSON.stringify({ question: "x", budget: 1e308 }),
      400,
      /^vault-rag: budget must be a whole number of at most 100000, got 1e\+308$/,
    );
    await bad(
      '{"question": "x", "__proto__": {"a": 1}}',
      400,
      /^vault-rag: unknown field "__proto__" — use top_k, per_note, .*, question, budget$/,
    );
    // a filter of one "__proto__" key is refused as the unknown field it is, not run as no filter
    await bad(
      '{"question": "x", "where": {"__proto__": {"folder": "kitchen"}}}',
      400,
      /^vault-rag: unknown metadata field "__proto__" — known fields: path, /,
    );
    await bad(
      '{"question": "x", "where_document": {"__proto__": "motors"}}',
      400,
      /^vault-rag: unknown whereDocument operator "__proto__" — use one of /,
    );
    await bad(
      JSON.stringify({ question: "x", llm: "openai:gpt-4o" }),
      400,
      /^vault-rag: unknown field "llm" — use top_k, .*, question, budget$/,
    );
    await bad(JSON.stringify({ question: "" }), 400, /^vault-rag: question must not be empty, got ""$/);
    await bad("{}", 400, /^vault-rag: question is required — add "question" to the JSON body$/);
    await bad(JSON.stringify({ question: 5 }), 400, /^vault-rag: question must be text, got 5$/);
    await bad(JSON.stringify({ question: "x", tags: "robots" }), 400, /^vault-rag: tags must be a list, got "robots"$/);
    await bad(
      JSON.stringify({ question: "x".repeat(2001) }),
      400,
      /^vault-rag: question is 2001 characters, over the limit of 2000 — shorten it$/,
    );
    await bad(
      JSON.stringify({ question: "x", pad: "y".repeat(70_000) }),
      413,
      /^vault-rag: the request body is over 65536 bytes/,
    );
    await bad("question=x", 415, /^vault-rag: POST \/api\/ask takes JSON/, {
      "content-type": "application/x-www-form-urlencoded",
    });
    // a compressed body is refused by its encoding, not read as bytes that are no JSON
    await bad(
      JSON.stringify({ question: "x" }),
      415,
      /^vault-rag: the request body is encoded as "gzip" \(Content-Encoding\), which this server does not read — send the JSON uncompressed$/,
      { "content-type": "application/json", "content-encoding": "gzip" },
    );
    // a bad filter, date or question is a JSON 400 before any answer streams, as /api/search gives it
    await bad(JSON.stringify({ question: "x", where: { nope: 1 } }), 400, /^vault-rag: unknown metadata field "nope"/);
    await bad(JSON.stringify({ question: "x", where_document: { $regex: "(?=a)" } }), 400, /uses look-around/);
    await bad(JSON.stringify({ question: "x", since: "yesterday" }), 400, /^vault-rag: .*"yesterday"/);
    await bad(JSON.stringify({ question: "???" }), 400, /^vault-rag: the search query "\?\?\?" has no words in it/);
  });

  it("reports a chat model it cannot reach, or one that takes the connection and never answers, as an error event after the sources", async () => {
    const closed = await new Promise<number>((r) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => r(port));
      });
    });
    // takes the connection, never says a word
    const mute = net.createServer(() => {});
    await new Promise<void>((r) => mute.listen(0, "127.0.0.1", () => r()));
    const mutePort = (mute.address() as net.AddressInfo).port;
    try {
      for (const port of [closed, mutePort]) {
        const other = await startServe(["--vault", vault], { OLLAMA_HOST: `127.0.0.1:${port}` });
        try {
          const res = await fetch(`${other.origin}/api/ask`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ question: "why did the motors cut out" }),
          });
          const events = await readSse(res); // ends: the check before the chat gives up within seconds
          expect(events.map((e) => e.event)).toEqual(["sources", "error"]);
          expect(events[1].data).toEqual({
            error:
              port === closed
                ? `vault-rag: Ollama is not reachable at http://127.0.0.1:${port} — start it with \`ollama serve\` or choose another model with --llm`
                : `vault-rag: the server at http://127.0.0.1:${port} took the connection but did not answer within 5 s — check that it is Ollama and that it is not stuck, or choose another model with --llm`,
            code: "llm_failed",
          });
          // each failed ask gives its slot back: four more fail the same way, not with a 429
          if (port === closed)
            for (let i = 0; i < 4; i++) {
              const again = await fetch(`${other.origin}/api/ask`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ question: `and again ${i}` }),
              });
              expect(again.status).toBe(200);
              expect((await readSse(again)).map((e) => e.event)).toEqual(["sources", "error"]);
            }
        } finally {
          await other.stop();
        }
      }
    } finally {
      mute.close();
    }
  });
});

describe("safe by default", () => {
  it("binds to 127.0.0.1, prints no token, and refuses a Host header that is not its own (DNS rebinding)", async () => {
    expect(s.stdout()).toMatch(/^vault-rag: serving .* at http:\/\/127\.0\.0\.1:\d+\/\n/);
    expect(s.token).toBeUndefined();
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`])
      expect((await get("/api/status", { host })).status).toBe(200);
    for (const host of [
      `evil.example:${s.port}`,
      "127.0.0.1",
      `127.0.0.1:${s.port + 1}`,
      `localhost.evil.example:${s.port}`,
    ]) {
      const r = await get("/api/status", { host });
      expect(r.status, host).toBe(403);
      expect(r.json.error).toMatch(
        /^vault-rag: refused a request for host ".*" — this server answers only 127\.0\.0\.1:/,
      );
    }
    expect((await get("/", { host: `rebind.example:${s.port}` })).status).toBe(403);
  });

  it("refuses the API to a page of another origin, sends no CORS headers unless started with --cors, and then allows that one", async () => {
    const evil = await get("/api/status", { origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.json).toEqual({
      error:
        'vault-rag: refused a request from the page at "https://evil.example" — this API answers only its own page; to call it from another page\'s origin, start serve with --cors <origin>',
      code: "forbidden",
    });
    expect(evil.headers["access-control-allow-origin"]).toBeUndefined();
    // an <img> or a no-cors fetch sends no Origin, but the browser says it is another site's
    const img = await get("/api/search?q=motors", { "sec-fetch-site": "cross-site" });
    expect(img.status).toBe(403);
    expect(img.json.error).toMatch(/^vault-rag: refused a request from another site \(Sec-Fetch-Site: cross-site\)/);
    expect((await get("/api/search?q=motors", { origin: "null" })).status).toBe(403);
    // its own page, and a request that says nothing of where it comes from (curl), are answered
    expect(
      (await get("/api/status", { origin: `http://127.0.0.1:${s.port}`, "sec-fetch-site": "same-origin" })).status,
    ).toBe(200);
    expect((await get("/api/status")).status).toBe(200);
    // the page itself may be opened from a link anywhere: it holds no notes
    expect((await get("/", { "sec-fetch-site": "cross-site" })).status).toBe(200);
    const pre = await request(s.port, "/api/ask", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(pre.headers["access-control-allow-origin"]).toBeUndefined();
    const open = await startServe(["--vault", vault, "--cors", "http://localhost:5173"]);
    try {
      const r2 = await request(open.port, "/api/status", { headers: { origin: "http://localhost:5173" } });
      expect(r2.status).toBe(200);
      expect(r2.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
      const r3 = await request(open.port, "/api/status", { headers: { origin: "http://localhost:5174" } });
      expect(r3.status).toBe(403);
    } finally {
      await open.stop();
    }
  });

  it("requires the printed token on every API request when bound beyond loopback, and opens the page at the printed URL", async () => {
    const wide = await startServe(["--vault", vault, "--host", "0.0.0.0"]);
    try {
      expect(wide.token).toMatch(/^[0-9a-f]{64}$/);
      // 0.0.0.0 is no address to open: the printed URL is loopback here, other machines get the machine's own
      expect(wide.stdout()).toContain(`at http://127.0.0.1:${wide.port}/?token=${wide.token}\n`);
      const addresses = Object.values(os.networkInterfaces())
        .flat()
        .filter((a) => a && !a.internal && a.family === "IPv4")
        .map((a) => `http://${a!.address}:${wide.port}/?token=${wide.token}`);
      expect(wide.stdout()).toContain(
        `vault-rag: listening on every interface (0.0.0.0), beyond this machine: every request needs the token — open the URL above${addresses.length ? `; from another machine: ${addresses.slice(0, 3).join(" or ")}` : ""}, or send \`Authorization: Bearer ${wide.token}\`\n`,
      );
      const at = (target: string, headers: Record<string, string> = {}) => request(wide.port, target, { headers });
      const none = await at("/api/status");
      expect(none.status).toBe(401);
      expect(none.json.error).toMatch(/^vault-rag: this server needs its token/);
      expect((await at("/api/status", { authorization: "Bearer nottheone" })).status).toBe(401);
      expect((await at("/api/status", { authorization: `Bearer ${wide.token}` })).status).toBe(200);
      // the page (which holds no notes) opens without it, and at the printed URL sends it to the
      // API as a bearer header: no cookie carries it, for a cookie reaches every port of the host
      const open = await at(`/?token=${wide.token}`);
      expect(open.status).toBe(200);
      expect(open.text).toMatch(/^<!doctype html>/);
      expect(open.headers["set-cookie"]).toBeUndefined();
      expect((await at("/")).text).toMatch(/^<!doctype html>/);
      for (const asset of ["/app.js", "/style.css"]) expect((await at(asset)).status, asset).toBe(200);
      // the cookie earlier versions set counts for nothing, and is cleared
      const old = await at("/api/tags", { cookie: `vault_rag_token=${wide.token}` });
      expect(old.status).toBe(401);
      expect(String(old.headers["set-cookie"])).toMatch(/^vault_rag_token=; Path=\/; Max-Age=0/);
      expect((await at(`/?token=${"0".repeat(64)}`)).status).toBe(401);
    } finally {
      await wide.stop();
    }
  });

  it("never crashes on hostile input: it answers each with an error and keeps serving", async () => {
    const targets = [
      "/api/search?q=%E0%A4%A",
      "/api/search?q=%00%00&top_k=1e309",
      "/api/search?q=x&top_k=-1",
      "/api/search?q=x&min_ratio=NaN",
      `/api/search?q=x&where=${encodeURIComponent("[]")}`,
      `/api/search?q=x&where=${encodeURIComponent('{"$and": []}')}`,
      // deep, yet under the 8 KB URL cap, so that it reaches the JSON parser and the schema
      `/api/search?q=x&where=${encodeURIComponent("[".repeat(1300) + "]".repeat(1300))}`,
      `/api/search?q=x&where_document=${encodeURIComponent('{"$regex": "(a+)+$"}')}`,
      "/api/search?q=x&tag=",
      "/api/search?__proto__=1&constructor=2",
      "/api/note?path=%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "/api/note?path=.trash",
      "/api/related?path=&k=99999999999999999999",
      "/api/../../etc/passwd",
    ];
    for (const t of targets) {
      const r = await get(t);
      expect(r.status, t).not.toBe(414);
      expect(r.status, t).toBeGreaterThanOrEqual(200);
      expect(r.status, t).toBeLessThan(500);
      if (r.status >= 400) expect(r.json.error, t).toMatch(/^vault-rag: /);
    }
    // a request that is not HTTP at all
    await new Promise<void>((resolve) => {
      const sock = net.connect(s.port, "127.0.0.1", () => sock.end("\x00\x01GARBAGE / HTTP/9.9\r\n\r\n"));
      sock.on("close", () => resolve());
      sock.on("error", () => resolve());
      sock.resume();
    });
    expect((await get("/api/status")).status).toBe(200);
    expect(s.proc.exitCode).toBeNull();
  });
});

describe("the web app and the index's states", () => {
  it("serves the page, its script and stylesheet from the package, with a strict content security policy", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/^<!doctype html>/);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'none'; script-src 'self'/);
    const js = await get("/app.js");
    expect(js.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(js.text).toContain("/api/search");
    expect((await get("/style.css")).text).toContain("prefers-color-scheme: dark");
  });

  it("says when there is no index, and builds one with --watch, reporting progress", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vr-serve-watch-"));
    const fresh = path.join(tmp, "vault");
    copyVaultWithoutIndex(path.resolve("examples/vault"), fresh);
    const plain = await startServe(["--vault", fresh]);
    try {
      const st = (await request(plain.port, "/api/status")).json;
      expect(st).toMatchObject({ notes: 0, model: null, indexing: null, watching: false });
      const q = await request(plain.port, "/api/search?q=motors");
      expect(q.status).toBe(503);
      expect(q.json.code).toBe("no_index");
      expect(q.json.error).toMatch(/^vault-rag: no index at .* — run `vault-rag index/);
    } finally {
      await plain.stop();
    }
    const watching = await startServe(["--vault", fresh, "--watch"]);
    try {
      const phases = new Set<string>();
      let st: any;
      // until the first index is built, however long that takes (the test's timeout bounds it)
      for (;;) {
        st = (await request(watching.port, "/api/status")).json;
        if (st.indexing) phases.add(st.indexing.phase);
        if (st.notes === 43 && !st.indexing) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(st).toMatchObject({ notes: 43, attachments: 3 });
      expect(st.watching).toBe(true);
      expect(phases.size).toBeGreaterThan(0);
      expect((await request(watching.port, "/api/search?q=sourdough+starter")).json.hits[0].path).toBe(
        "kitchen/Sourdough.md",
      );
    } finally {
      await watching.stop();
    }
  });
});
