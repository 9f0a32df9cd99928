import path from "node:path";
import {
  answerContext,
  askContext,
  createLlm,
  DEFAULT_LLM,
  invalidCitationWarning,
  NOTHING_FOUND,
  obsidianLink,
  type Source,
  withContextDefaults,
} from "../../answer/index.js";
import { isVaultKnown, locate, openForQuery } from "../open.js";
import { err, out, outText, stderrLogger, textOf } from "../io.js";
import { noResults, searchRequest, type SearchFlags } from "./search-cmd.js";

export interface AskFlags extends SearchFlags {
  llm?: string;
  contextOnly?: boolean;
  obsidianLinks?: boolean;
  budget?: number;
}

/** `[2] SMARS Robot > Motor wiring — robots/SMARS.md:12-30` (and an obsidian:// link when asked). */
export function sourceLine(s: Source, vault?: string): string {
  const link = vault ? `  ${obsidianLink(path.basename(vault), s.path)}` : "";
  return `[${s.n}] ${s.label} — ${s.path}:${s.start_line}-${s.end_line}${link}`;
}

/** `vault-rag ask <question...>`: an answer from the notes, with numbered citations. */
export async function runAsk(words: string[], o: AskFlags): Promise<void> {
  const question = words.join(" ");
  const loc = locate(o);
  const log = stderrLogger(!!o.verbose);
  const request = searchRequest(o);
  const t0 = performance.now();
  const { store, embedder } = await openForQuery(loc, {
    model: o.model,
    log,
    offline: o.offline,
    modelDir: o.modelDir,
  });
  let c;
  let nothing: string[] = [];
  try {
    c = await askContext({ store, embedder }, question, request, o.budget);
    // found nothing: why, as search says it (no prompt without sources is printed, no model asked)
    if (!c.sources.length) nothing = await noResults(store, request, c.reason, isVaultKnown(o, loc) ? loc : undefined);
  } finally {
    await store.close();
  }
  const { sources, prompt, system, dropped, reason } = c;
  const retrievalMs = performance.now() - t0;
  if (c.notice) err(`note: ${c.notice}`);
  const budget = withContextDefaults({ budgetTokens: o.budget }).budgetTokens;
  if (sources.length && c.tokens > budget)
    err(
      `note: the prompt is about ${c.tokens} tokens, over the budget of ${budget}: its best source alone is, and a source is given whole, never cut`,
    );
  if (o.verbose && dropped)
    err(`dropped ${dropped} weakest source(s) to fit the ${o.budget ?? "default"} token budget`);
  const vaultForLinks = o.obsidianLinks ? loc.vault : undefined;
  if (!sources.length) {
    if (o.json)
      out(
        JSON.stringify(
          o.contextOnly
            ? { system, prompt: null, sources: [], reason }
            : { answer: NOTHING_FOUND, sources: [], model: null, reason, timings: { retrievalMs } },
          null,
          2,
        ),
      );
    else if (!o.contextOnly) out(NOTHING_FOUND);
    for (const line of nothing) err(line);
    process.exitCode = 1;
    return;
  }
  if (o.contextOnly) {
    if (o.json) out(JSON.stringify({ system, prompt, sources }, null, 2));
    else outText(`${system}\n\n${prompt}`);
    return;
  }
  const llm = createLlm(o.llm ?? DEFAULT_LLM);
  let firstTokenMs: number | undefined;
  let printed = false;
  let result;
  try {
    result = await answerContext(llm, c, {
      onToken: (t) => {
        firstTokenMs ??= performance.now() - t0;
        if (!o.json) {
          process.stdout.write(textOf(t)); // a model may repeat a note's escape sequences
          printed = true;
        }
      },
    });
  } catch (e) {
    if (printed) process.stdout.write("\n");
    throw e;
  }
  const totalMs = performance.now() - t0;
  const { answer, invalid, citedSources } = result;
  const warning = invalidCitationWarning(invalid, sources.length);
  if (warning) err(warning);
  if (o.json) {
    out(
      JSON.stringify(
        {
          answer,
          sources: citedSources.map((s) => ({
            ...s,
            ...(vaultForLinks ? { link: obsidianLink(path.basename(vaultForLinks), s.path) } : {}),
          })),
          invalidCitations: invalid,
          model: llm.id,
          timings: {
            retrievalMs: Math.round(retrievalMs),
            firstTokenMs: firstTokenMs && Math.round(firstTokenMs),
            totalMs: Math.round(totalMs),
          },
        },
        null,
        2,
      ),
    );
    return;
  }
  out("");
  if (citedSources.length) outText(`\nSources:\n${citedSources.map((s) => sourceLine(s, vaultForLinks)).join("\n")}`);
  else
    outText(
      `\n(no sources cited; the model was given:)\n${sources.map((s) => sourceLine(s, vaultForLinks)).join("\n")}`,
    );
}
