import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addSearchFlags, searchRequest } from "../../src/cli/flags.js";
import { flagName, SEARCH_PARAMS, searchInput, searchRequestOf, validate, wireName } from "../../src/requests/index.js";
import type { SearchParam } from "../../src/requests/index.js";
import { readParams, SEARCH_QUERY, SEARCH_QUERY_NAMES } from "../../src/serve/params.js";

/** A value of each kind, as the library takes it, and as a CLI flag and a query string carry it. */
function sample(p: SearchParam): { value: unknown; argv: string[]; query: [string, string][] } {
  const flag = `--${flagName(p)}`;
  const q = p.query ?? wireName(p);
  switch (p.kind) {
    case "count":
      return { value: 3, argv: [flag, "3"], query: [[q, "3"]] };
    case "ratio":
      return { value: 0.5, argv: [flag, "0.5"], query: [[q, "0.5"]] };
    case "choice":
      return { value: p.choices![0], argv: [flag, p.choices![0]], query: [[q, p.choices![0]]] };
    case "text":
      return { value: "kitchen", argv: [flag, "kitchen"], query: [[q, "kitchen"]] };
    case "list":
      return {
        value: ["a", "b"],
        argv: [flag, "a", flag, "b"],
        query: [
          [q, "a"],
          [q, "b"],
        ],
      };
    case "json": {
      const value = p.key === "whereDocument" ? { $contains: "x" } : { folder: "kitchen" };
      return { value, argv: [flag, JSON.stringify(value)], query: [[q, JSON.stringify(value)]] };
    }
    case "switch":
      return { value: false, argv: [`--no-${flagName(p)}`], query: [[q, "false"]] };
    case "switch-or-text": {
      const value = "transformers:vault-rag/tiny-rerank";
      return { value, argv: [flag, value], query: [[q, value]] };
    }
  }
}

/** The request the CLI's search flags give for some arguments. */
function viaCli(argv: string[]) {
  const cmd = addSearchFlags(
    new Command("search")
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .argument("[q...]"),
  );
  cmd.parse(["x", ...argv], { from: "user" });
  return searchRequest(cmd.opts());
}

/** The request `GET /api/search` reads from a query string. */
function viaHttp(query: [string, string][]) {
  const raw = readParams(new URLSearchParams([["q", "x"], ...query]), SEARCH_QUERY);
  const { query: _q, ...rest } = validate(searchInput, raw, SEARCH_QUERY_NAMES);
  return searchRequestOf(rest);
}

/** The request the MCP `search` tool reads from its arguments. */
function viaMcp(args: Record<string, unknown>) {
  return searchRequestOf(validate(searchInput, { query: "x", ...args }, {}, "arguments"));
}

describe("search parameters are declared once and read alike by every interface", () => {
  it.each(SEARCH_PARAMS.map((p) => [p.key, p] as const))(
    "%s: the CLI, MCP and HTTP give the same request",
    (key, p) => {
      const s = sample(p);
      const want = { [key]: s.value };
      const cli = viaCli(s.argv);
      // the CLI fills in its defaults; the parameter given is what it was given
      expect(cli[key]).toEqual(s.value);
      expect(viaHttp(s.query)).toEqual(want);
      expect(viaMcp({ [wireName(p)]: s.value })).toEqual(want);
    },
  );

  it("each interface's limit on counts is the table's: the CLI takes 10,000, MCP and HTTP 50", () => {
    expect(viaCli(["--top-k", "10000"]).topK).toBe(10_000);
    expect(() => viaCli(["--top-k", "10001"])).toThrow(/--top-k must be a whole number from 1 to 10000/);
    expect(() => viaMcp({ top_k: 51 })).toThrow(/top_k must be a whole number of at most 50, got 51/);
    expect(() => viaHttp([["top_k", "51"]])).toThrow(/top_k must be a whole number of at most 50, got 51/);
  });

  it("a parameter no interface knows is refused by MCP and HTTP alike", () => {
    expect(() => viaMcp({ topK: 3 })).toThrow(/unknown field "topK"/);
    expect(() => viaHttp([["topK", "3"]])).toThrow(/unknown parameter "topK"/);
  });
});

describe("--rerank is read alike by the CLI, MCP and HTTP, with a model, alone, and turned off", () => {
  it("alone it is on (the configured or default reranker), turned off it is false, with a URL it is that URL", () => {
    expect(viaCli(["--rerank"]).rerank).toBe(true);
    expect(viaHttp([["rerank", ""]])).toEqual({ rerank: true });
    expect(viaHttp([["rerank", "true"]])).toEqual({ rerank: true });
    expect(viaMcp({ rerank: true })).toEqual({ rerank: true });
    expect(viaCli(["--no-rerank"]).rerank).toBe(false);
    expect(viaHttp([["rerank", "false"]])).toEqual({ rerank: false });
    expect(viaMcp({ rerank: false })).toEqual({ rerank: false });
    const url = "http://127.0.0.1:8012#bge-reranker-v2-m3";
    expect(viaCli(["--rerank", url]).rerank).toBe(url);
    expect(viaHttp([["rerank", url]])).toEqual({ rerank: url });
    expect(viaMcp({ rerank: url })).toEqual({ rerank: url });
  });

  it("left out, no interface sets it: a search reranks only when chosen", () => {
    expect(viaCli([]).rerank).toBeUndefined();
    expect(viaHttp([])).toEqual({});
    expect(viaMcp({})).toEqual({});
  });

  it("MCP refuses a value that is neither true, false nor a name, and an empty name", () => {
    expect(() => viaMcp({ rerank: 3 })).toThrow("vault-rag: rerank must be true, false or a name, got 3");
    expect(() => viaMcp({ rerank: "" })).toThrow('vault-rag: rerank must not be empty, got ""');
  });
});

describe("--prop and --by are read alike by the CLI, MCP and HTTP", () => {
  it("several --prop pairs and --by mtime give one request everywhere", () => {
    const want = { props: ["status=draft", "Due Date=2026-03-14"], by: "mtime" };
    const cli = viaCli(["--prop", "status=draft", "--prop", "Due Date=2026-03-14", "--by", "mtime"]);
    expect({ props: cli.props, by: cli.by }).toEqual(want);
    expect(
      viaHttp([
        ["prop", "status=draft"],
        ["prop", "Due Date=2026-03-14"],
        ["by", "mtime"],
      ]),
    ).toEqual(want);
    expect(viaMcp({ props: want.props, by: "mtime" })).toEqual(want);
  });

  it("a --by other than date or mtime is refused by each", () => {
    expect(() => viaCli(["--by", "ctime"])).toThrow();
    expect(() => viaMcp({ by: "ctime" })).toThrow(/by/);
    expect(() => viaHttp([["by", "ctime"]])).toThrow(/by/);
  });
});
