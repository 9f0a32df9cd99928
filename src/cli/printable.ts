/**
 * A text as one line of a terminal shows it safely: control characters (a line break in a file
 * name, an escape sequence in a note) written as escapes, so a hit stays one line and a note
 * cannot drive the terminal.
 *
 * @example
 * ```ts
 * printable("weird\nname.md"); // "weird\\nname.md"
 * ```
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\t"
        ? "\\t"
        : c === "\r"
          ? "\\r"
          : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
