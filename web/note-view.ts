/** The note panel: a note's text and the notes related to it. */
import { api } from "./api.js";
import { $, el, visibleBidi } from "./dom.js";
import type { NoteReply, RelatedNote, RelatedPassage, RelatedReply } from "./shared/api.js";
import { snippet } from "./shared/snippet-text.js";
import { obsidian, state } from "./state.js";

let relatedSeq = 0;

/** Opens a note in the panel: its text, and the notes related to it. */
export async function selectNote(path: string, title?: string): Promise<void> {
  state.selected = path;
  for (const a of document.querySelectorAll<HTMLAnchorElement>(".hit-link"))
    a.setAttribute("aria-current", String(a.dataset.path === path));
  const panel = $("note-panel");
  panel.hidden = false;
  // in a narrow window the note opens below the hits: brought into view, or opening looks like nothing
  if (panel.getBoundingClientRect().top > window.innerHeight) panel.scrollIntoView({ block: "start" });
  $("note-path").textContent = visibleBidi(path);
  $<HTMLAnchorElement>("note-open").href = obsidian(path);
  $("note-title").textContent = visibleBidi(title ?? path.replace(/^.*\//, "").replace(/\.md$/, ""));
  $("note-text").textContent = "";
  api<NoteReply>(`/api/note?${new URLSearchParams({ path })}`).then(
    (n) => state.selected === path && ($("note-text").textContent = n.text),
    (e: Error) => state.selected === path && ($("note-text").textContent = e.message),
  );
  await loadRelated();
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
    el("span", { class: "crumb" }, p.section),
    " — ",
    snippet(p.text, 140, { fallback: p.section }),
  );

/** A related note: its title (opening it), score, whether linked, `path:line`, and the pair of passages. */
function relatedItem(n: RelatedNote): HTMLLIElement {
  const go = el("a", { href: `#${encodeURIComponent(n.path)}`, class: "related-link" }, n.title);
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
