import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import { VaultRagError } from "../errors.js";
import { openVault, type VaultHandle } from "../library.js";
import { hitJson } from "../search/index.js";
import { GET_NOTE_MAX_CHARS } from "../vault/index.js";
import { getNoteInput, relatedInput, searchInput, searchRequestOf } from "./schemas.js";

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

/**
 * Builds the MCP server for a vault: `search`, `get_note`, `related`, `list_tags`, `list_folders`, `status`.
 * Every parameter is validated (unknown ones are errors); defaults are the CLI's.
 */
export async function createMcpServer(
  vaultDir: string,
  opts: { db?: string } = {},
): Promise<{ server: McpServer; vault: VaultHandle }> {
  // a long-lived process: questions are embedded on a thread of their own, beside the keyword search
  const v = await openVault(vaultDir, { db: opts.db, queryThread: true });
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
        const { hits, reason, hints } = await v.search(a.query, searchRequestOf(a));
        // no hits: why, and the CLI's hints (a folder in another case, a tag no note has), as text
        return hits.length ? hits.map(hitJson) : { hits: [], reason, hints };
      }),
  );
  server.registerTool(
    "get_note",
    {
      description: `Read a note (or one section of it) by its vault-relative path or its name, as a wikilink finds it (robots/SMARS.md, robots/SMARS, SMARS). Only notes the index holds are served; text over ${GET_NOTE_MAX_CHARS} characters is cut, with a mark.`,
      inputSchema: getNoteInput,
    },
    async (a) =>
      guarded(async () => {
        return (await v.note(a.path, { heading: a.heading })).text;
      }),
  );
  server.registerTool(
    "related",
    {
      description:
        "Notes nearest in meaning to a note (by path or name), from the index's vectors, each with its best-matching pair of passages (source, target) and whether the notes already link; unlinked_only gives link suggestions.",
      inputSchema: relatedInput,
    },
    async (a) => guarded(async () => v.related(a.path, { k: a.k, unlinkedOnly: a.unlinked_only })),
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
