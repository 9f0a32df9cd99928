/**
 * The answer stage's defaults, in a module of their own with no imports, so that the interfaces can
 * show them in their help without loading the chat clients.
 */

/**
 * Default chat model for `--llm`.
 *
 * @example
 * ```ts
 * createLlm(DEFAULT_LLM); // ollama:llama3.2 on http://localhost:11434
 * ```
 */
export const DEFAULT_LLM = "ollama:llama3.2";
