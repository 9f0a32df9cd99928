/**
 * The limits of `vault-rag mcp`, in one place (the README reads them from here).
 *
 * - `calls`: `search` and `related` calls answered at once (2). With the bundled model a search is
 *   CPU work on this process and its embedding thread, so more at once answers none sooner; each
 *   one in flight holds its candidate lists, and 3,000 calls sent without waiting took the server
 *   to 756 MB. The other tools are quick reads, answered at once.
 * - `waiting`: such calls that may wait their turn (256). A client that sends more without reading
 *   the answers gets, for each call over it, an error result at once (`vault-rag: 256 tool calls are
 *   already waiting …`), so a flood costs a line each instead of memory.
 */
export const MCP_DEFAULTS: McpLimitsWithDefaults = { calls: 2, waiting: 256 };

/** The limits `createMcpServer` takes, each defaulting to `MCP_DEFAULTS`. */
export interface McpLimits {
  calls?: number;
  waiting?: number;
}

/** `McpLimits` with every limit set. */
export type McpLimitsWithDefaults = Required<McpLimits>;
