import type { Logger } from "../log.js";
import { printable } from "./printable.js";

/** Writes a line to stdout. */
export const out = (s: string) => void process.stdout.write(s + "\n");
/** Writes a line to stderr. */
export const err = (s: string) => void process.stderr.write(s + "\n");

/** The CLI's logger: warnings on stderr, info/debug only with --verbose. */
export function stderrLogger(verbose: boolean): Logger {
  return {
    warn: (_code, message) => err(`warning: ${printable(message.replace(/^vault-rag: /, ""))}`),
    info: (m) => verbose && err(m),
    debug: (m) => verbose && err(m),
  };
}
