import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openVault, type VaultHandle } from "../../src/library.js";
import { stopChildren } from "../support/children.js";
import { request, startServe, type Served } from "../serve/helpers.js";
import { BIN } from "./helpers.js";

const FIXTURES = path.resolve("test/fixtures/attachments");
const env = { ...process.env, VAULT_RAG_VAULT: "", VAULT_RAG_DB: "" };
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: "utf8" });
const textOf = (r: any) => r.content[0].text as string;

let vault = "";
let lib: VaultHandle;
let mcp: Client;
let served: Served;

// a server a failed test left running (registered first, so it runs after the other afterAll hooks)
afterAll(stopChildren);

beforeAll(async () => {
  vault = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "vr-att-faces-")), "vault");
  for (const d of ["papers", "notes", "boards"]) fs.mkdirSync(path.join(vault, d), { recursive: true });
  for (const f of ["manual-3p.pdf", "encrypted.pdf", "compost.docx"])
    fs.copyFileSync(path.join(FIXTURES, f), path.join(vault, "papers", f));
  const board = JSON.parse(fs.readFileSync(path.join(FIXTURES, "garden-plan.canvas"), "utf8"));
  for (const n of board.nodes)
    if (n.type === "file") n.file = n.file === "manual.pdf" ? "papers/manual-3p.pdf" : "notes/Tomatoes.md";
  fs.writeFileSync(path.join(vault, "boards", "garden-plan.canvas"), JSON.stringify(board));
  fs.writeFileSync(
    path.join(vault, "notes", "Reading.md"),
    "# Reading\n\nThe greenhouse controller waters the soil on its own; its manual:\n\n![[manual-3p.pdf]]\n",
  );
  fs.writeFileSync(
    path.join(vault, "notes", "Tomatoes.md"),
    "# Tomatoes\n\nSow the seedlings indoors in March, and water them when the soil is dry.\n",
  );
  const r = cli(["index", vault]);
  expect(r.status, r.stderr).toBe(0);
  lib = await openVault(vault);
  mcp = new Client({ name: "test", version: "1.0.0" });
  await mcp.connect(
    new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", "--vault", vault], stderr: "pipe" }),
  );
  served = await startServe(["--vault", vault]);
}, 180_000);
afterAll(async () => {
  await mcp?.close();
  await served?.stop();
  await lib?.close();
});

