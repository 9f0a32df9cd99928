import { VERSION } from "../version.js";
import { StringDecoder } from "node:string_decoder";
import { Transform } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { VaultRagError } from "../errors.js";
import { openVault, type VaultHandle } from "../library.js";
import { staleHitsWarning } from "../render/stale.js";
import { cliFix, worded } from "../render/fix.js";
import { GET_NOTE_MAX_CHARS } from "../core/defaults.js";
import {
  getNoteInput,
  propsInput,
  quoted,
  relatedInput,
  searchInput,
  searchRequestOf,
  shown,
  turns,
  validate,
} from "../requests/index.js";
import { MCP_DEFAULTS, type McpLimits, type McpLimitsWithDefaults } from "./defaults.js";

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/** A tool's answer with a sentence about how it was found, sent as a second text after the answer's JSON. */
class Noted {
  constructor(
    readonly value: unknown,
    readonly note: string,
  ) {}
}

const text = (value: unknown): ToolResult =>
  value instanceof Noted
    ? { content: [...text(value.value).content, { type: "text", text: `note: ${value.note}` }] }
    : { content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }] };

const failure = (message: string): ToolResult => ({ content: [{ type: "text", text: message }], isError: true });

/** Runs a tool body, turning vault-rag errors into results the agent can read. */
async function guarded(fn: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return text(await fn());
  } catch (e) {
    // the server was started from the CLI: its words name the CLI's commands
    if (e instanceof VaultRagError) return failure(worded(e, cliFix));
    throw e;
  }
}

/** A tool: what it does, its arguments' schema, and its body, given validated arguments. */
interface Tool<S extends z.ZodType = z.ZodType> {
  description: string;
  input: S;
  /** `signal`: aborted when the client cancels the call. */
  run: (args: z.infer<S>, signal: AbortSignal) => Promise<unknown>;
}

const tool = <S extends z.ZodType>(
  description: string,
  input: S,
  run: (args: z.infer<S>, signal: AbortSignal) => Promise<unknown>,
) => ({ description, input, run }) as Tool;

/**
 * Builds the MCP server for a vault: `search`, `get_note`, `related`, `list_tags`, `list_folders`, `list_props`, `status`.
 * Every parameter is validated (unknown ones are errors), with the HTTP API's validation and wording
 * (`vault-rag: top_k must be a whole number, got "many"`); defaults are the CLI's.
 *
 * The SDK's low-level `Server` and not its `McpServer`: `McpServer` validates the arguments itself
 * and answers a bad one with its own multi-line text ("Input validation error: Invalid arguments for
 * tool search: …"), before any vault-rag code runs.
 *
 * Searches and related notes are answered `calls` at a time, in the order they came; at most
 * `waiting` more wait their turn, and a call over that is answered at once with an error result
 * (`MCP_DEFAULTS`). A call the client cancels while it waits is not run. The other tools are quick
 * reads and wait for none.
 *
 * @example
 * ```ts
 * const { server } = await createMcpServer("/home/me/notes");
 * await server.connect(new StdioServerTransport());
 * ```
 */
