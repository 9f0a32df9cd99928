/**
 * Plain ASCII text (every UTF-16 unit below U+0080), tested without a Unicode property class: it is
 * its own NFKC form, and its letters and digits are `[A-Za-z0-9]`, so a reader of it can take a
 * fast path. No imports: the web app compiles `src/shared/` too.
 */
const ASCII = /^[^\u0080-\uffff]*$/;

/**
 * Whether a text is plain ASCII.
 *
 * @example
 * ```ts
 * isAscii("motor driver"); // true
 * isAscii("naïve"); // false
 * ```
 */
export function isAscii(text: string): boolean {
  return ASCII.test(text);
}