describe("attachments on every face", () => {
  it("chunks lists each attachment's passages with its type and page, and says why one gives none", () => {
    const all = JSON.parse(cli(["chunks", "--vault", vault, "--json"]).stdout) as {
      path: string;
      file_type: string;
      page: number;
      section: string;
    }[];
    const pdf = all.filter((c) => c.path === "papers/manual-3p.pdf");
    expect(pdf.map((c) => c.page)).toEqual([1, 2, 3]);
    for (const c of pdf) expect(c).toMatchObject({ file_type: "pdf", section: expect.stringMatching(/> p\. \d$/) });
    expect(all.filter((c) => c.path === "papers/compost.docx").every((c) => c.file_type === "docx")).toBe(true);
    expect(all.filter((c) => c.path === "boards/garden-plan.canvas").map((c) => c.file_type)).toContain("canvas");
    // a note's passages name no type, as its hits do
    expect(all.filter((c) => c.path === "notes/Reading.md").map((c) => c.file_type)).toEqual([undefined]);
    // one by its file name, as a wikilink finds it: its place is its page
    const one = cli(["chunks", "--vault", vault, "--note", "manual-3p.pdf"]);
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout).toMatch(
      /^── Greenhouse Controller Manual > Installation > p\. 1 {2}\(papers\/manual-3p\.pdf:p1, pdf, \d+ words\)\n/,
    );
    expect(one.stdout).toContain("(papers/manual-3p.pdf:p2, pdf, ");
    const locked = cli(["chunks", "--vault", vault, "--note", "papers/encrypted.pdf"]);
    expect(locked.stdout).toBe("");
    expect(locked.stderr).toMatch(/^no chunks: "papers\/encrypted\.pdf" cannot be read: encrypted — /);
  });

  it("serves an attachment's passages with their pages from the library, MCP and HTTP alike", async () => {
    const whole = await lib.note("papers/manual-3p.pdf");
    expect(whole).toMatchObject({ path: "papers/manual-3p.pdf", file_type: "pdf" });
    expect(whole.passages!.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(whole.text).toMatch(/^## p\. 1\n\nGreenhouse Controller Manual > Installation > p\. 1\nInstallation\n/);
    expect(whole.text).toContain("\n\n## p. 3\n\n");
    // one page, by its number
    const page2 = await lib.note("manual-3p.pdf", { heading: "p. 2" });
    expect(page2.passages!.map((p) => p.page)).toEqual([2]);
    expect(page2.text).toContain("Each watering cycle lasts at most eight minutes");
    await expect(lib.note("manual-3p.pdf", { heading: "p. 9" })).rejects.toMatchObject({ code: "not_found" });
    // MCP: the same text; a name says which file it read
    expect(textOf(await mcp.callTool({ name: "get_note", arguments: { path: "papers/manual-3p.pdf" } }))).toBe(
      whole.text,
    );
    const byName = await mcp.callTool({ name: "get_note", arguments: { path: "manual-3p.pdf", heading: "p. 2" } });
    expect(textOf(byName)).toBe(page2.text);
    expect(JSON.stringify(byName.content)).toContain('read \\"papers/manual-3p.pdf\\"');
    // HTTP: the same object as the library's
    const http = await request(served.port, `/api/note?${new URLSearchParams({ path: "papers/manual-3p.pdf" })}`);
    expect(http.status).toBe(200);
    expect(http.json).toEqual(JSON.parse(JSON.stringify(whole)));
    // a Word document and a board: their passages, with their types
    expect((await lib.note("papers/compost.docx")).passages!.length).toBeGreaterThan(1);
    expect(await lib.note("boards/garden-plan.canvas")).toMatchObject({ file_type: "canvas" });
    // one that could not be read: not found, saying so
    await expect(lib.note("papers/encrypted.pdf")).rejects.toThrow(/holds no passage the index could read/);
  });

  it("relates notes to a PDF and a PDF to notes, on the CLI, the library, MCP and HTTP alike", async () => {
    type Related = { path: string; linked: boolean; source: any; target: any };
    const fromCli = JSON.parse(
      cli(["related", "papers/manual-3p.pdf", "--vault", vault, "--json"]).stdout,
    ) as Related[];
    const fromLib = (await lib.related("papers/manual-3p.pdf")).related;
    const fromMcp = JSON.parse(
      textOf(await mcp.callTool({ name: "related", arguments: { path: "papers/manual-3p.pdf" } })),
    ).related as Related[];
    const fromHttp = (
      await request(served.port, `/api/related?${new URLSearchParams({ path: "papers/manual-3p.pdf" })}`)
    ).json.related as Related[];
    const paths = (l: Related[]) => l.map((n) => n.path);
    expect(paths(fromCli).length).toBeGreaterThan(0);
    for (const l of [fromLib, fromMcp, fromHttp]) expect(paths(l)).toEqual(paths(fromCli));
    // the note that embeds the PDF is linked to it; the PDF's passage names its page and type
    expect(fromCli.find((n) => n.path === "notes/Reading.md")).toMatchObject({
      linked: true,
      source: { file_type: "pdf", page: expect.any(Number) },
    });
    // and to it: the PDF among a note's related notes, with its page
    const toPdf = (await lib.related("notes/Reading.md")).related.find((n) => n.path === "papers/manual-3p.pdf");
    expect(toPdf).toMatchObject({ linked: true, target: { file_type: "pdf", page: expect.any(Number) } });
    const toPdfCli = JSON.parse(cli(["related", "notes/Reading.md", "--vault", vault, "--json"]).stdout) as Related[];
    expect(toPdfCli.find((n) => n.path === "papers/manual-3p.pdf")?.target).toEqual(toPdf!.target);
    expect(cli(["related", "notes/Reading.md", "--vault", vault]).stdout).toMatch(
      /\n {4}papers\/manual-3p\.pdf:p\d {2}Greenhouse Controller Manual > /,
    );
  });
});
