import { RE2JS } from "re2js";
import { VaultRagError } from "../errors.js";

/** A compiled `whereDocument` regular expression: linear-time, in Chroma's (RE2/Rust) dialect. */
export interface DocRegex {
  /** True when the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** The steps the pattern compiled to (see {@link REGEX_LIMITS}). */
  steps: number;
}

const cache = new Map<string, DocRegex>();
const CACHE_MAX = 256;

/** The limits on `whereDocument` patterns, in one place. */
export const REGEX_LIMITS = {
  /**
   * The most steps a pattern may compile to. Matching is linear in the text but costs up to one
   * step per character, and counted repeats are written out (`\p{L}{1000}` is 1,002 steps): thirty
   * of them held a 1 MB vault's server for 61 s. Everyday patterns compile to under 200
   * (`DRV\d{4}` is 9).
   */
  steps: 1000,
  /** The most steps all the patterns of one whereDocument filter may compile to together. */
  filterSteps: 10_000,
  /** How long the patterns of one query may run over an index's passages, in ms, from their first test. */
  budgetMs: 5000,
};

let deadline = Infinity;
// the budget a query's first test starts (undefined: none pending): the time to build an index or
// read vectors before the first passage is tested is not the pattern's
let pending: number | undefined;

/**
 * Runs `fn` (one query that tests `whereDocument` clauses: patterns and `$contains` texts) with a
 * time budget, counted from its first test: a clause still testing passages after `ms`
 * ({@link REGEX_LIMITS}) stops the query with a `filter_invalid` error that says so, so no filter
 * can hold a server's only thread for long.
 *
 * @example
 * ```ts
 * withDocumentBudget(() => db.prepare("SELECT rowid FROM chunks c WHERE vr_regexp(?, c.text)").all(p));
 * ```
 */
export function withDocumentBudget<T>(fn: () => T, ms = REGEX_LIMITS.budgetMs): T {
  const outer = { deadline, pending };
  if (deadline === Infinity && pending === undefined) pending = ms;
  try {
    return fn();
  } finally {
    ({ deadline, pending } = outer);
  }
}

/**
 * Compiles a `whereDocument` `$regex`/`$not_regex` pattern on RE2JS, a linear-time engine (no
 * backtracking, so a pattern such as `^(a+)+$` cannot hang the process). Its dialect is that of
 * Chroma's server: look-around and back-references do not exist and are refused with a message
 * that names the fix; inline flags such as `(?i)` work. Compiled patterns are cached.
 *
 * @example
 * ```ts
 * compileDocRegex("^(a+)+$").test("a".repeat(100_000) + "!"); // false, in milliseconds
 * compileDocRegex("motor(?= driver)"); // throws: ... uses look-around, which Chroma's regex dialect does not have ...
 * ```
 */
export function compileDocRegex(pattern: string, op = "$regex"): DocRegex {
  let r = cache.get(pattern);
  if (r) return r;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    throw refusal(pattern, op, (err as Error).message);
  }
  const steps = programSize(re);
  if (steps > REGEX_LIMITS.steps)
    throw new VaultRagError(
      "filter_invalid",
      `vault-rag: the regular expression ${shownPattern(pattern)} in whereDocument "${op}" is too large to run: ${steps.toLocaleString("en-US")} steps once its repeats are written out, at most ${REGEX_LIMITS.steps.toLocaleString("en-US")} — use smaller counted repeats (x{1000} is a thousand steps) or * and +`,
    );
  r = {
    steps,
    test: (text: string) => {
      if (overDeadline()) throw overBudget(`the regular expression ${shownPattern(pattern)}`);
      return re.test(text);
    },
  };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(pattern, r);
  return r;
}

/**
 * Whether a passage holds a `whereDocument` `$contains` text, within the query's time budget
 * ({@link withDocumentBudget}): a filter of thousands of clauses over a large vault costs clauses ×
 * text (10,000 `$not_contains` held a server for 12 s), and SQLite's own `instr` cannot be stopped.
 *
 * @example
 * ```ts
 * containsText("DRV8833", "The DRV8833 runs hot."); // true
 * ```
 */
export function containsText(needle: string, text: string): boolean {
  if (overDeadline()) throw overBudget("the filter's $contains clauses");
  return text.includes(needle);
}

/** Starts the pending budget at a query's first test; true once it has run out. */
function overDeadline(): boolean {
  if (pending !== undefined) {
    deadline = performance.now() + pending;
    pending = undefined;
  }
  return performance.now() > deadline;
}

/** The number of instructions RE2JS compiled a pattern to (its program, which it keeps as `re2Input.prog`). */
function programSize(re: RE2JS): number {
  const prog = (re as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog;
  return prog?.inst?.length ?? 0;
}

/** A pattern as a message quotes it: at most 120 characters. */
function shownPattern(pattern: string): string {
  return JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern);
}

function overBudget(what: string): VaultRagError {
  return new VaultRagError(
    "filter_invalid",
    `vault-rag: ${what} in whereDocument ran for over ${REGEX_LIMITS.budgetMs / 1000} s over the index's passages and was stopped — make it simpler, or narrow the search with where or another whereDocument clause`,
  );
}

function refusal(pattern: string, op: string, reason: string): VaultRagError {
  const shown = `the regular expression ${shownPattern(pattern)} in whereDocument "${op}"`;
  const dialect = "which Chroma's regex dialect does not have";
  if (/`\(\?<?[=!]/.test(reason))
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} uses look-around, ${dialect} — rewrite it without (?=, (?!, (?<= or (?<!`,
    );
  const backref = /invalid escape sequence: `(\\(?:[1-9]|k))/.exec(reason);
  if (backref)
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} uses a back-reference (${backref[1]}), ${dialect} — write the repeated text out instead`,
    );
  // RE2 writes counted repeats out: it refuses over 1,000 (a repeat inside another multiplied),
  // and a count whose least is over its most
  const count = /invalid repeat count: `(\{(\d+)(?:,(\d*))?\})`/.exec(reason);
  if (count && count[3] && Number(count[2]) > Number(count[3]))
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} has the repeat ${count[1]}, whose least count is over its most — write the smaller count first ({${count[3]},${count[2]}})`,
    );
  if (count)
    return new VaultRagError(
      "filter_invalid",
      `vault-rag: ${shown} repeats too many times at ${count[1]}: counted repeats are written out when a pattern runs (a repeat inside another counts as their product), so they must stay under ${REGEX_LIMITS.steps.toLocaleString("en-US")} steps in all — use * or +, or smaller counts`,
    );
  const why = reason.replace(/^error parsing regexp: /, "");
  return new VaultRagError(
    "filter_invalid",
    `vault-rag: invalid regular expression ${shownPattern(pattern)} in whereDocument "${op}": ${why} — escape a special character with \\ to match it literally`,
  );
}
