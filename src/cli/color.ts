/**
 * Colour on the terminal: when to use it (`--color auto|always|never`, `NO_COLOR`, a TTY) and the
 * few styles the CLI prints with (ripgrep's: magenta paths, green line numbers, bold red matches).
 */
import { VaultRagError } from "../errors.js";
import { env as commandEnv } from "./context.js";

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
  env: NodeJS.ProcessEnv = commandEnv(),
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