export async function createMcpServer(
  vaultDir: string,
  opts: { db?: string; vaultKnown?: boolean; watching?: boolean } & McpLimits = {},
): Promise<{ server: Server; vault: VaultHandle }> {
  const limits: McpLimitsWithDefaults = {
    calls: opts.calls ?? MCP_DEFAULTS.calls,
    waiting: opts.waiting ?? MCP_DEFAULTS.waiting,
  };
  // a long-lived process: questions are embedded on a thread of their own, beside the keyword search
  const v = await openVault(vaultDir, { db: opts.db, vaultKnown: opts.vaultKnown, queryThread: true, remote: true });
  // the model and the dense index load while the agent starts, not on its first search (without
  // an index, the first call says so)
  v.warm().catch(() => undefined);
  const noArgs = z.object({}).strict();
  const tools: Record<string, Tool> = {
    search: tool(
      "Search the user's notes (hybrid dense + BM25). Returns hits as the CLI's --json does: id, path, title, section, label, text, score, distance, start_line, end_line, tags, folder, top_folder, mtime, date, props, and for a passage of a PDF, Canvas board or Word document its file_type and PDF page (filter with type: pdf, canvas, docx or note). With no hits: {hits: [], reason, hints}, the hints naming the folder or tag that exists. What a reader should know of how it ranked (a question the embedding model cannot read, such as Chinese or Japanese, is ranked by keywords alone; a query of common words only names no topic; hits from notes changed or deleted since the last index) comes in a second text that starts with note:.",
      searchInput,
      async (a) => {
        const { hits, reason, hints, notice, stale } = await v.search(a.query, searchRequestOf(a));
        // no hits: why, and the CLI's hints (a folder in another case, a tag no note has), as text;
        // a question the model could not read was ranked by keywords alone, and hits may come from
        // notes changed since the last index, which a second text says (the CLI's warning)
        const found = hits.length ? hits : { hits: [], reason, hints };
        // under --watch the index is refreshed here, which the fix says
        const staleNote = stale && staleHitsWarning(stale, { watching: opts.watching })?.replace(/^vault-rag: /, "");
        const notes = [notice, staleNote].filter(Boolean);
        return notes.length ? new Noted(found, notes.join("; ")) : found;
      },
    ),
    get_note: tool(
      `Read a note (or one section of it) by its vault-relative path or its name, as a wikilink finds it (robots/SMARS.md, robots/SMARS, SMARS). Only notes the index holds are served; text over ${GET_NOTE_MAX_CHARS} characters is cut, with a mark. A PDF, Canvas board or Word document (papers/manual.pdf, manual.pdf) gives its passages as indexed, each under its breadcrumb, a PDF's under "## p. N" (heading "p. 3" gives one page).`,
      getNoteInput,
      async (a) => {
        const note = await v.note(a.path, { heading: a.heading });
        // a name (SMARS) finds a note as a wikilink does: say which one was read
        return note.path === a.path ? note.text : new Noted(note.text, `read "${note.path}"`);
      },
    ),
    related: tool(
      "Notes nearest in meaning to a note (by path or name), from the index's vectors, each with its best-matching pair of passages (source, target) and whether the notes already link; unlinked_only gives link suggestions.",
      relatedInput,
      // a client's cancel (notifications/cancelled) stops the comparison of a long note
      async (a, signal) => v.related(a.path, { k: a.k, unlinkedOnly: a.unlinked_only, signal }),
    ),
    list_tags: tool("Tags used in the notes, with how many notes carry each.", noArgs, () => v.tags()),
    list_folders: tool("Folders of the vault, with how many notes each holds.", noArgs, () => v.folders()),
    list_props: tool(
      'Properties (frontmatter keys) of the notes, with how many notes hold each and their value types (string, number, boolean, date, list), and the field a filter names them by (prop.<name> when a built-in field has the name); with name, that property\'s values with counts. Filter on them in search\'s where ({"status": "draft"}, {"rating": {"$gte": 4}}) or props (["status=draft"]).',
      propsInput,
      (a) => (a.name === undefined ? v.props() : v.props(a.name)),
    ),
    status: tool("The index: path, model, counts, last indexed, notes changed since.", noArgs, async () => {
      const [status, hint] = await Promise.all([v.status(), v.modelHint()]);
      return hint ? { ...status, modelHint: hint } : status;
    }),
  };
  const server = new Server({ name: "vault-rag", version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(tools).map(([name, t]) => ({
      name,
      description: t.description,
      inputSchema: z.toJSONSchema(t.input, { io: "input" }) as { type: "object" },
    })),
  }));
  const line = turns(limits.calls, limits.waiting);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const t = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (!t)
      return failure(
        `vault-rag: unknown tool "${name}" — use ${Object.keys(tools)
          .map((n) => `"${n}"`)
          .join(", ")}`,
      );
    const call = () => guarded(async () => t.run(validate(t.input, args ?? {}, {}, "arguments"), extra.signal));
    // only the tools that rank take turns: a note, tags, folders and status are quick reads, which
    // must not wait behind searches (on an Ollama index a search waits on the model)
    if (!RANKING_TOOLS.has(name)) return call();
    if (line.full)
      return failure(
        `vault-rag: ${limits.waiting} tool calls are already waiting for an answer — wait for answers before sending more`,
      );
    // a call cancelled while it waited gets no answer (the SDK sends none), so it is not run
    return line.run(async () => (extra.signal.aborted ? failure("vault-rag: the call was cancelled") : call()));
  });
  return { server, vault: v };
}

