/** `POST /api/ask`: an answer from the notes, streamed as server-sent events. */
import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { checkRequest } from "../core/answer.js";
import { VaultRagError } from "../errors.js";
import { searchRequestOf, validate } from "../requests/index.js";
import type { AskDone } from "../shared/api.js";
import { askInput, type AppOptions } from "./app.js";
import { SERVE_DEFAULTS } from "./defaults.js";
import { errorResponse, Refusal } from "./errors.js";

/**
 * Adds `POST /api/ask` to the app: the sources, then the answer token by token, then the checked
 * answer, as server-sent events; at most `SERVE_DEFAULTS.asks` answers are written at once.
 *
 * @example
 * ```ts
 * askRoute(app, o);
 * ```
 */
export function askRoute(app: Hono, o: AppOptions): void {
  const v = o.vault;
  const sendMs = o.sendMs ?? SERVE_DEFAULTS.sendMs;
  let asking = 0; // answers being written now (at most SERVE_DEFAULTS.asks)
  app.post(
    "/api/ask",
    bodyLimit({
      maxSize: SERVE_DEFAULTS.bodyBytes,
      onError: () => {
        throw new Refusal(
          413,
          "usage",
          `vault-rag: the request body is over ${SERVE_DEFAULTS.bodyBytes} bytes — send a shorter question`,
        );
      },
    }),
    async (c) => {
      if (!/^application\/json\b/i.test(c.req.header("content-type") ?? ""))
        throw new Refusal(
          415,
          "usage",
          `vault-rag: POST /api/ask takes JSON — send \`Content-Type: application/json\` and a body like {"question": "…"}`,
        );
      // a compressed body would be read as bytes that are no JSON: say what to send instead
      const coding = (c.req.header("content-encoding") ?? "").trim().toLowerCase();
      if (coding && coding !== "identity")
        throw new Refusal(
          415,
          "usage",
          `vault-rag: the request body is encoded as ${JSON.stringify(coding)} (Content-Encoding), which this server does not read — send the JSON uncompressed`,
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
      const request = searchRequestOf(rest);
      await checkRequest(v, question, request);
      if (asking >= SERVE_DEFAULTS.asks)
        throw new Refusal(
          429,
          "busy",
          `vault-rag: ${asking} answers are being written already, the most this server writes at once — ask again when one is done`,
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
          } satisfies AskDone);
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
}
