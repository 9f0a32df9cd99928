/**
 * Colour on the terminal: when to use it (`--color auto|always|never`, `NO_COLOR`, a TTY) and the
 * few styles the CLI prints with (ripgrep's: magenta paths, green line numbers, bold red matches).
 */
import { VaultRagError } from "../errors.js";

export type ColorChoice = "auto" | "always" | "never";

/**
 * Whether to colour a stream: `always` and `never` win; `auto` colours a TTY unless `NO_COLOR` is
 * set to anything but the empty string (https://no-color.org).
 *
 * @example
 * ```ts
 * useColor("auto", process.stdout, process.env); // true on a terminal without NO_COLOR
 * useColor("always", fs.createWriteStream("x")); // true
 * ```
 */
export function useColor(
  choice: string | undefined,
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const c = choice ?? "auto";
  if (c === "always") return true;
  if (c === "never") return false;
  if (c !== "auto")
    throw new VaultRagError("usage", `vault-rag: --color "${choice}" is not a choice — use auto, always or never`);
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return !!stream.isTTY;
}

/** The styles the CLI uses; all of them return the text unchanged when colour is off. */
export interface Paint {
  path(s: string): string;
  line(s: string): string;
  label(s: string): string;
  match(s: string): string;
  dim(s: string): string;
  on: boolean;
}

const sgr = (open: string) => (s: string) => `\x1b[${open}m${s}\x1b[0m`;

/**
 * The styles, coloured or plain.
 *
 * @example
 * ```ts
 * paint(true).path("robots/SMARS.md"); // "\x1b[35mrobots/SMARS.md\x1b[0m"
 * paint(false).path("robots/SMARS.md"); // "robots/SMARS.md"
 * ```
 */
export function paint(on: boolean): Paint {
  const id = (s: string) => s;
  if (!on) return { path: id, line: id, label: id, match: id, dim: id, on };
  return { path: sgr("35"), line: sgr("32"), label: sgr("1;36"), match: sgr("1;31"), dim: sgr("2"), on };
}

const STOP = new Set(
  "a an and are as at be by can do does did for from had has have how i if in into is it its me my no not of on or so than that the their them then there these they this to up was we were what when where which who why will with you your".split(
    " ",
  ),
);

/**
 * Longest word a highlight looks for, and most words it looks for: a longer word is in no note
 * worth marking, and a pattern of one 13,000-letter word overflowed V8's regex compiler (a crash).
 */
const HIGHLIGHT_MAX_WORD = 64;
const HIGHLIGHT_MAX_WORDS = 64;

/**
 * The words of a query worth highlighting: lowercased, without stop words, one-letter words and
 * words over {@link HIGHLIGHT_MAX_WORD} letters; the first {@link HIGHLIGHT_MAX_WORDS}.
 *
 * @example
 * ```ts
 * queryTerms("How do the SMARS motors work?"); // ["smars", "motors", "work"]
 * ```
 */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? [];
  const kept = words.filter((w) => w.length > 1 && w.length <= HIGHLIGHT_MAX_WORD && !STOP.has(w));
  return [...new Set(kept)].slice(0, HIGHLIGHT_MAX_WORDS);
}

/** A regular expression for the terms at word starts, a plural `s` optional ("motor" finds "motors", "motors" finds "motor"). */
export function termPattern(terms: string[]): RegExp | undefined {
  if (!terms.length) return undefined;
  const parts = terms
    .sort((a, b) => b.length - a.length)
    .map((t) => {
      const stem = t.length > 3 && t.endsWith("s") ? t.slice(0, -1) : t;
      return stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "(?:e?s)?";
    });
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${parts.join("|")})(?![\\p{L}\\p{N}])`, "giu");
}
