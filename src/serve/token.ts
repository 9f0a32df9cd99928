import type { MiddlewareHandler } from "hono";
import { Refusal } from "./errors.js";
import { presentedToken, tokenMatches } from "./guard.js";

/** The paths of the web app's page, entry script and stylesheet: they hold no notes, and a browser loads them without a header. */
const PAGE_PATHS = ["/", "/app.js", "/style.css"];

/**
 * The cookie that carried the token in a browser in earlier versions. Cookies are not scoped to a
 * port, so every other service on the host received it: it is set no more, and cleared when a
 * browser still sends it.
 */
const OLD_TOKEN_COOKIE = "vault_rag_token";

/**
 * The token check of a server bound beyond loopback. Every API request must present the token as
 * `Authorization: Bearer <token>`. The page, its stylesheet and scripts, and the files they load (`modules`: the modules beside `/app.js`, KaTeX's stylesheet and fonts) are served without it:
 * the page opened at the printed URL (`/?token=…`) keeps the token in the tab's `sessionStorage`,
 * which only this origin (scheme, host and port) reads, and sends it as that header. No cookie
 * carries it, so no other port of the host ever receives it. A wrong token in the printed URL's
 * place is a 401.
 *
 * @example
 * ```ts
 * app.use("*", tokenGuard("0123456789abcdef0123"));
 * ```
 */
export function tokenGuard(token: string, modules: string[] = []): MiddlewareHandler {
  const open = new Set([...PAGE_PATHS, ...modules]);
  return async (c, next) => {
    if (new RegExp(`(^|;)\\s*${OLD_TOKEN_COOKIE}=`).test(c.req.header("cookie") ?? ""))
      c.header("Set-Cookie", `${OLD_TOKEN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`);
    if (c.req.method === "GET" && open.has(c.req.path)) {
      const given = c.req.query("token");
      if (c.req.path === "/" && given !== undefined && !tokenMatches(given, token))
        return c.text("vault-rag: wrong token — open the URL vault-rag serve printed at start-up\n", 401);
      return next();
    }
    if (tokenMatches(presentedToken(c.req.header("authorization")), token)) return next();
    throw new Refusal(
      401,
      "unauthorized",
      "vault-rag: this server needs its token — send `Authorization: Bearer <token>`, or open the URL vault-rag serve printed at start-up",
    );
  };
}
