/**
 * The web app of `vault-rag serve`: one page over the HTTP API (/api/search, /api/ask, /api/note,
 * /api/related, /api/tags, /api/folders, /api/status), no framework and nothing fetched but the API
 * itself. This module wires the views (search, note, ask, status) to the page: tabs,
 * keys and the search the address holds. Built by `npm run build:web` into `dist/web/`,
 * with the snippet code and the API's types it shares with the server (`src/shared/`).
 */
import { ask } from "./ask-view.js";
import { $ } from "./dom.js";
import { loadFilters } from "./filters.js";
import { loadRelated } from "./note-view.js";
import { runSearch, searchNow, searchSoon } from "./search-view.js";
import { filters } from "./state.js";
import { refreshStatus } from "./status.js";

/** Shows the search or the ask view, focusing its box. */
function showTab(which: "search" | "ask", focus = true): void {
  for (const t of ["search", "ask"] as const) {
    const on = t === which;
    $(`tab-${t}`).setAttribute("aria-selected", String(on));
    $(`tab-${t}`).tabIndex = on ? 0 : -1;
    $(`view-${t}`).hidden = !on;
  }
  if (focus) $(which === "search" ? "q" : "question").focus();
}

/** The hits' links, in order: the arrow keys move between them. */
function hitLinks(): HTMLAnchorElement[] {
  return [...document.querySelectorAll<HTMLAnchorElement>("#hits .hit-link")];
}

document.addEventListener("keydown", (ev) => {
  const target = ev.target as HTMLElement;
  const typing = target.matches("input, textarea, select");
  if (ev.key === "/" && !typing && !ev.ctrlKey && !ev.metaKey) {
    ev.preventDefault();
    showTab("search");
    return;
  }
  if (ev.key === "Escape" && !$("view-search").hidden) {
    $("q").focus();
    return;
  }
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  const links = hitLinks();
  if (!links.length || $("view-search").hidden) return;
  const at = links.indexOf(target as HTMLAnchorElement);
  if (target.id === "q" && ev.key === "ArrowDown") {
    ev.preventDefault();
    links[0].focus();
  } else if (at >= 0) {
    ev.preventDefault();
    if (ev.key === "ArrowUp" && at === 0) $("q").focus();
    else links[Math.max(0, Math.min(links.length - 1, at + (ev.key === "ArrowDown" ? 1 : -1)))].focus();
  }
});

window.addEventListener("DOMContentLoaded", async () => {
  $("tab-search").addEventListener("click", () => showTab("search"));
  $("tab-ask").addEventListener("click", () => showTab("ask"));
  for (const id of ["tab-search", "tab-ask"])
    $(id).addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
        ev.preventDefault();
        const to = id === "tab-search" ? "ask" : "search";
        showTab(to, false);
        $(`tab-${to}`).focus();
      }
    });
  const q = $<HTMLInputElement>("q");
  q.addEventListener("input", searchSoon);
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    searchNow();
  });
  $("ask-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const question = $<HTMLInputElement>("question").value.trim();
    if (question) void ask(question);
  });
  $("unlinked").addEventListener("change", () => void loadRelated());
  await refreshStatus();
  // a search in the address (`/?q=sourdough&tag=baking`, as the page writes it) is run at once
  const at = new URLSearchParams(location.search);
  // tags as the index keeps them, lowercase and without "#": `?tag=Pico` presses the #pico chip
  // (no second chip, "#Pico", beside it)
  for (const t of at.getAll("tag")) filters.tags.add(t.trim().replace(/^#/, "").toLowerCase());
  if (at.has("folder")) filters.folder = at.get("folder")!;
  filters.since = at.get("since") ?? "";
  await loadFilters();
  q.value = at.get("q") ?? "";
  if (q.value) void runSearch();
  q.focus();
});
