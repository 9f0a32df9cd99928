/**
 * The HTTP app's named middlewares: the Host check (against DNS rebinding) and security headers,
 * the same-origin check on the API, and the turns that ranking requests take.
 */
import type { Context, MiddlewareHandler } from "hono";
import { turns } from "../requests/index.js";
import type { AppOptions } from "./app.js";
import { SERVE_DEFAULTS } from "./defaults.js";
import { Refusal } from "./errors.js";
import { hostAllowed, shownHost } from "./guard.js";
import { canonicalHost } from "./host.js";

/**
 * Refuses a URL over the cap and a request for another host than this server's (the Host header,
 * and an absolute-form target's authority), and sets the security headers on every answer.
 *
 * @example
 * ```ts
 * app.use("*", hostGuard(o));
 * ```
 */
export function hostGuard(o: AppOptions): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (url.pathname.length + url.search.length > SERVE_DEFAULTS.urlChars)
      throw new Refusal(
        414,
        "usage",
        `vault-rag: the request URL is over ${SERVE_DEFAULTS.urlChars} characters — send a shorter query or filter`,
      );
    // the Host header, and the authority of an absolute-form target (`GET http://name/…`), which
    // HTTP says wins over the header: both must name this server
    const header = c.req.header("host");
    const host = hostAllowed(header, o.host, o.port()) ? url.host : header;
    const bound = `${shownHost(canonicalHost(o.host))}:${o.port()}`;
    if (!hostAllowed(host, o.host, o.port()))
      throw new Refusal(
        403,
        "forbidden",
        `vault-rag: refused a request for host "${host ?? ""}" — this server answers only ${bound} (a guard against DNS rebinding); open http://${bound}/`,
      );
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    await next();
  };
}

/**
 * Refuses an API request from a page of another origin, unless it is the `--cors` origin: a request
 * that says where it comes from (Origin, or a browser's Sec-Fetch-Site for an `<img>` or a no-cors
 * fetch, which send no Origin) must come from this server's own page. Without either (curl,
 * scripts) it may. Otherwise any web page could time searches to learn what the notes hold.
 *
 * @example
 * ```ts
 * app.use("/api/*", originGuard(o));
 * ```
 */
export function originGuard(o: AppOptions): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    const own = `http://${c.req.header("host") ?? ""}`.toLowerCase();
    const allowed = origin !== undefined && (origin.toLowerCase() === own || origin === o.cors);
    if ((origin !== undefined && !allowed) || ((site === "cross-site" || site === "same-site") && !allowed))
      throw new Refusal(
        403,
        "forbidden",
        `vault-rag: refused a request from ${origin === undefined ? `another site (Sec-Fetch-Site: ${site})` : `the page at "${origin}"`} — this API answers only its own page${o.cors ? ` and ${o.cors}` : ""}; to call it from another page's origin, start serve with --cors <origin>`,
      );
    await next();
  };
}

/**
 * Ranking requests take turns: a few run at once, more wait in a bounded line, and a request over
 * that gets a 503 at once; a client that went away while it waited is not run.
 *
 * @example
 * ```ts
 * app.use("/api/search", turnTaking(o));
 * ```
 */
export function turnTaking(o: Pick<AppOptions, "requests" | "waiting">): MiddlewareHandler {
  const waiting = o.waiting ?? SERVE_DEFAULTS.waiting;
  const line = turns(o.requests ?? SERVE_DEFAULTS.requests, waiting);
  const inTurn: MiddlewareHandler = async (c, next) => {
    if (line.full)
      throw new Refusal(
        503,
        "busy",
        `vault-rag: ${waiting} requests are already waiting for an answer — send again in a moment`,
        { "Retry-After": "1" },
      );
    // a client that went away while it waited gets nothing, so its request is not run
    await line.run(async () => (c.req.raw.signal.aborted ? void (c.res = c.body(null, 503)) : next()));
  };
  // only the endpoints that rank: a note, tags, folders and status are quick reads, which must not
  // wait behind two searches (a search on an Ollama index waits on the model, seconds at a time)
  return inTurn;
}

/**
 * The refusal of a request no route takes: a 405 naming the method an endpoint takes, else a 404
 * listing the API's endpoints. The app renders it as it renders every error.
 *
 * @example
 * ```ts
 * app.notFound((c) => renderError(c, notFound(c, app.routes)));
 * ```
 */
export function notFound(c: Context, routes: { path: string; method: string }[]): Refusal {
  const pathname = new URL(c.req.url).pathname;
  // an endpoint asked with another method than its own (POST /api/search, GET /api/ask): a 405
  // that names it, read from the routes themselves
  const own = pathname.startsWith("/api/")
    ? [...new Set(routes.filter((r) => r.path === pathname && r.method !== "ALL").map((r) => r.method))]
    : [];
  if (own.length)
    return new Refusal(
      405,
      "usage",
      `vault-rag: ${pathname} takes ${own.join(" or ")}, not ${c.req.method} — send ${own[0]} ${pathname}`,
      { Allow: own.join(", ") },
    );
  return new Refusal(
    404,
    "not_found",
    `vault-rag: no endpoint ${c.req.method} ${pathname} — the API has GET /api/search, POST /api/ask, GET /api/note, GET /api/related, GET /api/tags, GET /api/folders, GET /api/props and GET /api/status`,
  );
}
