import http from "node:http";
import type { AddressInfo } from "node:net";

/** A running LLM stub: its `host:port`, the requests it received, and how to stop it. */
export interface LlmStub {
  /** `127.0.0.1:<port>`, for OLLAMA_HOST (or `http://${base}/v1` for OPENAI_BASE_URL). */
  base: string;
  /** The chat requests it received (POSTs). */
  requests: { url: string; body: any }[];
  /**
   * For streaming tests: while `held` is true, a `slow` answer sends each piece only after `next()`,
   * and `sent` counts the pieces written so far, so a test can see that a piece arrived before the
   * next one was sent.
   */
  gate: { held: boolean; sent: number; next(): void };
  close(): Promise<void>;
}

/**
 * Speaks Ollama's /api/chat (NDJSON) and OpenAI's /v1/chat/completions (SSE) with scripted replies,
 * chosen by the model name: `bad-cite` cites a source that was never given (`group-cite` in one
 * bracket with a real one), `missing` is a 404,
 * `cut` drops the connection mid-answer; any other model answers with one cited sentence in three
 * pieces, 5 ms apart (`slow`: 200 ms apart, or one at a time through `gate`).
 */
export function startLlmStub(): Promise<LlmStub> {
  const requests: LlmStub["requests"] = [];
  let opened: () => void = () => {};
  const gate: LlmStub["gate"] = { held: false, sent: 0, next: () => opened() };
  const pause = (model: string) =>
    model === "slow" && gate.held
      ? new Promise<void>((r) => (opened = r))
      : new Promise((r) => setTimeout(r, model === "slow" ? 200 : 5));
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", async () => {
      const body = JSON.parse(raw || "{}");
      // the chat requests only: the check before a chat (GET /api/tags, GET /v1/models) gets a 404 below
      if (req.method === "POST") requests.push({ url: req.url!, body });
      const pieces =
        body.model === "bad-cite"
          ? ["The N20 motors stall [1]", " and the moon is cheese [9]."]
          : body.model === "group-cite"
            ? ["The N20 motors stall [1, 9]."]
            : ["The DRV8833 overheated", " on carpet, so it was swapped", " for a TB6612FNG [1]."];
      if (req.url === "/api/chat") {
        if (body.model === "missing") {
          res.writeHead(404, { "content-type": "application/json" });
          return res.end(JSON.stringify({ error: `model "missing" not found, try pulling it first` }));
        }
        res.writeHead(200, { "content-type": "application/x-ndjson" });
        gate.sent = 0;
        for (const [i, p] of pieces.entries()) {
          res.write(
            JSON.stringify({ model: body.model, message: { role: "assistant", content: p }, done: false }) + "\n",
          );
          gate.sent++;
          if (body.model === "cut" && i === 1) return void setTimeout(() => res.destroy(), 30);
          await pause(body.model);
        }
        return res.end(
          JSON.stringify({
            model: body.model,
            message: { role: "assistant", content: "" },
            done: true,
            done_reason: "stop",
          }) + "\n",
        );
      }
      if (req.url === "/v1/chat/completions") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        for (const p of pieces)
          res.write(
            `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })}\n\n`,
          );
        res.write(
          `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
        );
        return res.end("data: [DONE]\n\n");
      }
      res.writeHead(404).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        base: `127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        gate,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}
