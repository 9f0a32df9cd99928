import { createParser } from "eventsource-parser";
import { ollamaBaseUrl } from "../embed/ollama.js";
import { VaultRagError } from "../errors.js";
import { DEFAULT_LLM } from "./defaults.js";

/** A chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A chat model that streams its answer. */
export interface Llm {
  readonly id: string;
  /**
   * Streams tokens to `onToken` and resolves with the whole answer. The model is read no faster
   * than `onToken` takes each token (a promise it returns is awaited: a reader that does not read
   * holds the model back instead of piling tokens up), and no further than {@link MAX_ANSWER_CHARS}.
   * Aborting `signal` closes the request to the model (which then stops generating) and rejects.
   */
  chat(messages: ChatMessage[], onToken?: TokenSink, signal?: AbortSignal): Promise<string>;
  /** Checks that the server answers and has the model, without running it; throws the error a chat would. */
  check(): Promise<void>;
}

/** Where a streamed answer's tokens go; a promise it returns is waited for before the next token is read. */
export type TokenSink = (t: string) => unknown;

/**
 * The longest answer read from a model, in characters (about 25,000 tokens; an answer from a few
 * passages of notes is a few thousand): a model that runs on is stopped there with an error.
 */
export const MAX_ANSWER_CHARS = 100_000;

/** The answer so far with a token added, or the error of an answer that ran past {@link MAX_ANSWER_CHARS}. */
function grown(answer: string, t: string, from: string): string {
  if (answer.length + t.length > MAX_ANSWER_CHARS)
    throw new VaultRagError(
      "llm_failed",
      `vault-rag: the answer from ${from} ran past ${MAX_ANSWER_CHARS.toLocaleString("en-US")} characters and was stopped — what was printed is its start`,
    );
  return answer + t;
}

/** How long the check before a chat waits for the model's server to answer. */
const CHECK_MS = 5000;

/**
 * A GET of the model's server before a chat: `unreachable` when no server takes the connection,
 * `silent` when one takes it and says nothing within {@link CHECK_MS} (a black-holed address
 * is silent, not unreachable).
 */
async function get(
  url: string,
  headers: Record<string, string>,
  unreachable: string,
  silent: string,
): Promise<Response> {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(CHECK_MS) });
  } catch (err) {
    throw new VaultRagError("llm_failed", (err as Error).name === "TimeoutError" ? silent : unreachable);
  }
}

/** The likely cause of a 404 from an OpenAI-compatible server: a base URL without `/v1`. */
function missingV1(base: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(base).pathname;
  } catch {
    return undefined;
  }
  return /\/v\d+$/.test(pathname)
    ? undefined
    : `vault-rag: ${base}/chat/completions does not exist (HTTP 404) — the base URL "${base}" lacks /v1, which most OpenAI-compatible servers need: set OPENAI_BASE_URL=${base}/v1`;
}

export { DEFAULT_LLM };

/**
 * Creates a chat model from a spec: `ollama:<model>` or `openai:<model>`.
 *
 * @example
 * ```ts
 * const llm = createLlm("ollama:llama3.2");
 * await llm.chat([{ role: "user", content: "hi" }], (t) => process.stdout.write(t));
 * ```
 */
export function createLlm(
  spec: string,
  opts: { ollamaHost?: string; openaiBaseUrl?: string; openaiApiKey?: string } = {},
): Llm {
  const i = spec.indexOf(":");
  const provider = i < 0 ? spec : spec.slice(0, i);
  const model = i < 0 ? "" : spec.slice(i + 1);
  if (provider === "ollama" && model) return ollamaLlm(model, opts.ollamaHost);
  if (provider === "openai" && model) return openAiLlm(model, opts.openaiBaseUrl, opts.openaiApiKey);
  throw new VaultRagError(
    "usage",
    `vault-rag: unknown --llm "${spec}" — use ollama:<model> (e.g. ollama:llama3.2) or openai:<model>`,
  );
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  unreachable: string,
  signal?: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch {
    throw new VaultRagError("llm_failed", signal?.aborted ? STOPPED : unreachable);
  }
}

