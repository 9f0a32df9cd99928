/**
 * Host names and addresses in one form, so that two ways of writing an address compare equal: the
 * bound address (`--host 127.1`, `--host 0:0:0:0:0:0:0:1`) and a request's `Host` header.
 */

/** What a host may be written with before it is read as one (letters, digits, `.`, `-`, `_`, `:`). */
const HOST_CHARS = /^[A-Za-z0-9._:-]+$/;

/**
 * A host in the form a browser writes it (the WHATWG URL parser's), without brackets: an IPv4
 * address in any form the system resolver takes (`127.1`, `0x7f.1`) as four decimal numbers, an
 * IPv6 one compressed and in lowercase (`::1`, `::ffff:7f00:1`), a name in lowercase. What is no
 * host (a space, a zone index `%eth0`) comes back lowercased and otherwise as given.
 *
 * @example
 * ```ts
 * canonicalHost("127.1");            // "127.0.0.1"
 * canonicalHost("0:0:0:0:0:0:0:1");  // "::1"
 * canonicalHost("[::FFFF:127.0.0.1]"); // "::ffff:7f00:1"
 * canonicalHost("LocalHost");        // "localhost"
 * ```
 */
export function canonicalHost(host: string): string {
  const bare = host.trim().replace(/^\[(.*)\]$/, "$1");
  if (!HOST_CHARS.test(bare)) return bare.toLowerCase();
  try {
    return new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return bare.toLowerCase();
  }
}

/**
 * Whether a host is one only this machine can reach, however it is written: `localhost`,
 * 127.0.0.0/8 (`127.1` too), `::1` (`0:0:0:0:0:0:0:1` too) and 127.0.0.0/8 mapped into IPv6
 * (`::ffff:127.0.0.1`).
 *
 * @example
 * ```ts
 * isLoopback("127.1");            // true
 * isLoopback("::ffff:127.0.0.1"); // true
 * isLoopback("0.0.0.0");          // false
 * ```
 */
export function isLoopback(host: string): boolean {
  const h = canonicalHost(host);
  return (
    h === "localhost" ||
    h === "::1" ||
    /^127\.\d+\.\d+\.\d+$/.test(h) ||
    // ::ffff:127.x.x.x, which the URL parser writes as ::ffff:7fxx:xxxx
    /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h)
  );
}

/**
 * Whether a host means every interface, however it is written (`0.0.0.0`, `0`, `::`, `0:0:0:0:0:0:0:0`).
 *
 * @example
 * ```ts
 * isWildcard("0:0:0:0:0:0:0:0"); // true
 * ```
 */
export function isWildcard(host: string): boolean {
  const h = canonicalHost(host);
  return h === "0.0.0.0" || h === "::" || h === "";
}

/**
 * A `Host` header (or a URL's authority) read as a host in {@link canonicalHost}'s form and a port
 * (80 when it names none), or `undefined` when it is not one: anything but a name or an address
 * and a port, such as `user@host` or a path.
 *
 * @example
 * ```ts
 * readHostHeader("127.1:4321");   // { host: "127.0.0.1", port: 4321 }
 * readHostHeader("[::1]");        // { host: "::1", port: 80 }
 * readHostHeader("a@b:4321");     // undefined
 * ```
 */
export function readHostHeader(header: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (!m) return undefined;
  return { host: canonicalHost(m[1]), port: m[2] === undefined ? 80 : Number(m[2]) };
}
