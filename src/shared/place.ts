/**
 * Where a passage is, as every interface prints it: a note's `path:line`, a PDF page's `path:p14`.
 * Shared by the CLI and the web app (no Node, no imports).
 */

/** What a place is read from: a hit's or a source's path, first line and page (0 or absent: none). */
export interface Placed {
  path: string;
  start_line: number;
  page?: number;
}

/**
 * A passage's place: `papers/attention.pdf:p14` on a PDF page, `robots/SMARS.md:12` in a note.
 *
 * @example
 * ```ts
 * placeOf({ path: "papers/attention.pdf", start_line: 3, page: 14 }); // "papers/attention.pdf:p14"
 * placeOf({ path: "robots/SMARS.md", start_line: 12 });               // "robots/SMARS.md:12"
 * ```
 */
export function placeOf(p: Placed): string {
  return `${p.path}:${lineOf(p)}`;
}

/**
 * The part after the colon in {@link placeOf}: `p14`, or the line.
 *
 * @example
 * ```ts
 * lineOf({ path: "a.pdf", start_line: 1, page: 2 }); // "p2"
 * ```
 */
export function lineOf(p: Placed): string {
  return p.page ? `p${p.page}` : String(p.start_line);
}

/**
 * How an answer cites a source on a PDF page: `attention.pdf, p. 14` (its file name and page), or
 * `undefined` for a passage of no page.
 *
 * @example
 * ```ts
 * pageCitation({ path: "papers/attention.pdf", start_line: 1, page: 14 }); // "attention.pdf, p. 14"
 * ```
 */
export function pageCitation(p: Placed): string | undefined {
  return p.page ? `${p.path.slice(p.path.lastIndexOf("/") + 1)}, p. ${p.page}` : undefined;
}
