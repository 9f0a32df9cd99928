import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ANSWER_CHARS, ollamaLlm, openAiLlm } from "../../src/answer/llm.js";
import { until } from "../support/children.js";

/** The requests whose whole answer the server has written. */
const written: string[] = [];

/** Writes each piece as its own TCP write, a little apart, so the client reads them as separate chunks. */
async function writeApart(res: http.ServerResponse, pieces: (string | Buffer)[], url: string) {
  for (const p of pieces) {
    res.write(p);
    await new Promise((r) => setTimeout(r, 15));
  }
  res.end();
  written.push(url);
}

let server: http.Server;
let base = "";
const sent: Record<string, (string | Buffer)[]> = {};
/** The requests whose client closed the connection before the whole answer was sent. */
const hungUp: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const pieces = sent[req.url!];
      if (!pieces) return void res.writeHead(404).end();
      res.on("close", () => !res.writableFinished && hungUp.push(req.url!));
      res.writeHead(200, { "content-type": req.url!.startsWith("/v1") ? "text/event-stream" : "application/x-ndjson" });
      void writeApart(res, pieces, req.url!);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("streamed answers", () => {
  it("SSE: an event whose JSON spans several data: lines, comments, and events split across chunks", async () => {
    const first = JSON.stringify({ choices: [{ delta: { content: "Motors " }, finish_reason: null }] });
    sent["/v1/chat/completions"] = [
      ": keep-alive\n\n",
      // one event, its JSON cut over three data: lines (joined with newlines, which JSON allows)
      `data: {"choices": [\ndata: {"delta": {"content": "The N20 "},\ndata:  "finish_reason": null}]}\n\n`,
      // one event cut mid-line across two chunks
      `data: ${first.slice(0, 20)}`,
      `${first.slice(20)}\n\n`,
      `event: message\ndata: ${JSON.stringify({ choices: [{ delta: { content: "stall." }, finish_reason: "stop" }] })}\r\n\r\n`,
      "data: [DONE]\n\n",
    ];
    const tokens: string[] = [];
    const answer = await openAiLlm("m", `http://${base}/v1`, "k").chat([{ role: "user", content: "q" }], (t) =>
      tokens.push(t),
    );
    expect(answer).toBe("The N20 Motors stall.");
    expect(tokens).toEqual(["The N20 ", "Motors ", "stall."]);
  });

  it("NDJSON: a line split across chunks, and a character split between its bytes", async () => {
    const line1 = JSON.stringify({ message: { content: "Le moteur chauffé" }, done: false }) + "\n";
    const bytes = Buffer.from(line1 + JSON.stringify({ message: { content: " trop." }, done: true }) + "\n");
    const cut = Buffer.from(line1).indexOf(Buffer.from("é")) + 1; // inside the two bytes of "é"
    sent["/api/chat"] = [bytes.subarray(0, 12), bytes.subarray(12, cut), bytes.subarray(cut)];
    const tokens: string[] = [];
    const answer = await ollamaLlm("m", base).chat([{ role: "user", content: "q" }], (t) => tokens.push(t));
    expect(answer).toBe("Le moteur chauffé trop.");
    expect(tokens).toEqual(["Le moteur chauffé", " trop."]);
  });

  it("a stream that ends before [DONE] or done:true is an error, not a short answer", async () => {
    sent["/v1/chat/completions"] = [
      `data: ${JSON.stringify({ choices: [{ delta: { content: "half" }, finish_reason: null }] })}\n\n`,
    ];
    await expect(openAiLlm("m", `http://${base}/v1`, "k").chat([{ role: "user", content: "q" }])).rejects.toThrow(
      /^vault-rag: the answer from .* stopped before it finished/,
    );
    sent["/api/chat"] = [JSON.stringify({ message: { content: "half" }, done: false }) + "\n"];
    await expect(ollamaLlm("m", base).chat([{ role: "user", content: "q" }])).rejects.toThrow(
      /^vault-rag: the answer from Ollama .* stopped before it finished/,
    );
  });

  it("a server that streams a megabyte without a line break is refused with one line, on both protocols", async () => {
    const noBreak = Array.from({ length: 12 }, () => "x".repeat(100_000));
    const message =
      "vault-rag: the model server sent over 1 MB without a line break — it does not stream as Ollama or an OpenAI-compatible server does";
    sent["/api/chat"] = noBreak;
    await expect(ollamaLlm("m", base).chat([{ role: "user", content: "q" }])).rejects.toThrow(message);
    sent["/v1/chat/completions"] = ["data: ", ...noBreak];
    await expect(openAiLlm("m", `http://${base}/v1`, "k").chat([{ role: "user", content: "q" }])).rejects.toThrow(
      message,
    );
  });

  it("reads the model no faster than the reader takes each token, and stops an answer that runs past the cap, closing the connection", async () => {
    const line = (content: string, done = false) => JSON.stringify({ message: { content }, done }) + "\n";
    sent["/api/chat"] = [line("one "), line("two "), line("three.", true)];
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    written.length = 0;
    const answer = ollamaLlm("m", base).chat([{ role: "user", content: "q" }], async (t) => {
      seen.push(t);
      if (seen.length === 1) await gate; // the reader takes its time over the first token
    });
    await until("the server to send every line", () => written.includes("/api/chat"));
    expect(seen).toEqual(["one "]);
    release();
    expect(await answer).toBe("one two three.");
    expect(seen).toEqual(["one ", "two ", "three."]);
    // a model that runs on: stopped at the cap, with an error that says what was printed
    const piece = "x".repeat(30_000);
    sent["/api/chat"] = Array.from({ length: 40 }, () => line(piece)); // 600 ms of answer
    hungUp.length = 0;
    written.length = 0;
    const tokens: string[] = [];
    await expect(ollamaLlm("m", base).chat([{ role: "user", content: "q" }], (t) => tokens.push(t))).rejects.toThrow(
      `vault-rag: the answer from Ollama at http://${base} ran past ${MAX_ANSWER_CHARS.toLocaleString("en-US")} characters and was stopped — what was printed is its start`,
    );
    expect(tokens.join("").length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(tokens).toHaveLength(3);
    // and the connection is closed then, so the model stops: before the stub has written it all
    await until("the client to hang up", () => hungUp.length > 0 || written.includes("/api/chat"));
    expect(hungUp).toEqual(["/api/chat"]);
  });
});
