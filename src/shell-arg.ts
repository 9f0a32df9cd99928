/**
 * A word for a POSIX shell, as a command that a message tells the user to run must be written:
 * as it is when it holds only characters no shell treats specially, else in single quotes (a
 * quote inside as `'\''`). Double quotes would still let `$HOME` or a backtick run.
 *
 * @example
 * ```ts
 * shellArg("/home/me/notes"); // "/home/me/notes"
 * shellArg("/home/me/my notes"); // "'/home/me/my notes'"
 * shellArg("it's $HOME"); // "'it'\\''s $HOME'"
 * ```
 */
export function shellArg(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
