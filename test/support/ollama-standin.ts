import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startLlmStub, type LlmStub } from "./llm-stub.js";

/** A running stand-in Ollama server. */
export interface OllamaStandIn {
  /** `127.0.0.1:<port>`, for OLLAMA_HOST. */
  host: string;
  /** The models pulled, in order. */
  pulled: string[];
  /** Each `/api/embed` request: the model and its inputs. */
  embeds: { model: string; input: string[] }[];
  /** The chat stub behind `/api/chat` and `/v1/chat/completions`. */
  chat: LlmStub;
  close(): Promise<void>;
}

/**
 * A local server that speaks the part of Ollama's API vault-rag uses, as Ollama does:
 * `POST /api/pull` makes a model available; `POST /api/embed` answers 404 for a model not pulled
 * (Ollama's own message) and otherwise 32-d vectors derived from each input's hash; everything else
 * (`/api/chat`, the check before it) goes to the chat stub of llm-stub.ts. Only the models are
 * stand-ins; nothing reaches the network.
 *
 * @example
 * ```ts
 * const ollama = await startOllamaStandIn();
 * // OLLAMA_HOST=ollama.host vault-rag index --full --model ollama:nomic-embed-text
 * ```
 */
export async function startOllamaStandIn(): Promise<OllamaStandIn> {
  const chat = await startLlmStub();
  const pulled: string[] = [];
  const embeds: OllamaStandIn["embeds"] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d) => chunks.push(d));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      if (req.url === "/api/pull" || req.url === "/api/embed") {
        const body = JSON.parse(raw.toString("utf8") || "{}");
        const model = String(body.model ?? "").replace(/:latest$/, "");
        if (req.url === "/api/pull") {
          pulled.push(model);
          return json(res, 200, { status: "success" });
        }
        if (!pulled.includes(model))
          return json(res, 404, { error: `model "${model}" not found, try pulling it first` });
        embeds.push({ model, input: body.input });
        return json(res, 200, {
          model,
          embeddings: (body.input as string[]).map((t) => {
            const h = createHash("sha256").update(t).digest();
            return Array.from({ length: 32 }, (_, i) => (h[i] - 127.5) / 128);
          }),
        });
      }
      // the chat stub answers the rest
      const [hostname, port] = chat.base.split(":");
      const forward = http.request(
        { hostname, port: Number(port), path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", () => json(res, 502, { error: "chat stub unreachable" }));
      forward.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    pulled,
    embeds,
    chat,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await chat.close();
    },
  };
}
