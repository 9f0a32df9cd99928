/** The filter chips: the vault's own tags and folders, and dates, each a toggle of the search's filters. */
import { api } from "./api.js";
import { $, el } from "./dom.js";
import { runSearch } from "./search-view.js";
import type { FolderCount, TagCount } from "./shared/api.js";
import { filters } from "./state.js";

function chip(label: string, pressed: boolean, onClick: () => void, title?: string): HTMLButtonElement {
  const b = el("button", { type: "button", class: "chip", "aria-pressed": String(pressed) }, label);
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

let allTags: TagCount[] = [];
let allFolders: FolderCount[] = [];
const SHOWN = 10;

/** Fills the chips from the vault's own tags and folders (again once an index being built is done). */
export async function loadFilters(): Promise<void> {
  [allTags, allFolders] = await Promise.all([
    api<TagCount[]>("/api/tags").catch(() => []),
    api<FolderCount[]>("/api/folders").catch(() => []),
  ]);
  renderFilters();
}

function renderFilters(): void {
  const tagBox = $("tag-chips");
  tagBox.replaceChildren();
  const shownTags = allTags.slice(0, SHOWN).map((t) => t.tag);
  for (const t of filters.tags) if (!shownTags.includes(t)) shownTags.push(t);
  for (const t of shownTags)
    tagBox.append(
      chip(`#${t}`, filters.tags.has(t), () => {
        if (filters.tags.has(t)) filters.tags.delete(t);
        else filters.tags.add(t);
        changed();
      }),
    );
  if (allTags.length > SHOWN)
    tagBox.append(
      moreSelect(
        "More tags",
        allTags.slice(SHOWN).map((t) => [t.tag, `#${t.tag} (${t.notes})`]),
        (v) => (filters.tags.add(v), changed()),
      ),
    );

  const folderBox = $("folder-chips");
  folderBox.replaceChildren();
  const shownFolders = allFolders
    .slice()
    .sort((a, b) => b.notes - a.notes)
    .slice(0, SHOWN)
    .map((f) => f.folder);
  if (filters.folder !== undefined && !shownFolders.includes(filters.folder)) shownFolders.push(filters.folder);
  for (const f of shownFolders)
    folderBox.append(
      chip(f || "(vault root)", filters.folder === f, () => {
        filters.folder = filters.folder === f ? undefined : f;
        changed();
      }),
    );
  if (allFolders.length > SHOWN)
    folderBox.append(
      moreSelect(
        "More folders",
        allFolders.map((f) => [`/${f.folder}`, `${f.folder || "(vault root)"} (${f.notes})`]),
        // values start with "/" so that the root's ("") is not the placeholder's
        (v) => ((filters.folder = v.slice(1)), changed()),
      ),
    );

  const dateBox = $("date-chips");
  dateBox.replaceChildren();
  for (const [label, since] of [
    ["Any time", ""],
    ["Past week", "7d"],
    ["Past month", "30d"],
    ["Past year", "1y"],
  ])
    dateBox.append(
      chip(label, filters.since === since, () => {
        filters.since = since;
        changed();
      }),
    );
}

function moreSelect(label: string, options: [string, string][], pick: (v: string) => void): HTMLSelectElement {
  const s = el("select", { "aria-label": label }, el("option", { value: "" }, `${label}…`));
  for (const [value, text] of options) s.append(el("option", { value }, text));
  s.addEventListener("change", () => s.value !== "" && pick(s.value));
  return s;
}

/** A filter changed: the chips and the results follow. */
function changed(): void {
  renderFilters();
  void runSearch();
}
