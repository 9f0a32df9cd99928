import type { Fix } from "../errors.js";
import {
  search,
  searchOptionsFor,
  type SearchContext,
  type SearchRequest,
  type SearchResult,
} from "../search/index.js";
import { answerWith, type Answer } from "./answer.js";
import { assembleContext, type Source } from "./context.js";
import type { ChatMessage, Llm, TokenSink } from "./llm.js";

/** What is said when the notes hold nothing for a question (no model is called). */
export const NOTHING_FOUND = "The notes contain nothing that matches this question.";

/** The retrieval half of asking: the hits and the prompt built from them. */
export interface AskContext {
  question: string;
  hits: SearchResult["hits"];
  sources: Source[];
  system: string;
  prompt: string;
  /** Sources left out to fit the token budget. */
  dropped: number;
  /** The prompt's estimated tokens: over the budget only when its best source alone is (a source is never cut). */
  tokens: number;
  /** Why there are no hits, when there are none. */
  reason?: string;
  /** What may fix the `reason` (an empty index: build it). */
  fix?: Fix;
  /** How the search ran, when a reader should know (see `SearchResult.notice`). */
  notice?: string;
}

/**
 * The first half of every ask (library `ask`, `vault-rag ask`, `chat`): search with the request's
 * filters and assemble the prompt within the budget.
 *
 * @example
 * ```ts
 * const c = await askContext({ store, embedder }, "why did the motors cut out?", { tags: ["robots"] });
 * c.sources[0].path; // "daily/2026-03-14.md"
 * ```
 */
export async function askContext(
  ctx: SearchContext,
  question: string,
  request: SearchRequest = {},
  budgetTokens?: number,
): Promise<AskContext> {
  const { hits, reason, fix, notice } = await search(ctx, question, await searchOptionsFor(ctx.store, request));
  return {
    question,
    hits,
    reason,
    ...(fix ? { fix } : {}),
    ...(notice ? { notice } : {}),
    ...assembleContext(question, hits, { budgetTokens }),
  };
}

/**
 * The second half: the model's answer from an {@link AskContext}, citations checked; with no
 * sources the model is not called and the answer is {@link NOTHING_FOUND}. The model's server is
 * checked first ({@link Llm.check}: a few seconds at most), so one that does not answer fails at once.
 *
 * @example
 * ```ts
 * const { answer, citedSources } = await answerContext(createLlm("ollama:llama3.2"), c, { onToken: (t) => process.stdout.write(t) });
 * ```
 */
export async function answerContext(
  llm: Llm,
  c: AskContext,
  opts: { history?: ChatMessage[]; onToken?: TokenSink; signal?: AbortSignal } = {},
): Promise<Answer & { sources: Source[]; model: string }> {
  if (!c.sources.length)
    return { answer: NOTHING_FOUND, cited: [], invalid: [], citedSources: [], sources: [], model: llm.id };
  // a server that takes the connection but never answers fails here within seconds; the chat
  // itself has no time limit, since a local model may think for minutes before its first token
  await llm.check();
  return { ...(await answerWith(llm, c, opts)), sources: c.sources, model: llm.id };
}