/** Calls `then` once stdout has taken what was written, or is closed or broken (nothing more will drain). */
function waitForStdout(then: () => void): void {
  const go = () => {
    for (const e of ["drain", "close", "error"]) process.stdout.off(e, go);
    then();
  };
  for (const e of ["drain", "close", "error"]) process.stdout.once(e, go);
}

/** The tools that take turns in the line (`MCP_DEFAULTS`). */
const RANKING_TOOLS = new Set(["search", "related"]);

/** `vault-rag mcp`: serves the vault over stdio. Nothing but the protocol goes to stdout. */
export async function serveMcp(
  vaultDir: string,
  opts: { db?: string; vaultKnown?: boolean; watching?: boolean } = {},
): Promise<void> {
  const { server } = await createMcpServer(vaultDir, opts);
  // a tools/call whose params are no object is answered here, with its id: the SDK refuses the
  // whole line as no JSON-RPC message and the answer it prompts has no id to go with
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const input = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += decoder.write(chunk);
      for (let cut = pending.indexOf("\n"); cut >= 0; cut = pending.indexOf("\n")) {
        const line = pending.slice(0, cut + 1);
        pending = pending.slice(cut + 1);
        const answer = misshapenCall(line);
        if (answer) void transport.send(answer);
        else this.push(line);
      }
      // a line without end goes on to the SDK past its limit (10 MB), where it stops with its own error
      if (pending.length > 10 * 1024 * 1024) {
        this.push(pending);
        pending = "";
      }
      // a client that sends calls and reads no answers: stdin is read no further until stdout has
      // taken what was written, so answers do not pile up in memory (each waits for its drain)
      if (process.stdout.writableNeedDrain) waitForStdout(done);
      else done();
    },
    flush(done) {
      // what follows the last line break: the SDK reads a message when its line ends, so a last one
      // without a line break is never read (spaces after the break are no message)
      if (pending.trim())
        process.stderr.write(
          "vault-rag: the last message on stdin had no line break and was not read — end each JSON-RPC 2.0 message with a newline\n",
        );
      if (pending) this.push(pending);
      done();
    },
  });
  process.stdin.pipe(input);
  // the SDK waits for a drain once per answer it writes; reading stops while stdout is full, so
  // they are bounded by the calls of one read of stdin and those that wait their turn
  process.stdout.setMaxListeners(0);
  const transport = new StdioServerTransport(input, process.stdout);
  // the SDK drops a line it cannot read without a word; JSON-RPC 2.0 answers it (id null), so a
  // client that sent it learns why nothing came back
  server.onerror = (err) => {
    const answer = lineError(err);
    if (answer) void transport.send({ jsonrpc: "2.0", id: null, error: answer } as unknown as JSONRPCMessage);
    else if (/ReadBuffer exceeded maximum size/.test(err.message)) {
      // the SDK closes the transport, but a watcher (mcp --watch) would keep the process up: end it
      process.stderr.write(
        "vault-rag: a message on stdin ran over 10 MB without a line break — the MCP server stops; send one JSON-RPC 2.0 message per line\n",
      );
      process.exit(1);
    }
  };
  await server.connect(transport);
  guardToolCalls(transport);
}

/**
 * The answer to a line that is a `tools/call` with params that are no object (`"x"`, `5`, `null`,
 * a list), or undefined for any other line: JSON-RPC's -32602 with the request's id.
 *
 * @example
 * ```ts
 * misshapenCall('{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "x"}\n');
 * // { jsonrpc: "2.0", id: 5, error: { code: -32602, message: 'vault-rag: tools/call needs params {"name": …, "arguments": {…}}, got "x"' } }
 * ```
 */
