import fs from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { VaultRagError } from "../errors.js";
import { openVault, type VaultHandle } from "../library.js";
import { hitJson, SEARCH_DEFAULTS } from "../search/index.js";
import { scanBlocks, splitFrontmatter } from "../vault/index.js";
import { capText, GET_NOTE_MAX_CHARS, resolveNote } from "./notes.js";

export { safeNotePath, resolveNote, capText, GET_NOTE_MAX_CHARS } from "./notes.js";

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

const text = (value: unknown): ToolResult => ({
  content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
});

/** Runs a tool body, turning vault-rag errors into results the agent can read. */
async function guarded(fn: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return text(await fn());
  } catch (e) {
    if (e instanceof VaultRagError) return { content: [{ type: "text", text: e.message }], isError: true };
    throw e;
  }
}

/** The text of one section (the heading and everything under it, to the next heading of the same or higher level). */
export function sectionText(body: string, heading: string): string | undefined {
  const lines = body.split("\n");
  const scan = scanBlocks(body);
  const heads = scan.starts
    .map((line, b) => ({ line, level: scan.levels[b], text: scan.texts[b] }))
    .filter((h) => h.level > 0);
  const want = heading
    .replace(/^#+\s*/, "")
    .trim()
    .toLowerCase();
  const i = heads.findIndex((h) => h.text.toLowerCase() === want);
  if (i < 0) return undefined;
  const next = heads.slice(i + 1).find((h) => h.level <= heads[i].level);
  return lines
    .slice(heads[i].line, next ? next.line : lines.length)
    .join("\n")
    .trim();
}

const searchInput = z
  .object({
    query: z.string().min(1).describe("what to look for, in plain words"),
    top_k: z.number().int().min(1).max(50).optional().describe(`number of hits (default ${SEARCH_DEFAULTS.topK})`),
    per_note: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`at most this many hits per note (default ${SEARCH_DEFAULTS.perNote})`),
    oversample: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe(`candidates fetched per hit before the per-note cap (default ${SEARCH_DEFAULTS.oversample})`),
    mode: z
      .enum(["dense", "keyword", "hybrid"])
      .optional()
      .describe(`retrieval mode (default ${SEARCH_DEFAULTS.mode})`),
    tags: z.array(z.string().min(1)).optional().describe("only notes with all these tags"),
    folder: z.string().optional().describe("only notes directly in this folder"),
    top_folder: z.string().optional().describe("only notes under this top-level folder"),
    since: z.string().optional().describe("only notes modified since: 90d, 2w, 12h, 2026-06-01 or an ISO time"),
    until: z.string().optional().describe("only notes modified until (same forms as since)"),
    min_ratio: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("drop hits scoring below this ratio × the best hit's score"),
    where: z.record(z.string(), z.unknown()).optional().describe("a Chroma where filter"),
    where_document: z.record(z.string(), z.unknown()).optional().describe("a Chroma whereDocument filter"),
  })
  .strict();

/**
 * Builds the MCP server for a vault: `search`, `get_note`, `list_tags`, `list_folders`, `status`.
 * Every parameter is validated (unknown ones are errors); defaults are the CLI's.
 */
export async function createMcpServer(
  vaultDir: string,
  opts: { db?: string } = {},
): Promise<{ server: McpServer; vault: VaultHandle }> {
  const v = await openVault(vaultDir, { db: opts.db });
  const server = new McpServer({ name: "vault-rag", version: "0.1.0" });
  server.registerTool(
    "search",
    {
      description:
        "Search the user's notes (hybrid dense + BM25). Returns hits as the CLI's --json does: id, path, title, section, label, text, score, distance, start_line, end_line, tags, folder, top_folder, mtime. With no hits: {hits: [], reason, hints}, the hints naming the folder or tag that exists.",
      inputSchema: searchInput,
    },
    async (a) =>
      guarded(async () => {
        const { hits, reason, hints } = await v.search(a.query, {
          topK: a.top_k,
          perNote: a.per_note,
          oversample: a.oversample,
          mode: a.mode,
          tags: a.tags,
          folder: a.folder,
          topFolder: a.top_folder,
          since: a.since,
          until: a.until,
          minRatio: a.min_ratio,
          where: a.where,
          whereDocument: a.where_document,
        });
        // no hits: why, and the CLI's hints (a folder in another case, a tag no note has), as text
        return hits.length ? hits.map(hitJson) : { hits: [], reason, hints };
      }),
  );
  server.registerTool(
    "get_note",
    {
      description: `Read a note (or one section of it) by its vault-relative path or its name, as a wikilink finds it (robots/SMARS.md, robots/SMARS, SMARS). Only notes the index holds are served; text over ${GET_NOTE_MAX_CHARS} characters is cut, with a mark.`,
      inputSchema: z
        .object({
          path: z.string().min(1).describe("vault-relative path or note name, e.g. robots/SMARS.md or SMARS"),
          heading: z.string().optional().describe("only this section"),
        })
        .strict(),
    },
    async (a) =>
      guarded(async () => {
        const note = resolveNote(v.vault, a.path);
        const { body } = splitFrontmatter(fs.readFileSync(note.file, "utf8"));
        if (!a.heading) return capText(body);
        const section = sectionText(body, a.heading);
        if (section === undefined)
          throw new VaultRagError("usage", `vault-rag: no heading "${a.heading}" in "${note.path}"`);
        return capText(section);
      }),
  );
  const noArgs = z.object({}).strict();
  server.registerTool(
    "list_tags",
    { description: "Tags used in the notes, with how many notes carry each.", inputSchema: noArgs },
    async () => guarded(() => v.tags()),
  );
  server.registerTool(
    "list_folders",
    { description: "Folders of the vault, with how many notes each holds.", inputSchema: noArgs },
    async () => guarded(() => v.folders()),
  );
  server.registerTool(
    "status",
    { description: "The index: path, model, counts, last indexed, notes changed since.", inputSchema: noArgs },
    async () => guarded(() => v.status()),
  );
  return { server, vault: v };
}

/** `vault-rag mcp`: serves the vault over stdio. Nothing but the protocol goes to stdout. */
export async function serveMcp(vaultDir: string, opts: { db?: string } = {}): Promise<void> {
  const { server } = await createMcpServer(vaultDir, opts);
  await server.connect(new StdioServerTransport());
}
