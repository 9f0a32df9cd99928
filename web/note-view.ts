/** The note panel: a note's text and the notes related to it. */
import { api, withToken } from "./api.js";
import { $, el, visibleBidi } from "./dom.js";
import type { NoteReply, RelatedNote, RelatedPassage, RelatedReply } from "./shared/api.js";
import { snippet } from "./shared/snippet-text.js";
import { withMath } from "./math.js";
import { obsidian, state } from "./state.js";

let relatedSeq = 0;

/** A hit in its note: its lines in the note's file (1-based, both included) and its text. */
export interface HitPlace {
  start: number;
  end: number;
  text: string;
  /** The PDF page the hit is on. */
  page?: number;
}

/** The object URL of the PDF shown, released when another file is shown. */
let shownFile: string | undefined;

/**
 * Opens a note in the panel: its text, expanded, and the notes related to it. Opened from a hit
 * (`at`), the text shows the hit's lines marked, scrolled to them.
 */
export async function selectNote(path: string, title?: string, at?: HitPlace): Promise<void> {
  state.selected = path;
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".hit-link"))
    a.setAttribute("aria-current", String(a.dataset.path === path));
  const panel = $("note-panel");
  panel.hidden = false;
  // in a narrow window the note opens below the hits: brought into view, or opening looks like nothing
  if (panel.getBoundingClientRect().top > window.innerHeight) panel.scrollIntoView({ block: "start" });
  $("note-path").textContent = visibleBidi(path);
  $<HTMLAnchorElement>("note-open").href = obsidian(path);
  $("note-title").replaceChildren(withMath(visibleBidi(title ?? path.replace(/^.*\//, "").replace(/\.md$/, ""))));
  $<HTMLDetailsElement>("note-text-box").open = true;
  $("note-text").textContent = "";
  if (shownFile) URL.revokeObjectURL(shownFile);
  shownFile = undefined;
  if (/\.pdf$/i.test(path)) void showPdf(path, at?.page);
  // a Canvas board or a Word document has no Markdown to show: the passage found stands for it
  else if (!/\.md$/i.test(path)) $("note-text").textContent = at?.text ?? "";
  else
    api<NoteReply>(`/api/note?${new URLSearchParams({ path })}`).then(
      (n) => state.selected === path && showText(n.text, at),
      (e: Error) => state.selected === path && ($("note-text").textContent = e.message),
    );
  await loadRelated();
}

/**
 * Shows a PDF in the panel, in the browser's viewer, at the hit's page (`#page=14`): fetched with
 * the server's token, then shown from an object URL (a frame's address carries no header).
 */
async function showPdf(path: string, page?: number): Promise<void> {
  const box = $("note-text");
  try {
    const res = await fetch(`/api/file?${new URLSearchParams({ path })}`, { headers: withToken({}) });
    if (!res.ok) throw new Error(((await res.json().catch(() => ({}))) as { error?: string }).error ?? res.statusText);
    const url = URL.createObjectURL(await res.blob());
    if (state.selected !== path) return URL.revokeObjectURL(url);
    shownFile = url;
    const at = `${url}${page ? `#page=${page}` : ""}`;
    box.replaceChildren(el("iframe", { id: "note-pdf", src: at, title: path }));
    $<HTMLAnchorElement>("note-open").href = obsidian(path);
  } catch (e) {
    if (state.selected === path) box.textContent = (e as Error).message;
  }
}

/** Shows a note's text; with a hit, its lines marked (`#note-hit`) and scrolled to the top of the box. */
function showText(text: string, at?: HitPlace): void {
  const box = $("note-text");
  const lines = text.split("\n");
  const from = at && hitLine(lines, at);
  if (!at || from === undefined) {
    box.textContent = text;
    box.scrollTop = 0;
    return;
  }
  const to = from + at.end - at.start + 1;
  const cut = (a: number, b: number) => lines.slice(a, b).join("\n");
  const hit = el("mark", { id: "note-hit" });
  hit.textContent = cut(from, to); // as written, as the rest of the text
  box.replaceChildren(from ? `${cut(0, from)}\n` : "", hit, to < lines.length ? `\n${cut(to, lines.length)}` : "");
  box.scrollTop += hit.getBoundingClientRect().top - box.getBoundingClientRect().top;
  // and the window to the panel, where the hit would start below its edge (the panel below the hits)
  const top = hit.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight - 40) $("note-panel").scrollIntoView({ block: "start" });
}

/**
 * Where a hit starts in the note's text (0-based), or `undefined`: the text the server gives leaves
 * the frontmatter out, so the hit's file line is matched by its first line of text, at that line
 * or the nearest before it.
 */
function hitLine(lines: string[], at: HitPlace): number | undefined {
  const first = at.text
    .split("\n")
    .find((l) => l.trim())
    ?.trimEnd();
  if (first === undefined) return undefined;
  let found: number | undefined;
  for (let i = 0; i < lines.length; i++)
    if (lines[i].trimEnd() === first && (found === undefined || i <= at.start - 1)) found = i;
  return found;
}

/** Finds the notes related to the open one (only those not linked yet, when asked). */
export async function loadRelated(): Promise<void> {
  if (!state.selected) return;
  const seq = ++relatedSeq;
  const path = state.selected;
  const line = $("related-state");
  const list = $("related-list");
  line.textContent = "Finding related notes…";
  const p = new URLSearchParams({ path, k: "6" });
  if ($<HTMLInputElement>("unlinked").checked) p.set("unlinked_only", "true");
  let r: RelatedReply;
  try {
    r = await api(`/api/related?${p}`);
  } catch (e) {
    if (seq === relatedSeq) {
      list.replaceChildren();
      line.textContent = (e as Error).message;
    }
    return;
  }
  if (seq !== relatedSeq) return;
  line.textContent = r.related.length ? "" : `No related notes: ${r.reason ?? "none found"}.`;
  list.replaceChildren(...r.related.map(relatedItem));
}

/** One side of a related note's best pair: whose passage, its breadcrumb and its snippet. */
const pairSide = (whose: string, p: RelatedPassage) =>
  el(
    "p",
    {},
    el("strong", {}, whose),
    el("span", { class: "crumb" }, withMath(visibleBidi(p.section))),
    " — ",
    withMath(snippet(p.text, 140, { fallback: p.section })),
  );

/** A related note: its title (opening it), score, whether linked, `path:line`, and the pair of passages. */
function relatedItem(n: RelatedNote): HTMLLIElement {
  const go = el("a", { href: `#${encodeURIComponent(n.path)}`, class: "related-link" }, withMath(visibleBidi(n.title)));
  go.addEventListener("click", (ev) => {
    ev.preventDefault();
    void selectNote(n.path, n.title);
  });
  return el(
    "li",
    {},
    go,
    " ",
    el("span", { class: "score", title: "similarity of the best pair of passages" }, n.score.toFixed(2)),
    n.linked ? el("span", { class: "badge" }, "linked") : "",
    el(
      "p",
      { class: "meta" },
      el("code", {}, `${n.path}:${n.target.start_line}`),
      " ",
      el("a", { href: obsidian(n.path), class: "obsidian" }, "Open in Obsidian"),
    ),
    el("div", { class: "pair" }, pairSide("This note: ", n.source), pairSide("That note: ", n.target)),
  );
}
