export {
  assembleContext,
  checkCitations,
  estimateTokens,
  obsidianLink,
  CONTEXT_DEFAULTS,
  withContextDefaults,
  BUDGET_RANGE,
  SYSTEM_PROMPT,
  type Source,
  type ContextOptions,
  type ContextOptionsWithDefaults,
} from "./context.js";
export {
  createLlm,
  ollamaLlm,
  openAiLlm,
  DEFAULT_LLM,
  MAX_ANSWER_CHARS,
  type Llm,
  type ChatMessage,
  type TokenSink,
} from "./llm.js";
export { answerWith, invalidCitationWarning, type Answer } from "./answer.js";
export { askContext, answerContext, NOTHING_FOUND, type AskContext } from "./ask.js";
