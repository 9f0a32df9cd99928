/** Numbers as every interface writes them. */

/**
 * A count with thousands separators, the same on every machine (`en-US`).
 *
 * @example
 * ```ts
 * num(6321); // "6,321"
 * ```
 */
export const num = (n: number): string => n.toLocaleString("en-US");
