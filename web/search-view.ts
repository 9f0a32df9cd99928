/** The search view: the query as typed, its hits with their snippets marked, and what the search says of them. */
import { api } from "./api.js";
import { $, el, plural, visibleBidi } from "./dom.js";
import { withMath } from "./math.js";
import { selectNote } from "./note-view.js";
import type { HitJson, SearchReply } from "./shared/api.js";
import { highlightTerms, snippet, termPattern } from "./shared/snippet-text.js";
import { placeOf } from "./shared/place.js";
import { filterParams, obsidian, state } from "./state.js";

/** How wide a hit's snippet is, in characters. */
const SNIPPET_WIDTH = 220;

let searchSeq = 0;
let debounce: number | undefined;

/** Runs the search a moment after the last key typed. */
export function searchSoon(): void {
  clearTimeout(debounce);
  debounce = window.setTimeout(runSearch, 200);
}

/** Runs the search now (a submitted form), dropping one waiting to run. */
export function searchNow(): void {
  clearTimeout(debounce);
  void runSearch();
}

/** Runs the query in the search box with the filters, and shows its hits. */
export async function runSearch(): Promise<void> {
  const q = $<HTMLInputElement>("q").value.trim();
  const state = $("result-state");
  const list = $("hits");
  const seq = ++searchSeq;
  // the address holds the search (a reload or a shared link shows it again); the hash, a source's
  // place, is kept
  history.replaceState(
    null,
    "",
    `${location.pathname}${q ? `?${filterParams(new URLSearchParams({ q }))}` : ""}${location.hash}`,
  );
  if (!q) {
    list.replaceChildren();
    state.textContent = "";
    return;
  }
  state.textContent = "Searching…";
  let r: SearchReply;
  try {
    r = await api(`/api/search?${filterParams(new URLSearchParams({ q, top_k: "12" }))}`);
  } catch (e) {
    if (seq !== searchSeq) return;
    list.replaceChildren();
    state.textContent = (e as Error).message;
    return;
  }
  if (seq !== searchSeq) return;
  // the synonyms the search also ranked by are highlighted too, and named: a hit that says
  // "holiday" for a question about a vacation should not look like a mistake
  const synonyms = r.expansion?.phrases ?? [];
  const pattern = termPattern([...new Set([q, ...synonyms].flatMap(highlightTerms))]);
  // a hit from a note edited or deleted since the last index shows text the note no longer holds
  const changedNotes = new Set(r.stale?.changed ?? []);
  const deletedNotes = new Set(r.stale?.deleted ?? []);
  const staleOf = (p: string) => (deletedNotes.has(p) ? "deleted" : changedNotes.has(p) ? "changed" : undefined);
  list.replaceChildren(...r.hits.map((h, i) => hitItem(h, i, pattern, staleOf(h.path))));
  const also = synonyms.length
    ? `, also matching ${synonyms
        .slice(0, 5)
        .map((p) => `“${p}”`)
        .join(", ")}${synonyms.length > 5 ? ` and ${synonyms.length - 5} more` : ""}`
    : "";
  const shown = r.hits.length
    ? `${plural(r.hits.length, "passage")}${also}`
    : // and what may fix it: a folder in another case, a tag no note has, a range that misses every note
      [`No results for “${q}”${r.reason ? `: ${r.reason}` : ""}.`, ...(r.hints ?? [])].join(" ");
  // a question the model could not read was ranked by its words alone: say so, as the CLI does
  const notes = [r.notice?.replace(/^./, (c) => c.toUpperCase()), staleLine(changedNotes.size, deletedNotes.size)];
  state.textContent = [shown, ...notes.filter(Boolean)].join(" — ");
}

/** What the state line says of hits from notes changed or deleted since the last index, if any. */
function staleLine(changed: number, deleted: number): string | undefined {
  if (!changed && !deleted) return undefined;
  const parts = [
    changed ? `${plural(changed, "note")} changed` : "",
    deleted ? `${plural(deleted, "note")} deleted` : "",
  ].filter(Boolean);
  const fix = state.watching ? "the index is refreshed as notes change" : "run vault-rag index to refresh";
  return `${parts.join(" and ")} since the last index, marked below (${fix})`;
}

/**
 * One hit: its breadcrumb (opening the note at the hit), its snippet with the terms marked and its
 * formulas rendered, `path:line` and its tags.
 */
function hitItem(h: HitJson, i: number, pattern: RegExp | undefined, stale?: "changed" | "deleted"): HTMLLIElement {
  const open = el("a", {
    href: `#${encodeURIComponent(h.path)}`,
    class: "hit-link",
    "data-path": h.path,
    "data-index": String(i),
  });
  open.append(el("span", { class: "crumb" }, withMath(visibleBidi(h.label))));
  open.addEventListener("click", (ev) => {
    ev.preventDefault();
    void selectNote(h.path, h.title, { start: h.start_line, end: h.end_line, text: h.text, page: h.page });
  });
  return el(
    "li",
    { class: "hit" },
    open,
    el(
      "p",
      { class: "snippet" },
      withMath(snippet(h.text, SNIPPET_WIDTH, { pattern, fallback: h.label, lead: h.lead }), pattern),
    ),
    el(
      "p",
      { class: "meta" },
      el("code", {}, placeOf(h)),
      " ",
      el("a", { href: obsidian(h.path), class: "obsidian" }, "Open in Obsidian"),
      ...(stale
        ? [el("span", { class: "stale" }, stale === "deleted" ? "deleted since indexed" : "changed since indexed")]
        : []),
      ...h.tags.slice(0, 4).map((t) => el("span", { class: "tag" }, `#${t}`)),
    ),
  );
}