/** Why a chat whose signal was aborted failed. */
const STOPPED = "vault-rag: the answer was stopped before it finished (its request was cancelled)";

async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => "");
  try {
    const j = JSON.parse(text) as { error?: string | { message?: string } };
    return (typeof j.error === "string" ? j.error : j.error?.message) ?? text;
  } catch {
    return text.slice(0, 200);
  }
}

/**
 * The longest line a streamed answer may send: one NDJSON message or SSE field is a token or two,
 * so a megabyte without a line break is a server that does not speak the protocol (which would
 * otherwise grow the buffer without end).
 */
export const MAX_STREAM_LINE_CHARS = 1024 * 1024;

/** Reads a streamed body as text, chunk by chunk; a cut connection, or a line without end, becomes a clear error. */
async function* texts(res: Response, cut: string): AsyncGenerator<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let open = 0; // characters since the last line break
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        throw new VaultRagError("llm_failed", cut);
      }
      if (chunk.done) break;
      const text = decoder.decode(chunk.value, { stream: true });
      const nl = text.lastIndexOf("\n");
      open = nl >= 0 ? text.length - nl - 1 : open + text.length;
      if (open > MAX_STREAM_LINE_CHARS)
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: the model server sent over ${MAX_STREAM_LINE_CHARS / 1024 / 1024} MB without a line break — it does not stream as Ollama or an OpenAI-compatible server does`,
        );
      yield text;
    }
    finished = true;
  } finally {
    // a reader that stops early (an answer over the cap, a line that is not JSON, an error from the
    // model) closes the connection, so the model stops generating for nobody
    if (!finished) await reader.cancel().catch(() => {});
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * NDJSON: one JSON value per line, a line possibly split across chunks. Kept by hand: it is eight
 * lines, and no library does less.
 */
async function* lines(res: Response, cut: string): AsyncGenerator<string> {
  let buf = "";
  for await (const text of texts(res, cut)) {
    buf += text;
    // only the new text is searched for line breaks: a long line is not scanned again per chunk
    if (!text.includes("\n")) continue;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
    }
  }
  if (buf.trim()) yield buf;
}

/** Server-sent events' `data` (multi-line `data:` fields joined by newlines, comments skipped), by eventsource-parser. */
async function* sseData(res: Response, cut: string): AsyncGenerator<string> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const text of texts(res, cut)) {
    parser.feed(text);
    yield* ready.splice(0);
  }
}

/** Ollama's `/api/chat`, streaming NDJSON. */
export function ollamaLlm(model: string, host?: string): Llm {
  const base = ollamaBaseUrl(host);
  return {
    id: `ollama:${model}`,
    async check() {
      const res = await get(
        `${base}/api/tags`,
        {},
        `vault-rag: Ollama is not reachable at ${base} — start it with \`ollama serve\` or choose another model with --llm`,
        `vault-rag: the server at ${base} took the connection but did not answer within ${CHECK_MS / 1000} s — check that it is Ollama and that it is not stuck, or choose another model with --llm`,
      );
      if (!res.ok) return;
      const tags = (await res.json().catch(() => ({}))) as { models?: { name?: string; model?: string }[] };
      const names = (tags.models ?? []).flatMap((m) => [m.name, m.model]).filter((n): n is string => !!n);
      if (tags.models && !names.some((n) => n === model || n === `${model}:latest`))
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: Ollama at ${base} has no model "${model}" — run \`ollama pull ${model}\` or choose another with --llm`,
        );
    },
    async chat(messages, onToken, signal) {
      const res = await post(
        `${base}/api/chat`,
        { model, messages, stream: true },
        {},
        `vault-rag: Ollama is not reachable at ${base} — start it with \`ollama serve\` or choose another model with --llm`,
        signal,
      );
      if (res.status === 404)
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: Ollama at ${base} has no model "${model}" — run \`ollama pull ${model}\` or choose another with --llm`,
        );
      if (!res.ok)
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: Ollama at ${base} answered HTTP ${res.status}: ${(await errorText(res)).replace(/\s+/g, " ").trim()}`,
        );
      const cut = `vault-rag: the answer from Ollama at ${base} stopped before it finished — what was printed is incomplete`;
      let answer = "";
      let done = false;
      for await (const line of lines(res, cut)) {
        if (!line.trim()) continue;
        let msg: { message?: { content?: string }; done?: boolean; error?: string };
        try {
          msg = JSON.parse(line);
        } catch {
          throw new VaultRagError(
            "llm_failed",
            `vault-rag: Ollama at ${base} sent a line that is not JSON: ${line.slice(0, 80)}`,
          );
        }
        if (msg.error) throw new VaultRagError("llm_failed", `vault-rag: Ollama stopped with an error: ${msg.error}`);
        const t = msg.message?.content ?? "";
        if (t) {
          answer = grown(answer, t, `Ollama at ${base}`);
          await onToken?.(t);
        }
        if (msg.done) done = true;
      }
      if (!done) throw new VaultRagError("llm_failed", cut);
      return answer;
    },
  };
}

/** Any OpenAI-compatible `/chat/completions`, streaming server-sent events. */
export function openAiLlm(model: string, baseUrl?: string, apiKey?: string): Llm {
  const base = (baseUrl ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "");
  const key = apiKey ?? process.env.OPENAI_API_KEY;
  const unreachable = `vault-rag: the OpenAI-compatible server at ${base} is not reachable — check OPENAI_BASE_URL or choose another --llm`;
  return {
    id: `openai:${model}`,
    async check() {
      const res = await get(
        `${base}/models`,
        key ? { authorization: `Bearer ${key}` } : {},
        unreachable,
        `vault-rag: the server at ${base} took the connection but did not answer within ${CHECK_MS / 1000} s — check that it is the OpenAI-compatible server and that it is not stuck (OPENAI_BASE_URL), or choose another --llm`,
      );
      const v1 = res.status === 404 ? missingV1(base) : undefined;
      if (v1) throw new VaultRagError("llm_failed", v1.replace("/chat/completions", "/models"));
    },
    async chat(messages, onToken, signal) {
      const res = await post(
        `${base}/chat/completions`,
        { model, messages, stream: true },
        key ? { authorization: `Bearer ${key}` } : {},
        unreachable,
        signal,
      );
      const v1 = res.status === 404 ? missingV1(base) : undefined;
      if (v1) throw new VaultRagError("llm_failed", v1);
      if (res.status === 404)
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: ${base} has no model "${model}" (HTTP 404: ${(await errorText(res)).replace(/\s+/g, " ").trim()}) — check the name`,
        );
      if (!res.ok)
        throw new VaultRagError(
          "llm_failed",
          `vault-rag: ${base} answered HTTP ${res.status}: ${(await errorText(res)).replace(/\s+/g, " ").trim()}`,
        );
      const cut = `vault-rag: the answer from ${base} stopped before it finished — what was printed is incomplete`;
      let answer = "";
      let done = false;
      for await (const event of sseData(res, cut)) {
        const data = event.trim();
        if (data === "[DONE]") {
          done = true;
          break;
        }
        let msg: {
          choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
          error?: { message?: string };
        };
        try {
          msg = JSON.parse(data);
        } catch {
          throw new VaultRagError(
            "llm_failed",
            `vault-rag: ${base} sent an event that is not JSON: ${data.slice(0, 80)}`,
          );
        }
        if (msg.error)
          throw new VaultRagError("llm_failed", `vault-rag: ${base} stopped with an error: ${msg.error.message}`);
        const t = msg.choices?.[0]?.delta?.content ?? "";
        if (t) {
          answer = grown(answer, t, base);
          await onToken?.(t);
        }
        if (msg.choices?.[0]?.finish_reason) done = true;
      }
      if (!done) throw new VaultRagError("llm_failed", cut);
      return answer;
    },
  };
}