export function misshapenCall(line: string): JSONRPCMessage | undefined {
  if (!line.includes("tools")) return undefined; // (also "tools\/call", as JSON may escape it)
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return undefined; // the SDK answers it
  }
  const { jsonrpc, id, method, params } = (m ?? {}) as Record<string, unknown>;
  if (jsonrpc !== "2.0" || method !== "tools/call" || !(typeof id === "string" || typeof id === "number"))
    return undefined;
  if (
    !Object.hasOwn(m as object, "params") ||
    (typeof params === "object" && params !== null && !Array.isArray(params))
  )
    return undefined;
  return { jsonrpc: "2.0", id, error: { code: -32602, message: toolCallProblem(params)! } } as JSONRPCMessage;
}

/**
 * Answers a `tools/call` whose params are not a tool call (params missing or not an object, a name
 * that is not text, arguments that are not an object) with JSON-RPC's -32602 and one line saying
 * what to send, before the SDK, which answers with its validator's multi-line dump. `arguments:
 * null` is read as none.
 */
function guardToolCalls(transport: StdioServerTransport): void {
  const forward = transport.onmessage;
  if (!forward) return;
  transport.onmessage = (message: JSONRPCMessage) => {
    const m = message as unknown as { method?: unknown; id?: string | number; params?: unknown };
    if (m.method === "tools/call" && m.id !== undefined) {
      const problem = toolCallProblem(m.params);
      if (problem) {
        void transport.send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: problem } } as JSONRPCMessage);
        return;
      }
      const p = m.params as { arguments?: unknown };
      if (p.arguments === null) delete p.arguments;
    }
    forward(message);
  };
}

/**
 * What is wrong with the params of a `tools/call`, in one line, or undefined when they are a call.
 *
 * @example
 * ```ts
 * toolCallProblem({ name: "search", arguments: "motors" });
 * // 'vault-rag: the arguments of tool "search" must be a JSON object, got "motors" — send {"name": "search", "arguments": {"query": …}}'
 * ```
 */
export function toolCallProblem(params: unknown): string | undefined {
  const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(params))
    return `vault-rag: tools/call needs params {"name": …, "arguments": {…}}, got ${shown(params ?? null)}`;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string")
    return `vault-rag: tools/call needs the tool's "name" as text, got ${shown(name ?? null)} — list the tools with tools/list`;
  if (args !== undefined && args !== null && !isObject(args))
    return `vault-rag: the arguments of tool ${quoted(name)} must be a JSON object, got ${shown(args)} — send {"name": ${shown(name)}, "arguments": {…}}`;
  // the SDK drops it without a word, as it would any key no tool takes
  if (isObject(args) && Object.hasOwn(args as object, "__proto__")) return `vault-rag: unknown field "__proto__"`;
  return undefined;
}

/**
 * The JSON-RPC error for a line on stdin that is not a message: -32700 for text that is not JSON,
 * -32600 for JSON that is not a JSON-RPC 2.0 message; undefined for a blank line and any other error.
 *
 * @example
 * ```ts
 * lineError(new SyntaxError("Unexpected token")); // { code: -32700, message: "vault-rag: a line on stdin is not JSON — …" }
 * ```
 */
export function lineError(err: Error): { code: number; message: string } | undefined {
  // a blank line (what JSON.parse calls the end of its input) is no message, and asks no answer
  if (err instanceof SyntaxError && /^Unexpected end of JSON input/.test(err.message)) return undefined;
  if (err instanceof SyntaxError)
    return {
      code: -32700,
      message: "vault-rag: a line on stdin is not JSON — send one JSON-RPC 2.0 message per line",
    };
  if (err instanceof z.ZodError || err.name === "ZodError")
    return {
      code: -32600,
      message:
        'vault-rag: a line on stdin is not a JSON-RPC 2.0 message — send {"jsonrpc": "2.0", "id": 1, "method": …}',
    };
  return undefined;
}
