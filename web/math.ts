/** Text with its formulas (`$…$`, `$$…$$`) rendered by KaTeX, bundled with the page (no CDN). */
import katex from "./katex.js";
import { el, marked } from "./dom.js";
import { mathSpans } from "./shared/snippet-text.js";

/**
 * A text as DOM nodes: its formulas rendered by KaTeX (inline, as a heading or a one-line snippet
 * shows them; a formula KaTeX cannot read shows as written, in the error colour), the rest with the
 * matches of `pattern` marked ({@link marked}).
 *
 * @example
 * ```ts
 * snippetBox.replaceChildren(withMath("so $a \\rightarrow b$", pattern)); // "so " and a .katex span
 * ```
 */
export function withMath(text: string, pattern?: RegExp): DocumentFragment {
  const f = document.createDocumentFragment();
  let last = 0;
  for (const m of mathSpans(text)) {
    f.append(marked(text.slice(last, m.start), pattern), formula(m.tex, m.display));
    last = m.end;
  }
  f.append(marked(text.slice(last), pattern));
  return f;
}

/** One formula, rendered into a span (built as DOM nodes, never as HTML: the page's policy allows no inline styles). */
function formula(tex: string, display: boolean): HTMLSpanElement {
  const box = el("span", { class: display ? "math math-display" : "math" });
  katex.render(tex, box, { throwOnError: false, displayMode: false, maxExpand: 200 });
  return box;
}
