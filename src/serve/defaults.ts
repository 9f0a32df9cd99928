/**
 * Defaults and limits of `vault-rag serve`, in one place (the CLI's help and the README read them
 * from here).
 *
 * - `port`, `host`: where it listens; loopback, so nothing else on the network can reach it.
 * - `bodyBytes`: the largest request body (an ask is a question and a few filters: 64 KB is plenty).
 * - `urlChars`: the longest request target, path and query string (8 KB, a common proxy limit).
 * - the longest query, question and names: `REQUEST_LIMITS` in src/requests, shared with MCP.
 * - `headersMs`, `requestMs`: how long a client may take to send its headers (10 s), and its whole
 *   request (15 s; 64 KB needs far less), before it gets a 408 and is cut off, so that slow clients
 *   cannot hold connections open (Node's defaults are 60 s and 5 minutes). They bound the request,
 *   not the response: an answer streams for as long as the model takes.
 * - `asks`: answers written at once (4). A local model writes one answer at a time anyway; more
 *   asks would only queue on it, each holding a connection, so a client (or a page left open in many
 *   tabs) that floods `POST /api/ask` gets a 429 at once instead.
 * - `requests`, `waiting`: the searches and related notes answered at once (2), and how many more
 *   may wait their turn (256); one over that gets a 503 at once, with `Retry-After`. With the
 *   bundled model they are CPU work on this process, so more at once answer none sooner, and 3,000
 *   searches sent at once took the server to 598 MB (and a header timeout, its loop too busy to
 *   read one). A note, tags, folders and status do not wait behind them.
 * - `sendMs`: how long an answer's event may wait for the client to read the last (30 s); then the
 *   client counts as gone and the model is stopped, so a client that asks and never reads holds no
 *   model and no ask slot for longer.
 */
export const SERVE_DEFAULTS = {
  port: 4321,
  host: "127.0.0.1",
  bodyBytes: 64 * 1024,
  urlChars: 8 * 1024,
  headersMs: 10_000,
  requestMs: 15_000,
  asks: 4,
  requests: 2,
  waiting: 256,
  sendMs: 30_000,
} as const;
