/**
 * A text as one line of a terminal shows it safely: control characters (a line break in a file
 * name, an escape sequence in a note) and bidi overrides written as escapes, so a hit stays one
 * line, a note cannot drive the terminal, and a name cannot show its line backwards.
 *
 * @example
 * ```ts
 * printable("weird\nname.md"); // "weird\\nname.md"
 * ```
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    c === "\n"
      ? "\\n"
      : c === "\t"
        ? "\\t"
        : c === "\r"
          ? "\\r"
          : c >= "\u2000"
            ? // a bidi override or isolate: a file name "\u202eRTL.md" would show the rest of its line backwards
              `\\u${c.charCodeAt(0).toString(16)}`
            : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
