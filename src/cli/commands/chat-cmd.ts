import readline from "node:readline";
import {
  buildFilter,
  invalidCitationWarning,
  withSearchDefaults,
  type ChatMessage,
  type Source,
} from "../../core/answer.js";
import { SEARCH_DEFAULTS, type SearchMode } from "../../core/defaults.js";
import { VaultRagError } from "../../errors.js";
import { formatHits } from "../output.js";
import { noteLinker, useLinks } from "../hyperlink.js";
import { useColor } from "../color.js";
import { cliMessage, isVaultKnown, locate, openCore } from "../open.js";
import { err, out, outText, stderrLogger, textOf } from "../io.js";
import { sourceLine, type AskFlags } from "./ask-cmd.js";
import { startResident } from "../resident.js";
import { searchRequest } from "../flags.js";
import { noResults } from "./search-cmd.js";

export interface ChatFlags extends AskFlags {
  retrievalOnly?: boolean;
}

const HELP = `Commands:
  /tag <tag>      only notes with this tag (repeat to add; /tag alone clears)
  /folder <dir>   only notes in this folder (/folder alone clears)
  /since <when>   only notes changed since 90d, 2w, 2026-06-01 (/since alone clears)
  /k <n>          number of hits
  /mode <m>       dense, keyword or hybrid
  /sources        the sources of the last answer
  /timings        retrieval time of the last turn
  /clear          forget the conversation (filters stay)
  /help           this list
  /exit           leave`;

/**
 * `vault-rag chat`: an interactive session. The model and index load once; each turn retrieves
 * afresh for the new question alone (earlier questions would pull the old topic's notes back in;
 * the model still sees the conversation), then answers (or, with --retrieval-only, shows the hits).
 */
export async function runChat(o: ChatFlags): Promise<void> {
  const loc = locate(o);
  const log = stderrLogger(!!o.verbose);
  const v = await openCore(loc, o, { model: o.model, log, offline: o.offline, modelDir: o.modelDir });
  await v.ready();
  let llm = o.retrievalOnly ? undefined : v.llm(o.llm);
  const flags = searchRequest(o);
  const state: ChatState = {
    tags: [...(flags.tags ?? [])],
    folder: flags.folder,
    since: flags.since === undefined ? undefined : String(flags.since),
    k: flags.topK ?? SEARCH_DEFAULTS.topK,
    mode: (flags.mode ?? SEARCH_DEFAULTS.mode) as SearchMode,
    history: [],
    lastSources: [],
    lastMs: 0,
  };
  const tty = !!process.stdin.isTTY;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: tty,
    historySize: 200,
  });
  // Ctrl-C at the prompt leaves the session on a fresh line
  rl.on("SIGINT", () => {
    process.stdout.write("\n");
    rl.close();
  });
  const closed = new Promise<void>((resolve) => rl.once("close", resolve));
  // lines typed or piped while the model is checked and loaded wait here (readline drops lines no one listens for)
  const input = rl[Symbol.asyncIterator]();
  if (llm) {
    // the chat model is checked once, now, not found missing on every question
    try {
      await llm.check();
    } catch (e) {
      if (!(e instanceof VaultRagError)) throw e;
      err(cliMessage(e));
      const yes =
        tty &&
        /^y(es)?$/i.test(
          (
            await Promise.race([
              new Promise<string>((resolve) =>
                rl.question("Continue in retrieval-only mode (hits, no answers)? [y/N] ", resolve),
              ),
              closed.then(() => ""),
            ])
          ).trim(),
        );
      if (!yes) {
        if (!tty)
          err(
            "vault-rag: chat stopped: no chat model — start it, or run `vault-rag chat --retrieval-only` to see the hits without answers",
          );
        rl.close();
        await v.close();
        process.exitCode = 1;
        return;
      }
      llm = undefined;
    }
  }
  const [, resident] = await Promise.all([v.warm(), startResident(loc, o)]); // the model now; the CLI's endpoint
  out(`vault-rag chat — ${v.db}${llm ? ` with ${llm.id}` : " (retrieval only)"}. /help for commands.`);
  if (tty) rl.setPrompt("> ");
  const ask = async (question: string) => {
    const t = performance.now();
    const request = {
      ...flags,
      tags: state.tags,
      folder: state.folder,
      since: state.since,
      topK: state.k,
      mode: state.mode,
    };
    const ctx = await v.askContext(question, { ...request, budgetTokens: o.budget });
    state.lastMs = performance.now() - t;
    // found nothing: why, and a hint for a filter that names nothing (`/tag nosuch`)
    if (!ctx.hits.length) return outText((await noResults(v, ctx, isVaultKnown(o, loc))).join("\n"));
    state.lastSources = ctx.sources;
    if (!llm) {
      const color = useColor(o.color, process.stdout);
      const link = useLinks(color, process.stdout) ? noteLinker(loc.vault) : undefined;
      return out(formatHits(ctx.hits, { query: question, color, numbered: true, link }));
    }
    const { answer, invalid, citedSources } = await v.answer(ctx, {
      llm,
      history: state.history.slice(-4),
      onToken: (tok) => process.stdout.write(textOf(tok)),
    });
    out("");
    state.history.push({ role: "user", content: question }, { role: "assistant", content: answer });
    const warning = invalidCitationWarning(invalid, ctx.sources.length);
    if (warning) err(warning);
    if (citedSources.length) outText(citedSources.map((s) => sourceLine(s)).join("\n"));
  };
  try {
    if (tty) rl.prompt();
    for (let next = await input.next(); !next.done; next = await input.next()) {
      const raw = next.value;
      const line = raw.trim();
      if (line) {
        try {
          if (line.startsWith("/")) {
            if (!chatCommand(state, line)) break;
          } else await ask(line);
        } catch (e) {
          if (!(e instanceof VaultRagError)) throw e;
          err(cliMessage(e)); // a bad command or an unreachable model ends the turn, not the session
        }
      }
      if (tty) rl.prompt();
    }
  } finally {
    rl.close();
    await Promise.all([resident?.close(), v.close()]);
  }
}

