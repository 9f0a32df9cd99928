import type { Logger } from "../log.js";
import { printable } from "../shared/snippet-text.js";
import { write as writeTo } from "./context.js";

/** What {@link holdOutput} keeps back: each stream, and the text written to it, in order. */
let held: ["out" | "err", string][] | undefined;

/** Writes to the command's stdout or stderr (see `context.ts`), or keeps it back while output is held. */
const write = (stream: "out" | "err", s: string) => void (held ? held.push([stream, s]) : writeTo(stream, s));

/**
 * Keeps back what {@link out}, {@link err} and {@link outText} write until {@link releaseOutput}
 * (or drops it: {@link dropOutput}). A command answered by a resident process holds its output:
 * when that process goes away mid-command, the command runs again alone and prints once.
 *
 * @example
 * ```ts
 * holdOutput();
 * out("robots/SMARS.md:12"); // kept back
 * releaseOutput(); // written now
 * ```
 */
export function holdOutput(): void {
  held ??= [];
}

/** Writes what was held back, in order, and writes at once from now on. */
export function releaseOutput(): void {
  const was = held ?? [];
  held = undefined;
  for (const [stream, s] of was) writeTo(stream, s);
}

/** Forgets what was held back, and writes at once from now on. */
export function dropOutput(): void {
  held = undefined;
}

/** Writes a line to stdout (as given: a caller's colours and links are its own escape sequences). */
export const out = (s: string) => write("out", s + "\n");
/**
 * Writes a line to stderr with every control character but a line break written as an escape:
 * messages quote names and values from the notes (a tag, a folder, a path), which must not drive
 * the terminal (`\x1b[2J` in a folder's name cleared the screen from a hint).
 */
export const err = (s: string) => write("err", s.split("\n").map(printable).join("\n") + "\n");
/**
 * Writes text from the notes to stdout, lines kept, every other control character written as an
 * escape (see {@link printable}): chunks, prompts, answers.
 *
 * @example
 * ```ts
 * outText("# Title\n\x1b]0;pwned\x07"); // prints "# Title" and "\x1b]0;pwned\x07" as text
 * ```
 */
export const outText = (s: string) => write("out", textOf(s) + "\n");
/**
 * {@link printable} line by line, tabs kept: a text as a terminal may show it.
 *
 * @example
 * ```ts
 * textOf("a\tb\n\x1b[2J"); // "a\tb\n\\x1b[2J"
 * ```
 */
export const textOf = (s: string) =>
  s
    .split("\n")
    .map((l) => l.split("\t").map(printable).join("\t"))
    .join("\n");

/** The CLI's logger: warnings on stderr, info/debug only with --verbose. */
export function stderrLogger(verbose: boolean): Logger {
  return {
    warn: (_code, message) => err(`warning: ${printable(message.replace(/^vault-rag: /, ""))}`),
    info: (m) => verbose && err(m),
    debug: (m) => verbose && err(m),
  };
}

/**
 * Ends the process once what was written to stdout and stderr has been taken (a pipe's reader may
 * be slow: `process.exit` alone drops what is still buffered), without waiting for work left on
 * other threads, such as a batch the model was embedding when a watch was stopped.
 *
 * @example
 * ```ts
 * await watcher.close();
 * await exitWhenWritten();
 * ```
 */
export async function exitWhenWritten(): Promise<never> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (s) => new Promise<void>((resolve) => (s.writable ? s.write("", () => resolve()) : resolve())),
    ),
  );
  process.exit(process.exitCode ?? 0);
}
