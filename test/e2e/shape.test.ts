import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, exampleVaultCopy } from "./helpers.js";
import { flagName, SEARCH_PARAMS, wireName } from "../../src/requests/index.js";

let vault = "";
let client: Client;
const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });

beforeAll(async () => {
  ({ vault } = exampleVaultCopy("vr-shape-"));
  expect(cli(["index", vault, "--quiet"]).status).toBe(0);
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--vault", vault], stderr: "pipe" }),
  );
});
afterAll(async () => client?.close());

/** The JSON example of a hit in docs/library.md, under "The hit". */
function readmeHit(): Record<string, unknown> {
  const readme = fs.readFileSync("docs/library.md", "utf8");
  const at = readme.indexOf("## The hit");
  expect(at, 'docs/library.md section "The hit"').toBeGreaterThan(0);
  const start = readme.indexOf("```json\n", at) + 8;
  return JSON.parse(readme.slice(start, readme.indexOf("```", start)));
}

describe("one shape of hit", () => {
  it("is the same, field for field, from the CLI's --json, the library's search() hits and MCP, and as docs/library.md shows it", async () => {
    const query = "how do the SMARS motors work";
    const fromCli = JSON.parse(
      cli([
        "search",
        "--vault",
        vault,
        "--json",
        "-k",
        "4",
        "--tag",
        "robots",
        "--since",
        "365d",
        "--min-ratio",
        "0.1",
        query,
      ]).stdout,
    );
    const { openVault } = await import(path.resolve("dist/index.js"));
    const { hitJson } = await import(path.resolve("dist/advanced.js"));
    const notes = await openVault(vault);
    const { hits: fromLibrary } = await notes.search(query, {
      topK: 4,
      tags: ["robots"],
      since: "365d",
      minRatio: 0.1,
    });
    await notes.close();
    const res = (await client.callTool({
      name: "search",
      arguments: { query, top_k: 4, tags: ["robots"], since: "365d", min_ratio: 0.1 },
    })) as { content: { text: string }[] };
    const fromMcp = JSON.parse(res.content[0].text);
    expect(fromCli.length).toBeGreaterThan(1);
    // the library's hits themselves: their keys, their JSON and their values are the CLI's
    expect(fromLibrary.map((h: object) => Object.keys(h))).toEqual(fromCli.map((h: object) => Object.keys(h)));
    expect(JSON.parse(JSON.stringify(fromLibrary))).toEqual(fromCli);
    expect(fromLibrary).toEqual(fromCli);
    expect(fromMcp).toEqual(fromCli);
    // the nested shape still works for code written against it, and hitJson gives the same object
    expect(fromLibrary.map((h: any) => h.meta.start_line)).toEqual(fromCli.map((h: any) => h.start_line));
    expect(fromLibrary.map(hitJson)).toEqual(fromCli);
    const keys = Object.keys(readmeHit());
    // every hit has the README's keys; one the keyword query matched by backlink text also says so
    for (const h of fromCli) expect(Object.keys(h)).toEqual(h.backlinked ? [...keys, "backlinked"] : keys);
    for (const h of fromCli) expect(h.backlinked === undefined || h.backlinked === true).toBe(true);
    for (const [k, v] of Object.entries(readmeHit())) expect(typeof fromCli[0][k], k).toBe(typeof v);
  });

  it("MCP's search takes every search flag of the CLI", async () => {
    const help = cli(["search", "--help"]).stdout;
    const flags = [...help.matchAll(/^\s+(?:-\w, )?--([a-z-]+)/gm)].map((m) => m[1]);
    expect(flags).toContain("top-folder");
    // flags that choose the index, the process that answers, or shape the terminal output: the MCP
    // server is started on one vault and index and always answers JSON
    const notSearch = new Set([
      "vault",
      "db",
      "model",
      "offline",
      "model-dir",
      "json",
      "color",
      "verbose",
      "help",
      "no-daemon",
    ]);
    const { tools } = await client.listTools();
    const props = Object.keys(
      (tools.find((t) => t.name === "search")!.inputSchema as { properties: object }).properties,
    );
    const missing = flags
      .filter((f) => !notSearch.has(f))
      // a negated flag (--no-expand) is its positive argument (expand: false); a flag named apart
      // from its argument (--tag, --prop) is the table's wire name
      .map((f) => f.replace(/^no-/, ""))
      .map((f) => {
        const p = SEARCH_PARAMS.find((x) => flagName(x) === f);
        return p ? wireName(p) : f.replace(/-/g, "_");
      })
      .filter((p) => !props.includes(p));
    expect(missing).toEqual([]);
  });

  it("MCP's new arguments filter as the CLI's flags do", async () => {
    const call = async (args: Record<string, unknown>) =>
      JSON.parse(
        (
          (await client.callTool({ name: "search", arguments: { query: "motor", ...args } })) as {
            content: { text: string }[];
          }
        ).content[0].text,
      );
    const top = await call({ top_folder: "robots" });
    expect(top.length).toBeGreaterThan(0);
    for (const h of top) expect(h.top_folder).toBe("robots");
    expect(await call({ until: "2000-01-01" })).toEqual({
      hits: [],
      reason: "no chunk passes the filters",
      hints: [
        expect.stringMatching(
          /^vault-rag: until "2000-01-01" leaves out every note: the oldest note is dated \d{4}-\d\d-\d\d$/,
        ),
      ],
    });
    // expand: false is --no-expand: no note says "vacation", one says "holiday"
    const widened = await call({ query: "vacation", mode: "keyword" });
    expect(widened.length).toBeGreaterThan(0);
    expect(widened).toEqual(
      JSON.parse(cli(["search", "--vault", vault, "--json", "--mode", "keyword", "vacation"]).stdout),
    );
    expect(await call({ query: "vacation", mode: "keyword", expand: false })).toEqual({
      hits: [],
      reason: "no chunk matches the query",
      hints: [],
    });
  });

  it("with no hits, the CLI, the library and MCP give the same reason, and hints each in its own terms", async () => {
    const cases: { flags: string[]; lib: object; mcp: object; hints: string[]; requestHints: string[] }[] = [
      {
        flags: ["--folder", "Robots"],
        lib: { folder: "Robots" },
        mcp: { folder: "Robots" },
        hints: ['vault-rag: no folder "Robots" in the index — did you mean --folder "robots"?'],
        // a request names the filter, not the CLI's flag
        requestHints: ['vault-rag: no folder "Robots" in the index — did you mean the folder "robots"?'],
      },
      {
        flags: ["--tag", "picoo"],
        lib: { tags: ["picoo"] },
        mcp: { tags: ["picoo"] },
        hints: ['vault-rag: no note has the tag "picoo" — closest tags: "pico"; list them with `vault-rag tags`'],
        requestHints: ['vault-rag: no note has the tag "picoo" — closest tags: "pico"'],
      },
    ];
    const { openVault } = await import(path.resolve("dist/index.js"));
    const notes = await openVault(vault);
    try {
      for (const c of cases) {
        const r = cli(["search", "--vault", vault, ...c.flags, "motor"]);
        expect(r.status).toBe(1);
        const [noResults, ...cliHints] = r.stderr.trim().split("\n");
        expect(cliHints).toEqual(c.hints);
        const reason = noResults.replace(/^no results: /, "");
        expect(reason).not.toBe(noResults);
        const lib = await notes.search("motor", c.lib);
        expect({ hits: lib.hits, reason: lib.reason, hints: lib.hints }).toEqual({
          hits: [],
          reason,
          hints: c.requestHints,
        });
        const res = (await client.callTool({ name: "search", arguments: { query: "motor", ...c.mcp } })) as {
          content: { text: string }[];
          isError?: boolean;
        };
        expect(res.isError).toBeFalsy();
        expect(JSON.parse(res.content[0].text)).toEqual({ hits: [], reason, hints: c.requestHints });
      }
    } finally {
      await notes.close();
    }
  });
});
