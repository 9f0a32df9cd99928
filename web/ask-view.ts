/** The ask view: a question answered from the notes, streamed, with each citation linked to its source. */
import { withToken } from "./api.js";
import { $, el, visibleBidi } from "./dom.js";
import { withMath } from "./math.js";
import type { ApiError, AskDone, Source } from "./shared/api.js";
import { filters, obsidian } from "./state.js";

let asking: AbortController | undefined;

/** Renders the answer so far, with each valid `[n]` a link to its source. */
function renderAnswer(text: string, count: number): void {
  const box = $("answer");
  const f = document.createDocumentFragment();
  let last = 0;
  // [1] and [1, 3], as the citations are read (checkCitations): each number links to its source, and
  // one that names no source given is flagged, as the CLI warns of it
  for (const m of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    f.append(text.slice(last, m.index));
    const ns = m[1].split(/\s*,\s*/).map(Number);
    const one = (n: number, shown: string) =>
      n >= 1 && n <= count
        ? el("a", { href: `#source-${n}`, class: "cite" }, shown)
        : el("mark", { class: "cite-invalid", title: `no source [${n}] was given` }, shown);
    if (ns.length === 1) f.append(one(ns[0], m[0]));
    else {
      f.append("[");
      ns.forEach((n, i) => f.append(...(i ? [", "] : []), one(n, String(n))));
      f.append("]");
    }
    last = m.index! + m[0].length;
  }
  f.append(text.slice(last));
  box.replaceChildren(f);
}

/** The server-sent events of a response body, as they come: each event's name and its JSON data. */
async function* serverEvents(body: ReadableStream<BufferSource>): AsyncGenerator<{ event: string; payload: unknown }> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return;
    buf += chunk.value.replace(/\r\n/g, "\n");
    let cut: number;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      yield { event, payload: JSON.parse(data.join("\n") || "null") };
    }
  }
}

/** Sends the question with the search's filters; the response, or `undefined` with the state line saying why not. */
async function postQuestion(
  question: string,
  ctrl: AbortController,
  state: HTMLElement,
): Promise<Response | undefined> {
  const body: Record<string, unknown> = { question };
  if (filters.tags.size) body.tags = [...filters.tags];
  if (filters.folder !== undefined) body.folder = filters.folder;
  if (filters.since) body.since = filters.since;
  let res: Response;
  try {
    res = await fetch("/api/ask", {
      method: "POST",
      headers: withToken({ "content-type": "application/json" }),
      body: JSON.stringify(body),
      signal: ctrl.signal,
    });
  } catch (e) {
    // a newer question took over before this one's answer began: its state stands
    if (!ctrl.signal.aborted) state.textContent = `vault-rag: the server cannot be reached (${(e as Error).message})`;
    return undefined;
  }
  if (!res.ok || !res.body) {
    const e = (await res.json().catch(() => ({ error: res.statusText }))) as ApiError;
    state.textContent = e.error;
    return undefined;
  }
  return res;
}

/** Shows the sources an answer is given, each with its `[n]` anchor; their number. */
function showSources(list: Source[]): number {
  $("sources-title").hidden = !list.length;
  $("sources").replaceChildren(
    ...list.map((s) =>
      el(
        "li",
        { id: `source-${s.n}`, tabindex: "-1" },
        el("strong", {}, `[${s.n}] `),
        el("span", { class: "crumb" }, withMath(visibleBidi(s.label))),
        " ",
        el("code", {}, `${s.path}:${s.start_line}-${s.end_line}`),
        " ",
        el("a", { href: obsidian(s.path), class: "obsidian" }, "Open in Obsidian"),
      ),
    ),
  );
  return list.length;
}

/** Shows the checked answer: citations that name no source given, or why there were no sources. */
function showDone(done: AskDone, count: number, state: HTMLElement): void {
  const banner = $("banner");
  renderAnswer(done.answer, count);
  state.textContent = done.invalid?.length
    ? `The answer cites ${done.invalid.map((n) => `[${n}]`).join(", ")}, but only ${count} source${count === 1 ? " was" : "s were"} given.`
    : // nothing found: why, and what may fix it
      [done.reason ? `No sources: ${done.reason}.` : "", ...(done.hints ?? [])].filter(Boolean).join(" ");
  if (banner.dataset.kind === "llm") {
    banner.hidden = true;
    delete banner.dataset.kind;
  }
}

/** Shows an error the stream ended with; a model that cannot be reached also says so in the banner. */
function showError(e: ApiError, state: HTMLElement): void {
  const banner = $("banner");
  state.textContent = e.error;
  if (e.code === "llm_failed") {
    banner.hidden = false;
    banner.dataset.kind = "llm";
    banner.textContent = `The language model cannot be reached, so Ask cannot answer; search and related notes still work. ${e.error}`;
  }
}

/** Asks a question (a newer one stops it): the sources, then the answer as it is written, then its checks. */
export async function ask(question: string): Promise<void> {
  asking?.abort();
  const ctrl = (asking = new AbortController());
  const state = $("ask-state");
  state.textContent = "Finding sources…";
  $("answer").replaceChildren();
  $("sources").replaceChildren();
  $("sources-title").hidden = true;
  const res = await postQuestion(question, ctrl, state);
  if (!res) return;
  let text = "";
  let count = 0;
  let ended = false; // a done or error event came: anything else is an answer cut off
  const cutOff = (why: string) =>
    (state.textContent = `vault-rag: the answer stopped before it finished (${why})${text ? " — what is shown is its start" : ""}`);
  try {
    for await (const { event, payload } of serverEvents(res.body!)) {
      if (event === "sources") {
        count = showSources(payload as Source[]);
        state.textContent = count ? "Answering…" : "";
      } else if (event === "token") {
        text += (payload as { text: string }).text;
        renderAnswer(text, count);
      } else if (event === "done") {
        ended = true;
        showDone(payload as AskDone, count, state);
      } else if (event === "error") {
        ended = true;
        showError(payload as ApiError, state);
      }
    }
  } catch (e) {
    if (!ctrl.signal.aborted) cutOff(`the connection to the server was lost: ${(e as Error).message}`);
    return; // else a newer question took over
  }
  if (!ended && !ctrl.signal.aborted) cutOff("the server closed the stream");
}
