/**
 * The CLI's flags that several commands share, and the parsers that word a bad value in one line.
 * The search flags are derived from the search parameters' one table ({@link SEARCH_PARAMS}).
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { BUDGET_RANGE, CONTEXT_DEFAULTS, DEFAULT_LLM, FILTER_EXAMPLES, type SearchRequest } from "../core/defaults.js";
import { COUNT_LIMITS, flagName, SEARCH_PARAMS, type SearchParam } from "../requests/params.js";

/** A whole-number flag's parser, from `min` to `max`. */
export const int =
  (name: string, min = 0, max: number = COUNT_LIMITS.cli) =>
  (v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}, got "${v}"`);
    return Number(v);
  };
/** The `--port` parser. */
export const port = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) > 65535)
    throw new InvalidArgumentError(`--port must be a whole number from 0 to 65535, got "${v}"`);
  return Number(v);
};
const ratio = (name: string) => (v: string) => {
  const n = Number(v);
  if (!(n >= 0 && n <= 1) || v.trim() === "")
    throw new InvalidArgumentError(`${name} must be a number from 0 to 1, got "${v}"`);
  return n;
};
const json = (flag: string) => (v: string) => {
  const e = `'${FILTER_EXAMPLES[flag === "--where-document" ? "whereDocument" : "where"]}'`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new InvalidArgumentError(`${flag} must be JSON, e.g. ${e}, got ${v}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError(`${flag} must be a JSON object, e.g. ${e}, got ${v}`);
  return parsed as Record<string, unknown>;
};
const collect = (v: string, prev: string[] = []) => [...prev, v];

/**
 * The CLI flag of a search parameter ({@link SEARCH_PARAMS}): its name, value, parser, limits
 * ({@link COUNT_LIMITS}`.cli`) and default come from the parameter's entry.
 *
 * @example
 * ```ts
 * searchOption(SEARCH_PARAMS[0]).flags; // "-k, --top-k <n>"
 * ```
 */
export function searchOption(p: SearchParam): Option {
  const long = `--${flagName(p)}`;
  if (p.kind === "switch") return new Option(`--no-${flagName(p)}`, `turn off: ${p.help}`);
  if (p.kind === "switch-or-text") return new Option(`${long} ${p.value ?? "[name]"}`, p.help);
  const o = new Option(`${p.short ? `-${p.short}, ` : ""}${long} ${p.value ?? "<n>"}`, p.help);
  if (p.kind === "count") o.argParser(int(long, p.min, COUNT_LIMITS.cli));
  else if (p.kind === "ratio") o.argParser(ratio(long));
  else if (p.kind === "list") o.argParser(collect);
  else if (p.kind === "json") o.argParser(json(long));
  else if (p.kind === "choice") o.choices(p.choices ?? []);
  return p.default === undefined ? o : o.default(p.default);
}

/** What `--help` says of an index's own model that sends text off this machine. */
export const REMOTE_HELP =
  "\nAn index names the model that built it, and the index travels with the vault: a model that sends text off this machine (openai:<model>, or ollama:<model> at an address other than loopback) is used only when --model or $VAULT_RAG_ALLOW_REMOTE names it — a comma-separated list of models, e.g. VAULT_RAG_ALLOW_REMOTE=openai:text-embedding-3-small or ollama:*. Otherwise the command refuses and sends nothing. A transformers:<model> the index names is read from this machine only (the Hugging Face cache or --model-dir) unless --model or $VAULT_RAG_ALLOW_REMOTE names it (transformers:* for all).\n";

/** Adds the search flags shared by `search` and the commands that retrieve. */
export function addSearchFlags(cmd: Command): Command {
  cmd
    .option(
      "--vault <dir>",
      "vault folder (default: $VAULT_RAG_VAULT, else the nearest folder holding .vault-rag/, else the working directory)",
    )
    .option(
      "--db <path>",
      "index file or chroma://host:port/<collection> (default: $VAULT_RAG_DB, else <vault>/.vault-rag/index.db)",
    );
  for (const p of SEARCH_PARAMS) {
    cmd.addOption(searchOption(p));
    // a parameter that is off unless chosen is also turned off by name (over $VAULT_RAG_RERANK)
    if (p.kind === "switch-or-text")
      cmd.addOption(new Option(`--no-${flagName(p)}`, `turn off --${flagName(p)} (and $VAULT_RAG_RERANK)`));
  }
  return cmd
    .option("--model <id>", "embedding model; must match the index's (see VAULT_RAG_ALLOW_REMOTE below)")
    .addHelpText("after", REMOTE_HELP)
    .option("--offline", "transformers models: never download (also HF_HUB_OFFLINE=1)")
    .option(
      "--model-dir <dir>",
      "transformers models: a folder of models copied by hand (default: $VAULT_RAG_MODEL_DIR)",
    )
    .option("--json", "print JSON")
    .addOption(
      new Option("--color <when>", "colour the hits: auto (on a terminal, unless NO_COLOR is set), always or never")
        .choices(["auto", "always", "never"])
        .default("auto"),
    )
    .option("--verbose", "say which index is used, scores and timings");
}

/** The search flags plus those of commands that answer with a model (`ask`, `chat`). */
export function addAnswerFlags(cmd: Command): Command {
  return addSearchFlags(cmd)
    .option("--llm <spec>", "chat model: ollama:<model> or openai:<model>", DEFAULT_LLM)
    .option(
      "--budget <tokens>",
      `largest prompt, in estimated tokens (default ${CONTEXT_DEFAULTS.budgetTokens})`,
      int("--budget", BUDGET_RANGE.min, BUDGET_RANGE.max),
    );
}

/**
 * The flags of commands that search, as commander parses them: the CLI's own (which index, how to
 * print) and the search parameters under their commander names (`topK`, `tag`), read by
 * {@link searchRequest}.
 */
export interface SearchFlags {
  vault?: string;
  db?: string;
  json?: boolean;
  verbose?: boolean;
  model?: string;
  offline?: boolean;
  modelDir?: string;
  color?: string;
  [searchParam: string]: unknown;
}

/**
 * The search request that a command's parsed search flags mean (the same request the library, MCP
 * and the HTTP API build), read under each flag's commander name (`--tag` → `tag` → `tags`).
 *
 * @example
 * ```ts
 * searchRequest({ topK: 3, tag: ["pico"], expand: true }); // { topK: 3, tags: ["pico"], expand: true }
 * ```
 */
export function searchRequest(flags: SearchFlags): SearchRequest {
  const out: Record<string, unknown> = {};
  for (const p of SEARCH_PARAMS) {
    const v = flags[searchOption(p).attributeName()];
    if (v !== undefined) out[p.key] = v;
  }
  return out as SearchRequest;
}
