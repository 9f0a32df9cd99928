/** The page's DOM helpers: elements by id, elements built from parts, and text as the page shows it. */
import { printable } from "./shared/snippet-text.js";

/** The element with this id. */
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/**
 * An element with attributes and children; a string child is shown as {@link printable} writes it
 * (a bidi override, as the CLI prints it: a file name "\u202eRTL.md" would show the rest of its hit
 * backwards).
 */
export const el = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children.map((c) => (typeof c === "string" ? visibleBidi(c) : c)));
  return e;
};

/** Bidi overrides and isolates written as escapes, as the CLI prints them (`printable`); line breaks kept. */
export function visibleBidi(s: string): string {
  return s.replace(/[\u202a-\u202e\u2066-\u2069]/g, (c) => printable(c));
}

/** A count and its noun: "1 passage", "12 passages". */
export const plural = (n: number, noun: string) => `${n.toLocaleString()} ${noun}${n === 1 ? "" : "s"}`;

/** Text with the matches of `pattern` wrapped in `<mark>`, built as DOM nodes (never as HTML). */
export function marked(text: string, pattern: RegExp | undefined): DocumentFragment {
  const f = document.createDocumentFragment();
  if (!pattern) {
    f.append(text);
    return f;
  }
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (!m[0]) continue;
    f.append(text.slice(last, m.index), el("mark", {}, m[0]));
    last = m.index! + m[0].length;
  }
  f.append(text.slice(last));
  return f;
}
