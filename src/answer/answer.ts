import { checkCitations, type Source } from "./context.js";
import type { ChatMessage, Llm, TokenSink } from "./llm.js";

/** An answer and what it cites. */
export interface Answer {
  answer: string;
  /** Valid citations, in order of first use. */
  cited: number[];
  /** Citations that name no source given to the model. */
  invalid: number[];
  citedSources: Source[];
}

/**
 * Asks the model with an assembled context (system prompt, earlier turns, the sources and the
 * question), streaming tokens to `onToken`, and checks the citations of the reply. Aborting
 * `signal` stops the model.
 *
 * @example
 * ```ts
 * const ctx = assembleContext(question, hits);
 * const { answer, citedSources } = await answerWith(llm, ctx, { onToken: (t) => process.stdout.write(t) });
 * ```
 */
export async function answerWith(
  llm: Llm,
  ctx: { system: string; prompt: string; sources: Source[] },
  opts: { history?: ChatMessage[]; onToken?: TokenSink; signal?: AbortSignal } = {},
): Promise<Answer> {
  const messages: ChatMessage[] = [
    { role: "system", content: ctx.system },
    ...(opts.history ?? []),
    { role: "user", content: ctx.prompt },
  ];
  const answer = await llm.chat(messages, opts.onToken, opts.signal);
  const { cited, invalid } = checkCitations(answer, ctx.sources.length);
  return { answer, cited, invalid, citedSources: ctx.sources.filter((s) => cited.includes(s.n)) };
}

/** The warning for citations of sources that were never given, or `undefined` when there are none. */
export function invalidCitationWarning(invalid: number[], sourceCount: number): string | undefined {
  return invalid.length
    ? `warning: the answer cites ${invalid.map((n) => `[${n}]`).join(", ")}, but only ${sourceCount} source(s) were given — treat those statements with care`
    : undefined;
}
