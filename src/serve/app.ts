import { Hono, type Context } from "hono";
import { cors } from "hono/cors";
import { z } from "zod";
import type { VaultHandle } from "../library.js";
import { requestText, searchInput } from "../requests/index.js";
import { BUDGET_RANGE } from "../core/defaults.js";
import { askRoute } from "./ask-route.js";
import type { WebAssets } from "./assets.js";
import { errorResponse, Refusal } from "./errors.js";
import { hostGuard, notFound, originGuard, turnTaking } from "./middleware.js";
import { readRoutes } from "./read-routes.js";
import { tokenGuard } from "./token.js";

/** How far an indexing pass (`serve --watch`) has got, for `GET /api/status`. */
export interface IndexingState {
  phase: string;
  done: number;
  total: number;
}

/** What the app serves and how it guards it. */
export interface AppOptions {
  vault: VaultHandle;
  /** The bound address, for the Host check. */
  host: string;
  /** The bound port (a function: with port 0 it is known only once listening). */
  port: () => number;
  /** When set, every API request must present it as a bearer header (the page, opened at the printed URL, sends it). */
  token?: string;
  /** An origin allowed to call the API from a browser (no CORS headers at all when unset). */
  cors?: string;
  /** The chat model `POST /api/ask` uses. */
  llm: string;
  assets: WebAssets;
  /** The indexing pass under way, if any. */
  indexing?: () => IndexingState | undefined;
  watching?: boolean;
  /** How long an answer's event may wait for the client (default `SERVE_DEFAULTS.sendMs`; tests shorten it). */
  sendMs?: number;
  /** Searches and related notes answered at once, and how many more may wait (defaults `SERVE_DEFAULTS.requests` and `.waiting`). */
  requests?: number;
  waiting?: number;
}

/** The body of `POST /api/ask`: the question and the search arguments of MCP `search`, and a prompt budget. */
export const askInput = searchInput
  .omit({ query: true })
  .extend({
    question: requestText("the question, in plain words"),
    budget: z
      .number()
      .int()
      .min(BUDGET_RANGE.min)
      .max(BUDGET_RANGE.max)
      .optional()
      .describe("largest prompt, in estimated tokens"),
  })
  .strict();

/**
 * The one place an error becomes an answer: its status, `{error, code}` body and headers
 * ({@link errorResponse}). The app's `onError` and its not-found handler use it.
 *
 * @example
 * ```ts
 * app.onError((e, c) => renderError(c, e));
 * ```
 */
export const renderError = (c: Context, e: unknown) => {
  const { status, body, headers } = errorResponse(e);
  return c.json(body, status, headers);
};

/**
 * The HTTP app of `vault-rag serve`: the JSON API under `/api` and the web app at `/`, behind the
 * Host check, the token (when one is set), the size caps and, only when asked, CORS.
 *
 * @example
 * ```ts
 * const app = createApp({ vault: await openVault("/home/me/notes"), host: "127.0.0.1", port: () => 4321, llm: "ollama:llama3.2", assets: loadAssets() });
 * const res = await app.request("http://127.0.0.1:4321/api/search?q=motors", { headers: { host: "127.0.0.1:4321" } });
 * ```
 */ export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  app.onError((e, c) => renderError(c, e));
  app.notFound((c) => renderError(c, notFound(c, app.routes)));
  app.use("*", hostGuard(o));
  app.use("/api/*", originGuard(o));
  if (o.cors) app.use("/api/*", cors({ origin: o.cors, allowHeaders: ["Content-Type", "Authorization"] }));
  // `!== undefined`, not truthiness: an empty token must not switch the check off
  if (o.token !== undefined)
    app.use("*", tokenGuard(o.token, [...Object.keys(o.assets.modules ?? {}), ...Object.keys(o.assets.files ?? {})]));
  // only the endpoints that rank take turns: a note, tags, folders and status are quick reads, which
  // must not wait behind two searches (a search on an Ollama index waits on the model, seconds at a time)
  const inTurn = turnTaking(o);
  for (const p of ["/api/search", "/api/related"]) app.use(p, inTurn);
  readRoutes(app, o);
  askRoute(app, o);
  app.on(["PUT", "PATCH", "DELETE"], "/api/*", (c) => {
    throw new Refusal(405, "usage", `vault-rag: ${c.req.method} is not supported — the API only reads`);
  });

  const page = (c: Context, body: string | Uint8Array<ArrayBuffer>, type: string) => {
    c.header("Content-Type", type);
    c.header("Cache-Control", "no-cache");
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; connect-src 'self'; img-src 'self' data:; frame-src blob:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return c.body(body);
  };
  app.get("/", (c) => page(c, o.assets.html, "text/html; charset=utf-8"));
  app.get("/app.js", (c) => page(c, o.assets.js, "text/javascript; charset=utf-8"));
  app.get("/style.css", (c) => page(c, o.assets.css, "text/css; charset=utf-8"));
  for (const [at, js] of Object.entries(o.assets.modules ?? {}))
    app.get(at, (c) => page(c, js, "text/javascript; charset=utf-8"));
  for (const [at, f] of Object.entries(o.assets.files ?? {})) app.get(at, (c) => page(c, f.body, f.type));
  return app;
}
