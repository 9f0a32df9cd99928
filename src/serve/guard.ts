import { timingSafeEqual } from "node:crypto";
import net from "node:net";

/**
 * Whether an address only this machine can reach: `localhost`, 127.0.0.0/8 or `::1`.
 *
 * @example
 * ```ts
 * isLoopback("127.0.0.1"); // true
 * isLoopback("0.0.0.0");   // false
 * ```
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h === "::1") return true;
  return net.isIPv4(h) && h.startsWith("127.");
}

/**
 * An address as it goes in a URL: an IPv6 one in brackets.
 *
 * @example
 * ```ts
 * shownHost("::1"); // "[::1]"
 * ```
 */
export function shownHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Whether an address means every interface (`0.0.0.0`, `::`): no single Host header names it.
 *
 * @example
 * ```ts
 * isWildcard("::"); // true
 * ```
 */
export function isWildcard(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "");
  return h === "0.0.0.0" || h === "::" || h === "";
}

/**
 * The `Host` header values a server bound to `host:port` answers: its own address, and `localhost`
 * when that is loopback. Anything else (a name an attacker's DNS points at 127.0.0.1, the DNS
 * rebinding attack) is refused. A wildcard bind answers any name, since every request then needs
 * the token.
 *
 * @example
 * ```ts
 * hostAllowed("localhost:4321", "127.0.0.1", 4321);     // true
 * hostAllowed("evil.example:4321", "127.0.0.1", 4321);  // false
 * ```
 */
export function hostAllowed(header: string | undefined, host: string, port: number): boolean {
  if (header === undefined) return false;
  if (isWildcard(host)) return true;
  const h = header.trim().toLowerCase();
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const names = new Set([net.isIPv6(bare) ? `[${bare}]` : bare]);
  if (isLoopback(bare)) for (const n of ["localhost", "127.0.0.1", "[::1]"]) names.add(n);
  for (const n of names) if (h === `${n}:${port}` || (port === 80 && h === n)) return true;
  return false;
}

/**
 * Compares a presented token with the server's in constant time. An empty server token matches
 * nothing.
 *
 * @example
 * ```ts
 * tokenMatches("abc", "abc"); // true
 * ```
 */
export function tokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined || token === "") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The name of the cookie that carries the token in a browser (set when the printed URL is opened). */
export const TOKEN_COOKIE = "vault_rag_token";

/**
 * The token a request presents: `Authorization: Bearer <token>`, else the cookie the web app got.
 *
 * @example
 * ```ts
 * presentedToken("Bearer abc", undefined);                  // "abc"
 * presentedToken(undefined, "a=1; vault_rag_token=abc");    // "abc"
 * ```
 */
export function presentedToken(authorization: string | undefined, cookie: string | undefined): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (bearer) return bearer[1];
  for (const part of (cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === TOKEN_COOKIE) return v.join("=");
  }
  return undefined;
}
