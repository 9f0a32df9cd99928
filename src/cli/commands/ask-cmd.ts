import path from "node:path";
import {
  invalidCitationWarning,
  NOTHING_FOUND,
  obsidianLink,
  type Source,
  withContextDefaults,
} from "../../core/answer.js";
import { isVaultKnown, locate } from "../open.js";
import { openReader } from "../resident.js";
import { err, out, outText, stderrLogger, textOf } from "../io.js";
import { searchRequest, type SearchFlags } from "../flags.js";
import type { SearchRequest } from "../../core/defaults.js";
import type { VaultHandle } from "../../library.js";
import type { Location } from "../open.js";
import { noResults } from "./search-cmd.js";
import { pageCitation, placeOf } from "../../shared/place.js";

export interface AskFlags extends SearchFlags {
  llm?: string;
  contextOnly?: boolean;
  obsidianLinks?: boolean;
  budget?: number;
}

/**
 * `[2] SMARS Robot > Motor wiring — robots/SMARS.md:12-30`, a PDF page's `[2] attention.pdf, p. 14 —
 * papers/attention.pdf:p14` (and an obsidian:// link when asked).
 */
export function sourceLine(s: Source, vault?: string): string {
  const link = vault ? `  ${obsidianLink(path.basename(vault), s.path)}` : "";
  const cited = pageCitation(s);
  if (cited) return `[${s.n}] ${cited} — ${placeOf(s)}${link}`;
  return `[${s.n}] ${s.label} — ${s.path}:${s.start_line}-${s.end_line}${link}`;
}

/** `vault-rag ask <question...>`: an answer from the notes, with numbered citations. */
export async function runAsk(words: string[], o: AskFlags): Promise<void> {
  const question = words.join(" ");
  const loc = locate(o);
  const log = stderrLogger(!!o.verbose);
  const request = searchRequest(o);
  const t0 = performance.now();
  const v = await openReader(loc, o, {
    model: o.model,
    log,
    offline: o.offline,
    modelDir: o.modelDir,
    // the chat model runs in this process; a resident process finds the sources
    answers: !o.contextOnly,
  });
  try {
    await askWith(v, question, o, { request, loc, t0 });
  } finally {
    await v.close();
  }
}

/** `ask` on an opened vault: the context, then (unless `--context-only`) the model's answer. */
async function askWith(
  v: VaultHandle,
  question: string,
  o: AskFlags,
  { request, loc, t0 }: { request: SearchRequest; loc: Location; t0: number },
): Promise<void> {
  const c = await v.askContext(question, { ...request, budgetTokens: o.budget });
  // found nothing: why, as search says it (no prompt without sources is printed, no model asked)
  const nothing = c.sources.length ? [] : await noResults(v, c, isVaultKnown(o, loc));
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
  const llm = v.llm(o.llm);
  let firstTokenMs: number | undefined;
  let printed = false;
  let result;
  try {
    result = await v.answer(c, {
      llm,
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
