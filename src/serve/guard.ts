import { timingSafeEqual } from "node:crypto";
import { canonicalHost, isLoopback, isWildcard, readHostHeader } from "./host.js";

export { isLoopback, isWildcard } from "./host.js";

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
 * The `Host` header values a server bound to `host:port` answers: its own address, and any loopback
 * one (`localhost`, `127.0.0.1`, `[::1]`) when that is loopback, each however it is written
 * ({@link canonicalHost}). Anything else (a name an attacker's DNS points at 127.0.0.1, the DNS
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
  // both read as a browser writes them: `--host 127.1` is 127.0.0.1, `0:0:0:0:0:0:0:1` is ::1
  const given = readHostHeader(header);
  if (!given || given.port !== port) return false;
  const bound = canonicalHost(host);
  return given.host === bound || (isLoopback(bound) && isLoopback(given.host));
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

/**
 * The token a request presents: `Authorization: Bearer <token>`. No cookie carries it (a cookie
 * reaches every port of the host).
 *
 * @example
 * ```ts
 * presentedToken("Bearer abc"); // "abc"
 * ```
 */
export function presentedToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
}
