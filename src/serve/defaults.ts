/**
 * Defaults and limits of `vault-rag serve`, in one place (the CLI's help and the README read them
 * from here).
 *
 * - `port`, `host`: where it listens; loopback, so nothing else on the network can reach it.
 * - `bodyBytes`: the largest request body (an ask is a question and a few filters: 64 KB is plenty).
 * - `urlChars`: the longest request target, path and query string (8 KB, a common proxy limit).
 * - `textChars`: the longest search query or question (2,000 characters).
 */
export const SERVE_DEFAULTS = {
  port: 4321,
  host: "127.0.0.1",
  bodyBytes: 64 * 1024,
  urlChars: 8 * 1024,
  textChars: 2000,
} as const;