/** What a chat session keeps between turns: its filters, the conversation, the last sources. */
interface ChatState {
  tags: string[];
  folder: string | undefined;
  since: string | undefined;
  k: number;
  mode: SearchMode;
  history: ChatMessage[];
  lastSources: Source[];
  lastMs: number;
}

/** Runs a `/command` of the chat (`/tag`, `/k`, `/mode`, …); false for `/exit`. */
function chatCommand(state: ChatState, line: string): boolean {
  const [cmd, ...rest] = line.slice(1).split(/\s+/);
  const arg = rest.join(" ").trim();
  switch (cmd) {
    case "exit":
    case "quit":
      return false;
    case "help":
      out(HELP);
      break;
    case "tag":
      if (arg) state.tags.push(arg);
      else state.tags = [];
      outText(`tags: ${state.tags.join(", ") || "(any)"}`);
      break;
    case "folder":
      state.folder = arg || undefined;
      outText(`folder: ${state.folder ?? "(any)"}`);
      break;
    case "since":
      if (arg) buildFilter({ since: arg }); // validates now, with the usual message
      state.since = arg || undefined;
      outText(`since: ${state.since ?? "(any time)"}`);
      break;
    case "k":
      if (!/^\d+$/.test(arg) || Number(arg) < 1)
        throw new VaultRagError("usage", `vault-rag: /k needs a whole number of at least 1, got "${arg}"`);
      state.k = Number(arg);
      out(`k: ${state.k}`);
      break;
    case "mode":
      state.mode = withSearchDefaults({ mode: arg as SearchMode }).mode; // validates, with the usual message
      out(`mode: ${state.mode}`);
      break;
    case "sources":
      outText(state.lastSources.length ? state.lastSources.map((s) => sourceLine(s)).join("\n") : "(no sources yet)");
      break;
    case "timings":
      out(`retrieval: ${state.lastMs.toFixed(1)} ms`);
      break;
    case "clear":
      state.history = [];
      state.lastSources = [];
      out("conversation cleared");
      break;
    default:
      throw new VaultRagError("usage", `vault-rag: unknown command "/${cmd}" — /help lists them`);
  }
  return true;
}
