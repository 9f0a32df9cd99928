/**
 * Values as error messages quote them: cut to a length a line can hold, and written by hand so that
 * a value nested thousands deep is quoted too. One module for the filters (store) and the request
 * checks of MCP and the HTTP API.
 */

/** The most characters of a bad value an error message quotes. */
export const SHOWN_CHARS = 80;

/** A text cut at {@link SHOWN_CHARS}, with a mark. */
export const cut = (s: string) => (s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}…` : s);

/** A text as an error quotes it: in quotes, cut at {@link SHOWN_CHARS}. */
export const quoted = (s: string) => `"${cut(s)}"`;

/**
 * A value as an error quotes it: its JSON, cut at {@link SHOWN_CHARS}. Written by hand to that
 * length, so that a value nested thousands deep (which `JSON.stringify` cannot write: it runs out
 * of stack) is quoted too.
 *
 * @example
 * ```ts
 * shown([[1, 2], "x"]); // '[[1,2],"x"]'
 * ```
 */
export function shown(value: unknown): string {
  let out = "";
  const walk = (v: unknown): void => {
    if (out.length > SHOWN_CHARS) return;
    if (Array.isArray(v)) {
      out += "[";
      v.forEach((x, i) => (i && (out += ","), walk(x)));
      out += "]";
    } else if (v !== null && typeof v === "object") {
      out += "{";
      Object.entries(v).forEach(([k, x], i) => ((out += `${i ? "," : ""}${JSON.stringify(k)}:`), walk(x)));
      out += "}";
    } else out += JSON.stringify(v) ?? String(v);
  };
  // the walk stops adding once past the limit, so it goes no deeper than SHOWN_CHARS levels
  walk(value);
  return cut(out);
}
