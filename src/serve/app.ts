import path from "node:path";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { VaultRagError } from "../errors.js";
import type { VaultHandle } from "../library.js";
import {
  getNoteInput,
  relatedInput,
  requestText,
  searchInput,
  searchRequestOf,
  turns,
  validate,
} from "../requests/index.js";
import { BUDGET_RANGE } from "../core/defaults.js";
import { checkRequest } from "../core/answer.js";
import type { WebAssets } from "./assets.js";
import { SERVE_DEFAULTS } from "./defaults.js";
import { errorResponse } from "./errors.js";
import { hostAllowed, shownHost } from "./guard.js";
import { canonicalHost } from "./host.js";
import { readParams, SEARCH_QUERY, SEARCH_QUERY_NAMES } from "./params.js";
import { lastCountStatus } from "./status-count.js";
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

const fail = (c: Context, e: unknown) => {
  const { status, body } = errorResponse(e);
  return c.json(body, status);
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
 */
export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  const v = o.vault;
  const sendMs = o.sendMs ?? SERVE_DEFAULTS.sendMs;

  app.onError((e, c) => fail(c, e));
  app.notFound((c) => {
    const pathname = new URL(c.req.url).pathname;
    // an endpoint asked with another method than its own (POST /api/search, GET /api/ask): a 405
    // that names it, read from the routes themselves
    const own = pathname.startsWith("/api/")
      ? [...new Set(app.routes.filter((r) => r.path === pathname && r.method !== "ALL").map((r) => r.method))]
      : [];
    if (own.length)
      return c.json(
        {
          error: `vault-rag: ${pathname} takes ${own.join(" or ")}, not ${c.req.method} — send ${own[0]} ${pathname}`,
          code: "usage",
        },
        405,
        { Allow: own.join(", ") },
      );
    return c.json(
      {
        error: `vault-rag: no endpoint ${c.req.method} ${pathname} — the API has GET /api/search, POST /api/ask, GET /api/note, GET /api/related, GET /api/tags, GET /api/folders and GET /api/status`,
        code: "not_found",
      },
      404,
    );
  });

  app.use("*", async (c, next) => {
    const url = new URL(c.req.url);
    if (url.pathname.length + url.search.length > SERVE_DEFAULTS.urlChars)
      return c.json(
        {
          error: `vault-rag: the request URL is over ${SERVE_DEFAULTS.urlChars} characters — send a shorter query or filter`,
          code: "usage",
        },
        414,
      );
    // the Host header, and the authority of an absolute-form target (`GET http://name/…`), which
    // HTTP says wins over the header: both must name this server
    const header = c.req.header("host");
    const host = hostAllowed(header, o.host, o.port()) ? url.host : header;
    const bound = `${shownHost(canonicalHost(o.host))}:${o.port()}`;
    if (!hostAllowed(host, o.host, o.port()))
      return c.json(
        {
          error: `vault-rag: refused a request for host "${host ?? ""}" — this server answers only ${bound} (a guard against DNS rebinding); open http://${bound}/`,
          code: "forbidden",
        },
        403,
      );
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("X-Frame-Options", "DENY");
    await next();
  });

  // a page of another origin may not call the API: a request that says where it comes from (Origin,
  // or a browser's Sec-Fetch-Site for an <img> or a no-cors fetch, which send no Origin) must come
  // from this server's own page or the --cors origin. Without either (curl, scripts) it may. A
  // helper showed any web page could time searches to learn what the notes hold, and stall the server
  app.use("/api/*", async (c, next) => {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    const own = `http://${c.req.header("host") ?? ""}`.toLowerCase();
    const allowed = origin !== undefined && (origin.toLowerCase() === own || origin === o.cors);
    if ((origin !== undefined && !allowed) || ((site === "cross-site" || site === "same-site") && !allowed))
      return c.json(
        {
          error: `vault-rag: refused a request from ${origin === undefined ? `another site (Sec-Fetch-Site: ${site})` : `the page at "${origin}"`} — this API answers only its own page${o.cors ? ` and ${o.cors}` : ""}; to call it from another page's origin, start serve with --cors <origin>`,
          code: "forbidden",
        },
        403,
      );
    await next();
  });

  if (o.cors) app.use("/api/*", cors({ origin: o.cors, allowHeaders: ["Content-Type", "Authorization"] }));

  // `!== undefined`, not truthiness: an empty token must not switch the check off
  if (o.token !== undefined) app.use("*", tokenGuard(o.token));

  // the endpoints that rank take turns: a flood waits in a bounded line, or gets a 503
  const waiting = o.waiting ?? SERVE_DEFAULTS.waiting;
  const line = turns(o.requests ?? SERVE_DEFAULTS.requests, waiting);
  const inTurn: MiddlewareHandler = async (c, next) => {
    if (line.full)
      return c.json(
        {
          error: `vault-rag: ${waiting} requests are already waiting for an answer — send again in a moment`,
          code: "busy",
        },
        503,
        { "Retry-After": "1" },
      );
    // a client that went away while it waited gets nothing, so its request is not run
    await line.run(async () => (c.req.raw.signal.aborted ? void (c.res = c.body(null, 503)) : next()));
  };
  // only the endpoints that rank: a note, tags, folders and status are quick reads, which must not
  // wait behind two searches (a search on an Ollama index waits on the model, seconds at a time)
  for (const p of ["/api/search", "/api/related"]) app.use(p, inTurn);

  app.get("/api/search", async (c) => {
    const raw = readParams(new URL(c.req.url).searchParams, SEARCH_QUERY);
    if (raw.query === undefined)
      throw new VaultRagError("usage", `vault-rag: the search query is empty — give it as ?q=…`);
    const a = validate(searchInput, raw, SEARCH_QUERY_NAMES);
    const { query, ...rest } = a;
    const { hits, reason, hints, expansion, spelling, notice, stale } = await v.search(query, searchRequestOf(rest));
    // no hits: why, and the hints the CLI prints and MCP returns (the folder or tag that exists);
    // hits found through synonyms say which, as --verbose does; a question ranked by keywords alone
    // says so; hits from notes changed or deleted since the last index are named
    return c.json(
      hits.length
        ? {
            hits,
            ...(expansion ? { expansion } : {}),
            ...(spelling ? { spelling } : {}),
            ...(notice ? { notice } : {}),
            ...(stale ? { stale } : {}),
          }
        : { hits: [], reason, hints: hints ?? [], ...(notice ? { notice } : {}) },
    );
  });

  app.get("/api/note", async (c) => {
    const a = validate(
      getNoteInput,
      readParams(new URL(c.req.url).searchParams, { path: ["path", "string"], heading: ["heading", "string"] }),
    );
    return c.json(await v.note(a.path, { heading: a.heading }));
  });

  app.get("/api/related", async (c) => {
    const a = validate(
      relatedInput,
      readParams(new URL(c.req.url).searchParams, {
        path: ["path", "string"],
        k: ["k", "number"],
        unlinked_only: ["unlinked_only", "boolean"],
      }),
    );
    // a client that goes away stops the comparison of a long note
    return c.json(await v.related(a.path, { k: a.k, unlinkedOnly: a.unlinked_only, signal: c.req.raw.signal }));
  });

  const noParams = (c: Context) => readParams(new URL(c.req.url).searchParams, {});
  app.get("/api/tags", async (c) => (noParams(c), c.json(await v.tags())));
  app.get("/api/folders", async (c) => (noParams(c), c.json(await v.folders())));
  const statusNow = lastCountStatus(v, () => !!o.indexing?.());
  app.get("/api/status", async (c) => {
    noParams(c);
    let status;
    try {
      status = await statusNow();
    } catch (e) {
      // a first index being built (by --watch, or by another process) holds the lock: say so
      if (!(e instanceof VaultRagError) || e.code !== "index_locked") throw e;
      status = {
        vault: v.vault,
        index: v.db,
        model: null,
        dimensions: 0,
        notes: 0,
        chunks: 0,
        lastIndexed: null,
        stale: 0,
      };
      return c.json({
        ...status,
        name: path.basename(v.vault),
        llm: o.llm,
        watching: !!o.watching,
        indexing: o.indexing?.() ?? { phase: "locked", done: 0, total: 0 },
      });
    }
    return c.json({
      ...status,
      name: path.basename(v.vault),
      llm: o.llm,
      watching: !!o.watching,
      indexing: o.indexing?.() ?? null,
    });
  });

  let asking = 0; // answers being written now (at most SERVE_DEFAULTS.asks)
  app.post(
    "/api/ask",
    bodyLimit({
      maxSize: SERVE_DEFAULTS.bodyBytes,
      onError: (c) =>
        c.json(
          {
            error: `vault-rag: the request body is over ${SERVE_DEFAULTS.bodyBytes} bytes — send a shorter question`,
            code: "usage",
          },
          413,
        ),
    }),
    async (c) => {
      if (!/^application\/json\b/i.test(c.req.header("content-type") ?? ""))
        return c.json(
          {
            error: `vault-rag: POST /api/ask takes JSON — send \`Content-Type: application/json\` and a body like {"question": "…"}`,
            code: "usage",
          },
          415,
        );
      // a compressed body would be read as bytes that are no JSON: say what to send instead
      const coding = (c.req.header("content-encoding") ?? "").trim().toLowerCase();
      if (coding && coding !== "identity")
        return c.json(
          {
            error: `vault-rag: the request body is encoded as ${JSON.stringify(coding)} (Content-Encoding), which this server does not read — send the JSON uncompressed`,
            code: "usage",
          },
          415,
        );
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (e) {
        throw new VaultRagError("usage", `vault-rag: the request body is not JSON (${(e as Error).message})`);
      }
      const a = validate(askInput, body, {}, "body");
      const { question, budget, ...rest } = a;
      // a bad filter is a 400 before the answer's stream starts, as /api/search answers it
      checkRequest(question, searchRequestOf(rest));
      if (asking >= SERVE_DEFAULTS.asks)
        return c.json(
          {
            error: `vault-rag: ${asking} answers are being written already, the most this server writes at once — ask again when one is done`,
            code: "busy",
          },
          429,
          { "Retry-After": "1" },
        );
      asking++;
      return streamSSE(c, async (stream) => {
        // each event waits for the client to take the last (the model is read no faster); a client
        // that takes nothing for `sendMs` is gone as far as the answer goes
        const send = async (event: string, data: unknown) => {
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), sendMs)));
          const sent = await Promise.race([stream.writeSSE({ event, data: JSON.stringify(data) }), late]);
          clearTimeout(timer);
          if (sent === "late") stop.abort();
        };
        // a client that goes away (as do all when the server closes) stops the model, which would
        // otherwise go on generating an answer nobody reads, and keep the process from exiting
        const stop = new AbortController();
        const abort = () => stop.abort();
        const gone = c.req.raw.signal;
        gone.addEventListener("abort", abort, { once: true });
        stream.onAbort(abort);
        if (gone.aborted) abort();
        let pending: Promise<void> = Promise.resolve();
        try {
          const r = await v.ask(question, {
            ...searchRequestOf(rest),
            llm: o.llm,
            budgetTokens: budget,
            signal: stop.signal,
            onSources: (sources) => void (pending = pending.then(() => send("sources", sources))),
            onToken: (t) => (pending = pending.then(() => send("token", { text: t }))),
          });
          await pending;
          await send("done", {
            answer: r.answer,
            cited: r.cited,
            invalid: r.invalid,
            model: r.model,
            // nothing found: why, and the hints a search gives (a tag no note has)
            ...(r.reason ? { reason: r.reason } : {}),
            ...(r.hints?.length ? { hints: r.hints } : {}),
          });
        } catch (e) {
          await pending;
          if (!stop.signal.aborted) await send("error", errorResponse(e).body);
        } finally {
          asking--;
          gone.removeEventListener("abort", abort);
        }
      });
    },
  );
  app.on(["PUT", "PATCH", "DELETE"], "/api/*", (c) =>
    c.json({ error: `vault-rag: ${c.req.method} is not supported — the API only reads`, code: "usage" }, 405),
  );

  const page = (c: Context, body: string, type: string) => {
    c.header("Content-Type", type);
    c.header("Cache-Control", "no-cache");
    c.header(
      "Content-Security-Policy",
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    return c.body(body);
  };
  app.get("/", (c) => page(c, o.assets.html, "text/html; charset=utf-8"));
  app.get("/app.js", (c) => page(c, o.assets.js, "text/javascript; charset=utf-8"));
  app.get("/style.css", (c) => page(c, o.assets.css, "text/css; charset=utf-8"));
  return app;
}
